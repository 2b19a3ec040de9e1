// Research-baseline and AMD prefetchers on hand-made fault batches.
#include <gtest/gtest.h>

#include "tests/policies/policy_test_util.h"

namespace umsim::policies {
namespace {

using namespace testing;

TEST(NonePrefetch, NeverAddsPages) {
  auto p = make<sim::PrefetchPolicy>("none");
  EXPECT_TRUE(run(*p, Request().fault({0, 1, 2, 300})).empty());
}

// 64 KiB = 16 pages: fault 20 brings [16,32); fault 33 brings [32,48) minus resident 40.
TEST(SequentialPrefetch, FillsTheAlignedRegionAroundEachFault) {
  auto p = make<sim::PrefetchPolicy>("sequential");
  std::vector<std::uint32_t> want = minus(range(16, 48), {20, 33, 40});
  EXPECT_EQ(run(*p, Request().resident(40, 41).fault({20, 33})), want);
}

TEST(SequentialPrefetch, SizeParameterAndClipping) {
  auto p = make<sim::PrefetchPolicy>("sequential:size=16KiB");  // 4 pages
  EXPECT_EQ(run(*p, Request().fault({5})), minus(range(4, 8), {5}));
  // A 10-page last block: the 64 KiB region [0,16) is clipped to [0,10).
  auto q = make<sim::PrefetchPolicy>("sequential");
  EXPECT_EQ(run(*q, Request().block_pages(10).fault({9})), range(0, 9));
  EXPECT_THROW(make<sim::PrefetchPolicy>("sequential:size=3KiB"), PolicyError);
}

TEST(RandomPrefetch, SeededAndRepeatable) {
  auto a = make<sim::PrefetchPolicy>("random:count=8,seed=7");
  auto b = make<sim::PrefetchPolicy>("random:count=8,seed=7");
  auto c = make<sim::PrefetchPolicy>("random:count=8,seed=8");
  const auto ra = run(*a, Request().fault({0}));
  EXPECT_EQ(ra, run(*b, Request().fault({0})));
  EXPECT_NE(ra, run(*c, Request().fault({0})));
  EXPECT_LE(ra.size(), 8u);
  EXPECT_GE(ra.size(), 1u);
  for (auto page : ra) EXPECT_NE(page, 0u);  // never the faulted page
}

// Draws scale with the faulted pages: 3 faults x count 2 = at most 6 pages.
TEST(RandomPrefetch, CountIsPerFaultedPage) {
  auto p = make<sim::PrefetchPolicy>("random:count=2,seed=5");
  const auto r = run(*p, Request().fault({10, 200, 400}));
  EXPECT_LE(r.size(), 6u);
  EXPECT_GE(r.size(), 4u);  // collisions among 6 draws over 509 free pages are rare (not with this seed)
}

TEST(RandomPrefetch, StaysInsideAShortBlockAndSkipsExcluded) {
  auto p = make<sim::PrefetchPolicy>("random:count=200");
  const auto r = run(*p, Request().block_pages(4).fault({0}).excluded({1}));
  EXPECT_EQ(r, (std::vector<std::uint32_t>{2, 3}));  // 200 draws over 4 pages hit all of them
}

// Faults at 10, 13, 16 (deltas 3, 3): confidence 2 reached; degree 4 -> 19, 22, 25, 28.
TEST(StridePrefetch, DetectsARepeatedDelta) {
  auto p = make<sim::PrefetchPolicy>("stride");
  EXPECT_TRUE(run(*p, Request().fault({10})).empty());
  EXPECT_TRUE(run(*p, Request().fault({13})).empty());  // one delta seen
  EXPECT_EQ(run(*p, Request().fault({16})), (std::vector<std::uint32_t>{19, 22, 25, 28}));
  // A different delta restarts the count.
  EXPECT_TRUE(run(*p, Request().fault({100})).empty());
}

TEST(StridePrefetch, StopsAtTheBlockEndAndTracksAllocationsSeparately) {
  auto p = make<sim::PrefetchPolicy>("stride:confidence=1,degree=8");
  run(*p, Request().at(0, 0).fault({500}));
  EXPECT_EQ(run(*p, Request().at(0, 0).fault({505})), (std::vector<std::uint32_t>{510}));
  // Allocation 1 has its own stream: first fault, no delta yet.
  EXPECT_TRUE(run(*p, Request().at(1, 0).fault({7})).empty());
}

// XNACK on: the 2 MiB window of the fault (the whole block here).
TEST(AmdWindowPrefetch, MigratesTheWholeWindow) {
  auto p = make<sim::PrefetchPolicy>("amd-window");
  EXPECT_EQ(run(*p, Request().resident(0, 8).fault({300})), minus(range(8, 512), {300}));
  auto small = make<sim::PrefetchPolicy>("amd-window:window=64KiB");
  EXPECT_EQ(run(*small, Request().fault({300})), minus(range(288, 304), {300}));
}

}  // namespace
}  // namespace umsim::policies
