#include "tools/sweep_plan.h"

#include <gtest/gtest.h>

namespace umsim::cli {
namespace {

TEST(SweepPlan, ExpandsTraceMajorGpuMemMinor) {
  SweepAxes axes;
  axes.traces = {"a", "b"};
  axes.evict = {"fifo", "lru"};
  axes.gpu_mem = {"1GiB", "150%"};
  const auto points = expand_sweep(axes);
  ASSERT_EQ(points.size(), 8u);
  EXPECT_EQ(points[0].trace, "a");
  EXPECT_EQ(points[0].evict, "fifo");
  EXPECT_EQ(points[0].gpu_mem, "1GiB");
  EXPECT_EQ(points[1].gpu_mem, "150%");
  EXPECT_EQ(points[2].evict, "lru");
  EXPECT_EQ(points[4].trace, "b");
  for (std::size_t i = 0; i < points.size(); ++i) EXPECT_EQ(points[i].index, i);
}

TEST(SweepPlan, EmptyAxisIsAnError) {
  SweepAxes axes;
  EXPECT_THROW(
      {
        try {
          expand_sweep(axes);
        } catch (const std::runtime_error& e) {
          EXPECT_STREQ(e.what(), "sweep: no value for --trace");
          throw;
        }
      },
      std::runtime_error);
}

TEST(SweepPlan, ShardsPartitionThePoints) {
  const Shard s = parse_shard("2/4");
  EXPECT_TRUE(s.contains(2));
  EXPECT_TRUE(s.contains(6));
  EXPECT_FALSE(s.contains(3));
  for (const char* bad : {"4/4", "1", "a/2", "1/0", "-1/2", ""}) EXPECT_THROW(parse_shard(bad), std::runtime_error) << bad;
}

TEST(SweepPlan, OversubscriptionRoundsDownToTwoMiB) {
  constexpr std::uint64_t MiB = 1 << 20;
  EXPECT_EQ(resolve_gpu_memory("", 64 * MiB), 0u);
  EXPECT_EQ(resolve_gpu_memory("100%", 64 * MiB), 64 * MiB);
  EXPECT_EQ(resolve_gpu_memory("125%", 64 * MiB), 50 * MiB);   // 51.2 MiB -> 50 MiB
  EXPECT_EQ(resolve_gpu_memory("150%", 64 * MiB), 42 * MiB);   // 42.67 MiB -> 42 MiB
  EXPECT_EQ(resolve_gpu_memory("1000%", 4 * MiB), 2 * MiB);    // never below one chunk
  EXPECT_EQ(resolve_gpu_memory("3GiB", 64 * MiB), 3ull << 30);
  EXPECT_THROW(resolve_gpu_memory("0%", 64 * MiB), std::runtime_error);
  EXPECT_THROW(resolve_gpu_memory("150%", 0), std::runtime_error);
  EXPECT_THROW(resolve_gpu_memory("1MiB", 64 * MiB), std::runtime_error);
  EXPECT_THROW(resolve_gpu_memory("12GB", 64 * MiB), std::runtime_error);
}

}  // namespace
}  // namespace umsim::cli
