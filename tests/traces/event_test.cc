// Event helpers: to_string, pages_per_pass and for_each_page_once, NameTable.
#include <gtest/gtest.h>

#include <vector>

#include "traces/event.h"
#include "traces/trace_reader.h"

namespace umsim::trace {
namespace {

Event access(Bytes offset, Bytes length, Bytes stride) {
  Event e;
  e.kind = EventKind::kGpuAccess;
  e.offset = offset;
  e.length = length;
  e.stride = stride;
  return e;
}

std::vector<std::uint64_t> pages(const Event& e) {
  std::vector<std::uint64_t> out;
  for_each_page_once(e, [&](std::uint64_t p) { out.push_back(p); });
  return out;
}

TEST(Processor, ToString) {
  EXPECT_EQ(to_string(Processor::none()), "none");
  EXPECT_EQ(to_string(Processor::cpu()), "cpu");
  EXPECT_EQ(to_string(Processor::gpu(0)), "gpu0");
  EXPECT_EQ(to_string(Processor::gpu(7)), "gpu7");
}

TEST(EnumNames, MatchTheTextKeywords) {
  EXPECT_STREQ(to_string(EventKind::kKernelBegin), "kernel");
  EXPECT_STREQ(to_string(EventKind::kPhase), "phase");
  EXPECT_STREQ(to_string(AccessType::kAtomic), "a");
  EXPECT_STREQ(to_string(AllocKind::kMapped), "mapped");
  EXPECT_STREQ(to_string(Advice::kUnsetAccessedBy), "unset_accessed_by");
  EXPECT_STREQ(to_string(SyncScope::kStream), "stream");
}

TEST(PagesPerPass, ContiguousRangesCountEveryOverlappedPage) {
  EXPECT_EQ(pages_per_pass(access(0, 0, 0)), 0u);
  EXPECT_EQ(pages_per_pass(access(0, 4, 0)), 1u);
  EXPECT_EQ(pages_per_pass(access(4094, 4, 0)), 2u);  // straddles pages 0 and 1
  EXPECT_EQ(pages_per_pass(access(0, 64 << 20, 0)), 16384u);
  EXPECT_EQ(pages_per_pass(access(4096, 8192, 4096)), 2u);  // stride == page: every page
}

TEST(PagesPerPass, LargeStridesTouchOnePagePerStep) {
  // 64 MiB at a 2 MiB stride: 32 addresses, 32 pages.
  EXPECT_EQ(pages_per_pass(access(0, 64 << 20, 2 << 20)), 32u);
  // 10000 bytes at stride 8192: addresses 0 and 8192 -> pages 0 and 2.
  EXPECT_EQ(pages(access(0, 10000, 8192)), (std::vector<std::uint64_t>{0, 2}));
  EXPECT_EQ(pages_per_pass(access(0, 10000, 8192)), 2u);
}

TEST(PagesPerPass, AgreesWithForEachPageOnce) {
  for (Bytes off : {0ull, 1ull, 4095ull, 4096ull, 123457ull})
    for (Bytes len : {1ull, 4096ull, 4097ull, 65536ull, 1000000ull})
      for (Bytes stride : {0ull, 64ull, 4096ull, 4097ull, 65536ull}) {
        const Event e = access(off, len, stride);
        EXPECT_EQ(pages_per_pass(e), pages(e).size()) << off << " " << len << " " << stride;
      }
}

TEST(NameTable, InternsInOrderOfFirstAppearance) {
  NameTable t;
  EXPECT_EQ(t.intern("B"), 0u);
  EXPECT_EQ(t.intern("A"), 1u);
  EXPECT_EQ(t.intern("B"), 0u);
  EXPECT_EQ(t.size(), 2u);
  EXPECT_EQ(t.name(1), "A");
  EXPECT_EQ(t.find("A"), 1u);
  EXPECT_FALSE(t.find("C").has_value());
}

}  // namespace
}  // namespace umsim::trace
