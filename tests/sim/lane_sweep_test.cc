// The order of a range access's touches under lanes and windows, computed by hand.
#include "sim/lane_sweep.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace umsim::sim {
namespace {

std::vector<std::uint64_t> order(std::uint64_t n, std::uint64_t lanes, std::uint64_t window) {
  const LaneSweep sweep(n, lanes, window);
  std::vector<std::uint64_t> touches;
  std::uint64_t visited = 0;
  for (std::uint64_t s = 0; s < sweep.steps(); ++s)
    visited += sweep.step(s, [&](std::uint64_t i) { touches.push_back(i); });
  EXPECT_EQ(visited, touches.size());
  return touches;
}

using V = std::vector<std::uint64_t>;

TEST(LaneSweep, OneWindowInterleavesSlicesOfTheWholeRange) {
  EXPECT_EQ(order(10, 2, 0), (V{0, 5, 1, 6, 2, 7, 3, 8, 4, 9}));
  // Uneven slices: 3, 3 and 1 touches of slices of 3.
  EXPECT_EQ(order(7, 3, 0), (V{0, 3, 6, 1, 4, 2, 5}));
  // A window as large as the range is the same.
  EXPECT_EQ(order(10, 2, 10), order(10, 2, 0));
}

TEST(LaneSweep, WindowsGoOneAfterAnother) {
  // [0,4) and [4,8) in slices of 2, then the last two touches one a slice.
  EXPECT_EQ(order(10, 2, 4), (V{0, 2, 1, 3, 4, 6, 5, 7, 8, 9}));
  EXPECT_EQ(LaneSweep(10, 2, 4).steps(), 6u);  // 2 + 2, then 8 and 9 one slice: 2 steps
  // The last, short window keeps the slices' width (4 here): 8 and 9 are one slice.
  EXPECT_EQ(order(10, 2, 8), (V{0, 4, 1, 5, 2, 6, 3, 7, 8, 9}));
  EXPECT_EQ(order(13, 2, 8), (V{0, 4, 1, 5, 2, 6, 3, 7, 8, 12, 9, 10, 11}));
  // A window longer than the range: slices of 32, so address order here.
  EXPECT_EQ(order(10, 2, 64), (V{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}));
  // Windows that divide the range: no last window.
  EXPECT_EQ(order(8, 4, 4), (V{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(order(12, 2, 6), (V{0, 3, 1, 4, 2, 5, 6, 9, 7, 10, 8, 11}));
}

TEST(LaneSweep, OneLaneIsAddressOrder) {
  EXPECT_EQ(order(5, 1, 0), (V{0, 1, 2, 3, 4}));
  EXPECT_EQ(order(5, 1, 2), (V{0, 1, 2, 3, 4}));
  EXPECT_EQ(order(1, 32, 8), (V{0}));
}

TEST(LaneSweep, EveryTouchOnceForManyShapes) {
  for (std::uint64_t n : {1u, 2u, 7u, 64u, 100u, 513u})
    for (std::uint64_t lanes : {1u, 2u, 3u, 32u, 1000u})
      for (std::uint64_t window : {0u, 1u, 5u, 64u, 4096u}) {
        V got = order(n, lanes, window);
        std::vector<bool> seen(n, false);
        for (std::uint64_t i : got) {
          ASSERT_LT(i, n);
          EXPECT_FALSE(seen[i]) << n << " " << lanes << " " << window;
          seen[i] = true;
        }
        EXPECT_EQ(got.size(), n) << n << " " << lanes << " " << window;
      }
}

}  // namespace
}  // namespace umsim::sim
