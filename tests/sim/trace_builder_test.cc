// The in-memory trace builder and reader used by the model's tests.
#include <gtest/gtest.h>

#include "traces/memory_trace_reader.h"
#include "traces/trace_builder.h"

namespace umsim::trace {
namespace {

using namespace literals;

TEST(TraceBuilder, BuildsEventsAndNames) {
  const BuiltTrace t = TraceBuilder()
                           .alloc("A", 1_MiB)
                           .cpu_write("A")
                           .kernel("k0", 1, 500, 3)
                           .read("A", 4_KiB, 8_KiB)
                           .end()
                           .prefetch("A", Processor::gpu(1), 2)
                           .build();
  ASSERT_EQ(t.events.size(), 6u);
  EXPECT_EQ(t.events[0].kind, EventKind::kAlloc);
  EXPECT_EQ(t.events[0].length, 1_MiB);
  EXPECT_EQ(t.events[1].length, 1_MiB);  // whole allocation
  EXPECT_EQ(t.events[1].processor, Processor::cpu());
  EXPECT_EQ(t.events[2].processor, Processor::gpu(1));
  EXPECT_EQ(t.events[2].duration, 500u);
  EXPECT_EQ(t.events[2].stream, 3u);
  EXPECT_EQ(t.events[3].offset, 4_KiB);
  EXPECT_EQ(t.events[3].length, 8_KiB);
  EXPECT_EQ(t.events[4].kind, EventKind::kKernelEnd);
  EXPECT_EQ(t.names.name(t.events[0].name), "A");
  EXPECT_EQ(t.names.name(t.events[2].name), "k0");
  EXPECT_EQ(t.events[3].name, t.events[0].name);
}

TEST(TraceBuilder, MisuseThrows) {
  EXPECT_THROW(TraceBuilder().alloc("A", 4_KiB).read("A"), std::logic_error);
  EXPECT_THROW(TraceBuilder().alloc("A", 4_KiB).kernel("k").cpu_read("A"), std::logic_error);
  EXPECT_THROW(TraceBuilder().kernel("k").build(), std::logic_error);
  EXPECT_THROW(TraceBuilder().kernel("k").read("nope"), std::logic_error);
}

TEST(MemoryTraceReader, ReadsInBatchesAndNamesPositions) {
  MemoryTraceReader r(TraceBuilder().alloc("A", 4_KiB).page_reads("A", 0, 0).cpu_read("A").cpu_read("A").build());
  std::vector<Event> buf(2);
  EXPECT_EQ(r.read(buf), 2u);
  EXPECT_EQ(r.read(buf), 1u);
  EXPECT_EQ(r.position(0), "<memory>:event 3");
  EXPECT_EQ(r.read(buf), 0u);
  EXPECT_EQ(r.names().name(0), "A");
}

}  // namespace
}  // namespace umsim::trace
