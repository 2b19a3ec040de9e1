// Streams created at their first use (--streams-created-at-first-use, how
// umsim-hip replayed before session 103): hand-computed timings under
// round_profile() with device memory at 2 GB/s (a 2 MiB kernel write: 1048576
// ns) and host.stream_create_cost 250 us.
#include <gtest/gtest.h>

#include <memory>

#include "sim/stream_creation.h"
#include "tests/sim/sim_test_util.h"
#include "traces/trace_builder.h"
#include "traces/trace_reader.h"

namespace umsim::sim {
namespace {

using namespace trace::literals;
using testing::options_for;
using testing::replay;
using testing::round_profile;
using trace::Processor;
using trace::TraceBuilder;

constexpr Nanos kCreate = 250000;
constexpr Nanos kWrite2MiB = 1048576;

HardwareProfile creating_profile(int gpus = 1) {
  HardwareProfile p = round_profile(gpus);
  p.gpu_access_gbps = 2.0;
  p.stream_create_ns = kCreate;
  return p;
}

EngineOptions created_at_first_use(HardwareProfile p, trace::StreamId before_the_timing) {
  EngineOptions o = options_for(std::move(p));
  o.streams_created_at_first_use = before_the_timing;
  return o;
}

// Two kernels on stream 2, then one on stream 1, stream 1 created before the
// timing: the first kernel on stream 2 starts kCreate late (its phase holds
// the creation, its own time does not), the second on it and the one on
// stream 1 pay nothing.
TEST(StreamCreation, EachStreamButTheFirstIsCreatedAtItsFirstUse) {
  const auto t = TraceBuilder()
                     .alloc("A", 2_MiB)
                     .alloc("B", 2_MiB)
                     .alloc("C", 2_MiB)
                     .phase("kernels")
                     .kernel("k1", 0, 0, 2)
                     .write("A")
                     .end()
                     .sync()
                     .kernel("k2", 0, 0, 2)
                     .write("B")
                     .end()
                     .sync()
                     .kernel("k3", 0, 0, 1)
                     .write("C")
                     .end()
                     .sync()
                     .build();
  const Result plain = replay(t, options_for(creating_profile()));
  const Result created = replay(t, created_at_first_use(creating_profile(), 1));
  ASSERT_EQ(created.kernels.size(), 3u);
  EXPECT_EQ(created.kernels[0].start_ns, plain.kernels[0].start_ns + kCreate);
  EXPECT_EQ(created.kernels[0].counters.time_ns, plain.kernels[0].counters.time_ns);
  for (std::size_t k = 1; k < 3; ++k)
    EXPECT_EQ(created.kernels[k].start_ns - created.kernels[k - 1].start_ns,
              plain.kernels[k].start_ns - plain.kernels[k - 1].start_ns)
        << "kernel " << k;
  EXPECT_EQ(created.phases.back().counters.time_ns, plain.phases.back().counters.time_ns + kCreate);
  // Created before the timing, stream 2 costs nothing; stream 1 is then created at k3.
  const Result other = replay(t, created_at_first_use(creating_profile(), 2));
  EXPECT_EQ(other.kernels[0].start_ns, plain.kernels[0].start_ns);
  EXPECT_EQ(other.kernels[2].start_ns - other.kernels[1].start_ns,
            plain.kernels[2].start_ns - plain.kernels[1].start_ns + kCreate);
  EXPECT_EQ(other.config["options"]["streams_created_at_first_use"]["created_before_the_timing"], 2);
  EXPECT_FALSE(plain.config["options"].contains("streams_created_at_first_use"));
}

// The pair is (GPU, stream): gpu1's stream 0 is created at its first use (host
// time: after a sync, the kernel starts that much later) even with gpu0's
// stream 0 made before the timing, and a prefetch to the CPU, an
// event record and a memset issue on their own pairs (gpu0 for the first two).
TEST(StreamCreation, APairIsAGpuAndAStream) {
  const auto t = TraceBuilder()
                     .alloc("A", 2_MiB)
                     .alloc("B", 2_MiB)
                     .phase("kernels")
                     .kernel("k0", 0, 0, 0)
                     .write("A")
                     .end()
                     .sync()
                     .kernel("k1", 1, 0, 0)
                     .write("B")
                     .end()
                     .sync()
                     .build();
  const Result plain = replay(t, options_for(creating_profile(2)));
  const Result created = replay(t, created_at_first_use(creating_profile(2), 0));
  ASSERT_EQ(created.kernels.size(), 2u);
  EXPECT_EQ(created.kernels[0].start_ns, plain.kernels[0].start_ns);
  EXPECT_EQ(created.kernels[1].start_ns, plain.kernels[1].start_ns + kCreate);

  trace::Event e;
  e.kind = trace::EventKind::kPrefetch;
  e.processor = Processor::cpu();
  e.stream = 3;
  EXPECT_EQ(issuing_stream(e), (std::pair<int, trace::StreamId>{0, 3}));
  e.kind = trace::EventKind::kMemset;
  e.processor = Processor::gpu(1);
  EXPECT_EQ(issuing_stream(e), (std::pair<int, trace::StreamId>{1, 3}));
  e.kind = trace::EventKind::kEventRecord;
  EXPECT_EQ(issuing_stream(e), (std::pair<int, trace::StreamId>{0, 3}));
  e.kind = trace::EventKind::kSync;
  EXPECT_EQ(issuing_stream(e), std::nullopt);
  e.kind = trace::EventKind::kCpuAccess;
  EXPECT_EQ(issuing_stream(e), std::nullopt);
}

// The stream made before the timing is the lowest any stream statement names,
// a sync of one stream included, whatever comes first.
TEST(StreamCreation, TheLowestStreamIsMadeBeforeTheTiming) {
  auto lowest = [](const std::string& body) {
    return lowest_stream(*trace::open_trace_from_memory("umsim-trace 1\nalloc A 2MiB managed\n" + body));
  };
  EXPECT_EQ(lowest("kernel k gpu=0 stream=3\n  w A len=4KiB\nend\nkernel j gpu=0 stream=2\n  w A len=4KiB\nend\n"), 2u);
  EXPECT_EQ(lowest("prefetch A len=64KiB to=gpu0 stream=5\nsync stream=4\n"), 4u);
  EXPECT_EQ(lowest("cpu w A len=4KiB\n"), std::nullopt);
  EXPECT_EQ(lowest("kernel k gpu=0\n  w A len=4KiB\nend\nprefetch A len=64KiB to=cpu stream=1\n"), 0u);
}

}  // namespace
}  // namespace umsim::sim
