// The NVIDIA driver's tree prefetcher against worked examples of its algorithm
// (uvm_perf_prefetch.c). Defaults: threshold 51, 64 KiB big pages (16 pages),
// 512-page block, tree levels of spans 1, 2, 4, ..., 512. A node [first, end)
// qualifies when count * 100 > (end - first) * 51; the highest qualifying node on
// each faulted page's leaf-to-root path wins. The bitmap counted is
// resident-on-destination | faulted | (big pages grown around faults).
#include <gtest/gtest.h>

#include <random>

#include "tests/policies/policy_test_util.h"

namespace umsim::policies {
namespace {

using namespace testing;

class TreePrefetchTest : public ::testing::Test {
 protected:
  std::unique_ptr<sim::PrefetchPolicy> tree = make<sim::PrefetchPolicy>("tree");
};

// Example 1. One fault at page 0, nothing resident.
// Bitmap: big page [0,16) grown -> 16 pages. Path from 0:
//   span 1..16: all full -> qualify; span 32 [0,32): 16*100 = 1600 > 32*51 = 1632? no;
//   span 64: 1600 > 3264? no; higher spans: no. Winner [0,16).
// Prefetch = [0,16) - {0} = pages 1..15.
TEST_F(TreePrefetchTest, SingleFaultFillsItsBigPage) {
  EXPECT_EQ(run(*tree, Request().fault({0})), range(1, 16));
}

// Example 2. Faults at pages 0 and 16: two big pages grown -> bitmap [0,32), 32 pages.
// Span 32 [0,32): 3200 > 1632 yes; span 64 [0,64): 3200 > 3264? no (just short).
// Winner [0,32) for both faults. Prefetch = [0,32) - {0,16}: 30 pages.
TEST_F(TreePrefetchTest, TwoBigPagesFillTheir32PageNode) {
  EXPECT_EQ(run(*tree, Request().fault({0, 16})), minus(range(0, 32), {0, 16}));
}

// Example 3. Resident on the GPU [0,32), fault at page 32: bitmap [0,48), 48 pages.
// Path from 32: span 16 [32,48): full, yes; span 32 [32,64): 1600 > 1632? no;
// span 64 [0,64): 4800 > 3264 yes; span 128 [0,128): 4800 > 6528? no; 256, 512: no.
// The largest qualifying ancestor wins even though span 32 failed: [0,64).
// Prefetch = [0,64) - resident [0,32) - faulted {32} = pages 33..63.
TEST_F(TreePrefetchTest, LargestQualifyingAncestorWinsOverAFailedLevel) {
  EXPECT_EQ(run(*tree, Request().resident(0, 32).fault({32})), range(33, 64));
}

// Example 4. The root's threshold: 512 * 51 = 26112, so the root needs 262 pages.
// (a) Resident [0,240) + fault 496 (big page [496,512)): 256 pages -> 25600, no.
//     Path from 496: span 16 yes; span 32 [480,512) 1600 > 1632 no; 64, 128, 256: 16 pages, no.
//     Winner [496,512): prefetch 497..511.
// (b) Resident [0,256) + fault 496: 272 pages -> 27200 > 26112: the whole block.
//     Prefetch = [256,512) - {496}: 255 pages.
TEST_F(TreePrefetchTest, RootQualifiesOnlyAboveFiftyOnePercent) {
  EXPECT_EQ(run(*tree, Request().resident(0, 240).fault({496})), range(497, 512));
  EXPECT_EQ(run(*tree, Request().resident(0, 256).fault({496})), minus(range(256, 512), {496}));
}

// Example 5. Thrashing page 5; faults at 0 and 20.
// Big page [0,16) holds thrashing page 5: not grown (only page 0 counted);
// big page [16,32) grown. Bitmap {0} + [16,32) = 17 pages.
// Path from 0: span 1 yes; span 2 [0,2): 100 > 102? no; 4, 8, 16: no;
//   span 32 [0,32): 1700 > 1632 yes; span 64: 1700 > 3264 no. Winner [0,32).
// Path from 20: span 16 [16,32) yes, span 32 yes -> [0,32).
// Prefetch = [0,32) - faulted {0,20} - thrashing {5}: 29 pages.
TEST_F(TreePrefetchTest, ThrashingPageBlocksItsBigPageAndIsNeverPrefetched) {
  EXPECT_EQ(run(*tree, Request().fault({0, 20}).thrashing({5})), minus(range(0, 32), {0, 5, 20}));
}

// Example 6. Preferred location.
// (a) First touch (block resident nowhere) at the preferred location: whole block.
// (b) Preferred location elsewhere: no prefetch at all.
// (c) Destination is preferred but the block is already resident somewhere: normal tree
//     (as example 1: the fault's big page).
TEST_F(TreePrefetchTest, PreferredLocationRules) {
  EXPECT_EQ(run(*tree, Request().fault({100}).preferred_here()), minus(range(0, 512), {100}));
  EXPECT_TRUE(run(*tree, Request().fault({100}).preferred_elsewhere()).empty());
  EXPECT_EQ(run(*tree, Request().resident_elsewhere(300, 301).fault({100}).preferred_here()),
            minus(range(96, 112), {100}));
}

// Example 7. Gate: min_faults=3 needs 3 faulted pages migrated to the same processor
// (the driver's fault_migrations_to_last_proc, this batch included).
TEST_F(TreePrefetchTest, MinFaultsGate) {
  auto gated = make<sim::PrefetchPolicy>("tree:min_faults=3");
  EXPECT_TRUE(run(*gated, Request().fault({0}).migrations(2)).empty());
  EXPECT_EQ(run(*gated, Request().fault({0}).migrations(3)), range(1, 16));
}

// Example 8. Short last block of 40 pages (160 KiB): leaves 40, spans up to 64 (clipped).
// Whole big pages [0,16), [16,32); the tail [32,40) is grown as one region.
// Resident [0,16), fault 35: bitmap [0,16) + [32,40) = 24 pages.
// Path from 35: span 8 [32,40) full yes; span 16 [32,48)->[32,40) yes; span 32 -> [32,40) yes;
// span 64 [0,64) -> [0,40): 2400 > 40*51 = 2040 yes. Winner [0,40).
// Prefetch = [0,40) - resident [0,16) - {35}.
TEST_F(TreePrefetchTest, ShortLastBlockClipsNodesAndGrowsTheTail) {
  EXPECT_EQ(run(*tree, Request().block_pages(40).resident(0, 16).fault({35})), minus(range(16, 40), {35}));
}

// Example 9. CPU destination: `excluded` also lists CPU-mapped pages, which the driver
// removes at the end but which do not stop big-page growth. Fault 0, excluded 3:
//   to the CPU: [0,16) grown, prefetch [0,16) - {0,3};
//   to a GPU, excluded pages count as thrashing/pinned: [0,16) not grown, bitmap {0};
//   span 2 [0,2): 100 > 102 no ... nothing qualifies above the leaf: no prefetch.
TEST_F(TreePrefetchTest, CpuMappedExclusionOnlyFiltersTheResult) {
  EXPECT_EQ(run(*tree, Request().to(sim::Processor::cpu()).fault({0}).excluded({3})), minus(range(0, 16), {0, 3}));
  EXPECT_TRUE(run(*tree, Request().fault({0}).excluded({3})).empty());
}

// Example 10. Threshold 100 never qualifies (count*100 > span*100 is impossible), and
// threshold 1 with a single fault: span 512 holds 16 pages: 1600 > 512 -> whole block.
TEST_F(TreePrefetchTest, ThresholdExtremes) {
  EXPECT_TRUE(run(*make<sim::PrefetchPolicy>("tree:threshold=100"), Request().fault({0})).empty());
  EXPECT_EQ(run(*make<sim::PrefetchPolicy>("tree:threshold=1"), Request().fault({0})), range(1, 512));
}

// Example 11. Non-contiguous faults in one batch. Faults 0, 64, 128, 192 (four big pages):
// bitmap 64 pages. Every node up to span 64 holds at most 16 of them (span 32: 1600 > 1632 no);
// span 128 [0,128): 32 -> 3200 > 6528 no; span 256 [0,256): 64 -> 6400 > 13056 no.
// So each fault only keeps its own big page.
TEST_F(TreePrefetchTest, ScatteredFaultsKeepTheirBigPages) {
  std::vector<std::uint32_t> want;
  for (std::uint32_t b : {0u, 64u, 128u, 192u})
    for (std::uint32_t p = b + 1; p < b + 16; ++p) want.push_back(p);
  EXPECT_EQ(run(*tree, Request().fault({0, 64, 128, 192})), want);
}

// Example 12. Other big page sizes (the driver's 64 KiB is the default):
// 128 KiB = 32 pages: fault 0 grows [0,32); span 32 full; span 64: 3200 > 3264 no -> [0,32).
// 2 MiB: the whole block is grown, the root qualifies -> everything.
// 4 KiB: no growth: only the faulted page, nothing qualifies above the leaf.
TEST_F(TreePrefetchTest, BigPageSizeParameter) {
  EXPECT_EQ(run(*make<sim::PrefetchPolicy>("tree:big_page=128KiB"), Request().fault({0})), range(1, 32));
  EXPECT_EQ(run(*make<sim::PrefetchPolicy>("tree:big_page=2MiB"), Request().fault({0})), range(1, 512));
  EXPECT_TRUE(run(*make<sim::PrefetchPolicy>("tree:big_page=4KiB"), Request().fault({0})).empty());
}

// prefetch_quiet (the engine's short answer for a few faulted pages with
// nothing excluded or thrashing and no preferred location) against prefetch()
// on random requests: its ranges, less the faulted and resident pages, are
// exactly prefetch()'s pages, for every big page size, threshold and block end.
TEST_F(TreePrefetchTest, QuietAnswerMatchesPrefetch) {
  std::mt19937_64 rng(12);
  for (const char* spec : {"tree", "tree:big_page=4KiB", "tree:big_page=32KiB", "tree:big_page=128KiB,threshold=30",
                           "tree:big_page=2MiB", "tree:threshold=1", "tree:threshold=100", "tree:min_faults=3"}) {
    auto policy = make<sim::PrefetchPolicy>(spec);
    for (int trial = 0; trial < 3000; ++trial) {
      const std::uint32_t leaves = rng() % 4 == 0 ? 1 + static_cast<std::uint32_t>(rng() % 512) : 512;
      sim::PrefetchRequest r;
      r.destination = sim::Processor::gpu(0);
      r.pages_in_block = leaves;
      r.fault_migrations_to_destination = 1 + static_cast<std::uint32_t>(rng() % 4);
      // Resident pages: none, a few scattered, or runs.
      const int kind = static_cast<int>(rng() % 3);
      for (std::uint32_t i = 0; i < leaves; ++i)
        if ((kind == 1 && rng() % 16 == 0) || (kind == 2 && (i / 32) % 3 == rng() % 3)) r.resident_on_destination.set(i);
      r.resident_anywhere = r.resident_on_destination;
      std::vector<std::uint32_t> faulted;
      const std::uint32_t n = 1 + static_cast<std::uint32_t>(rng() % (rng() % 2 ? 1 : sim::kMaxQuietFaults));
      for (std::uint32_t k = 0; k < n; ++k) {
        const auto p = static_cast<std::uint32_t>(rng() % leaves);
        if (!r.resident_on_destination.test(p) && !r.faulted.test(p)) r.faulted.set(p);
      }
      if (r.faulted.none()) continue;
      for (std::uint32_t i = 0; i < leaves; ++i)
        if (r.faulted.test(i)) faulted.push_back(i);
      sim::PageMask want;
      policy->prefetch(r, want);
      sim::PageRanges ranges;
      ASSERT_TRUE(policy->prefetch_quiet(
          sim::QuietFaultRequest{0, 0, leaves, r.destination, faulted.data(), static_cast<std::uint32_t>(faulted.size()),
                                 r.resident_on_destination, r.resident_anywhere, r.fault_migrations_to_destination, 0},
          ranges));
      sim::PageMask got;
      for (std::uint32_t k = 0; k < ranges.count; ++k)
        for (std::uint32_t i = ranges.range[k].first; i < ranges.range[k].end && i < leaves; ++i) got.set(i);
      got &= ~(r.faulted | r.resident_on_destination);
      ASSERT_EQ(list(got), list(want)) << spec << " trial " << trial;
    }
  }
}

TEST_F(TreePrefetchTest, BadParametersFailWithTheReason) {
  EXPECT_THROW(make<sim::PrefetchPolicy>("tree:threshold=0"), PolicyError);
  EXPECT_THROW(make<sim::PrefetchPolicy>("tree:threshold=101"), PolicyError);
  EXPECT_THROW(make<sim::PrefetchPolicy>("tree:min_faults=0"), PolicyError);
  EXPECT_THROW(make<sim::PrefetchPolicy>("tree:big_page=48KiB"), PolicyError);
  try {
    make<sim::PrefetchPolicy>("tree:threshold=101");
  } catch (const PolicyError& e) {
    EXPECT_NE(std::string(e.what()).find("threshold must be 1..100"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace umsim::policies
