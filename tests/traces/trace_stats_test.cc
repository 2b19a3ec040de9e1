// Trace statistics: hand-computed counts on small traces and an example, the
// page bitmap against a reference set, and deterministic JSON.
#include <gtest/gtest.h>

#include <random>
#include <set>

#include "traces/page_bitmap.h"
#include "traces/trace_reader.h"
#include "traces/trace_stats.h"

namespace umsim::trace {
namespace {

TraceStats stats_of(const std::string& body) {
  auto reader = open_trace_from_memory("umsim-trace 1\n" + body, "t.umt");
  return collect_stats(*reader);
}

TEST(PageBitmap, MatchesAReferenceSet) {
  PageBitmap bits(200000);
  std::set<std::uint64_t> ref;
  std::mt19937_64 rng(1);
  for (int i = 0; i < 2000; ++i) {
    const std::uint64_t first = rng() % 200000;
    const std::uint64_t last = std::min<std::uint64_t>(199999, first + rng() % 300);
    bits.set_range(first, last);
    for (std::uint64_t p = first; p <= last; ++p) ref.insert(p);
  }
  EXPECT_EQ(bits.count(), ref.size());
  for (std::uint64_t p = 0; p < 200000; p += 7) EXPECT_EQ(bits.test(p), ref.count(p) == 1) << p;
  PageBitmap other(200000);
  other.set_range(0, 99);
  std::uint64_t extra = 0;
  for (std::uint64_t p = 0; p < 100; ++p) extra += ref.count(p) == 0;
  EXPECT_EQ(bits.count_union(other), ref.size() + extra);
}

TEST(PageBitmap, RangesAcrossWordsAndBlocks) {
  PageBitmap bits(3 * PageBitmap::kPagesPerBlock);
  bits.set_range(60, 70);
  EXPECT_EQ(bits.count(), 11u);
  bits.set_range(PageBitmap::kPagesPerBlock - 5, PageBitmap::kPagesPerBlock + 4);
  EXPECT_EQ(bits.count(), 21u);
  bits.set_range(0, 3 * PageBitmap::kPagesPerBlock - 1);
  EXPECT_EQ(bits.count(), 3 * PageBitmap::kPagesPerBlock);
}

TEST(TraceStats, HandComputedSmallTrace) {
  const TraceStats s = stats_of(
      "alloc A 1MiB managed\n"     // 256 pages
      "alloc B 64KiB pinned\n"     // 16 pages
      "cpu w A len=64KiB\n"        // pages 0..15 by the CPU
      "kernel k gpu=1 stream=3 compute=10us\n"
      "  r A+32KiB len=64KiB\n"    // pages 8..23 by the GPU
      "  r A len=1MiB stride=256KiB count=2\n"  // pages 0, 64, 128, 192, twice
      "  a B+4095B len=2B\n"       // pages 0 and 1 of B
      "end\n"
      "free A\n"
      "alloc C 2MiB managed\n"
      "prefetch C to=gpu1 stream=4\n"
      "free B\n");
  EXPECT_EQ(s.events, 12u);
  EXPECT_EQ(s.by_kind[static_cast<int>(EventKind::kAlloc)], 3u);
  EXPECT_EQ(s.by_kind[static_cast<int>(EventKind::kGpuAccess)], 3u);
  EXPECT_EQ(s.peak_live_bytes, (2u << 20) + (64u << 10));  // C + B, after A is freed
  EXPECT_EQ(s.peak_live_managed_bytes, 2u << 20);          // C alone
  EXPECT_EQ(s.total_allocated_bytes, (3u << 20) + (64u << 10));
  EXPECT_EQ(s.kernels, 1u);
  EXPECT_EQ(s.compute_ns, 10000u);
  EXPECT_EQ(s.gpus, 2);
  EXPECT_EQ(s.streams, 2u);  // 3 and 4
  EXPECT_EQ(s.gpu_accesses[0], 2u);
  EXPECT_EQ(s.gpu_accesses[2], 1u);
  EXPECT_EQ(s.cpu_accesses[1], 1u);
  ASSERT_EQ(s.allocations.size(), 3u);
  const AllocationSummary& a = s.allocations[0];
  EXPECT_EQ(a.cpu_pages, 16u);
  EXPECT_EQ(a.gpu_pages, 16u + 4u);  // 8..23, plus 0, 64, 128, 192
  EXPECT_EQ(a.pages_touched, 24u + 3u);  // 0..23 and 64, 128, 192
  EXPECT_EQ(a.page_touches, 16u + 16u + 8u);
  EXPECT_TRUE(a.freed);
  EXPECT_EQ(s.allocations[1].gpu_pages, 2u);
  EXPECT_EQ(s.allocations[2].prefetches, 1u);
  EXPECT_EQ(s.allocations[2].prefetch_bytes, 2u << 20);
  EXPECT_FALSE(s.allocations[2].freed);
  EXPECT_EQ(s.pages_touched, 27u + 2u);
  EXPECT_EQ(s.page_touches, 40u + 2u);
  EXPECT_EQ(s.unresolved, 0u);
}

TEST(TraceStats, CountsEventsThatNameNoLiveAllocation) {
  const TraceStats s = stats_of("cpu r X\nalloc A 4KiB managed\ncpu r A+4KiB\nfree A\ncpu r A\n");
  EXPECT_EQ(s.unresolved, 3u);
  EXPECT_EQ(s.pages_touched, 0u);
}

TEST(TraceStats, ExampleJsonIsDeterministicAndComplete) {
  auto first = collect_stats(*open_trace("traces/examples/stream_pipeline.umt"));
  auto second = collect_stats(*open_trace("traces/examples/stream_pipeline.umt"));
  const std::string j1 = stats_to_json(first).dump(2), j2 = stats_to_json(second).dump(2);
  EXPECT_EQ(j1, j2);
  const auto j = stats_to_json(first);
  EXPECT_EQ(j["events_by_kind"]["record"], 4);
  EXPECT_EQ(j["events_by_kind"]["wait"], 4);
  EXPECT_EQ(j["kernels"]["count"], 4);
  EXPECT_EQ(j["kernels"]["streams"], 3);  // 0, 1, 2
  // input: 256 MiB written by the CPU and read by the GPU: 65536 pages.
  EXPECT_EQ(j["allocations"][0]["pages_touched"], 65536);
  // output: GPU writes all 65536 pages; the CPU reads one page per 64 KiB: 4096.
  EXPECT_EQ(j["allocations"][1]["gpu_pages"], 65536);
  EXPECT_EQ(j["allocations"][1]["cpu_pages"], 4096);
  EXPECT_EQ(j["footprint"]["peak_live_bytes"], 512ull << 20);
}

TEST(TraceStats, RefusesAllocationsTooLargeToTrack) {
  EXPECT_THROW(stats_of("alloc A 128TiB managed\n"), TraceError);
}

}  // namespace
}  // namespace umsim::trace
