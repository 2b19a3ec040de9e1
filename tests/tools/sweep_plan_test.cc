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

}  // namespace
}  // namespace umsim::cli

namespace umsim::cli {
namespace {

TEST(SweepPlan, SeedsMultiplyOnlyPointsWithASeededPolicy) {
  SweepAxes axes;
  axes.traces = {"t"};
  axes.evict = {"lru", "random", "random:seed=9"};
  axes.gpu_mem = {"100%", "150%"};
  axes.seeds = {1, 2};
  // Only a spec naming "random" without its own seed takes the axis's seed.
  const TakesSeed takes = [](const std::string& kind, const std::string& spec) {
    return kind == "evict" && spec.rfind("random", 0) == 0 && spec.find("seed=") == std::string::npos;
  };
  const auto points = expand_sweep(axes, takes);
  ASSERT_EQ(points.size(), 2u + 4u + 2u);
  EXPECT_EQ(points[0].evict, "lru");
  EXPECT_FALSE(points[0].seed.has_value());
  EXPECT_EQ(points[2].evict, "random:seed=1");
  EXPECT_EQ(points[2].gpu_mem, "100%");
  EXPECT_EQ(points[3].evict, "random:seed=2");
  EXPECT_EQ(points[3].seed, 2);
  EXPECT_EQ(points[4].gpu_mem, "150%");
  EXPECT_EQ(points[6].evict, "random:seed=9");
  for (std::size_t i = 0; i < points.size(); ++i) EXPECT_EQ(points[i].index, i);
  // Without the predicate (or without seeds) nothing is seeded.
  EXPECT_EQ(expand_sweep(axes).size(), 6u);
}

TEST(SweepPlan, SpecWithSeed) {
  EXPECT_EQ(spec_with_seed("random", 3), "random:seed=3");
  EXPECT_EQ(spec_with_seed("random:count=2", -1), "random:count=2,seed=-1");
}

TEST(SweepPlan, ProfilesAreAnAxisAfterVendors) {
  SweepAxes axes;
  axes.traces = {"t"};
  axes.vendors = {"nvidia", "amd-xnack-on"};
  axes.profiles = {"a", "b"};
  const auto points = expand_sweep(axes);
  ASSERT_EQ(points.size(), 4u);
  EXPECT_EQ(points[1].vendor, "nvidia");
  EXPECT_EQ(points[1].profile, "b");
  EXPECT_EQ(points[2].vendor, "amd-xnack-on");
  EXPECT_EQ(points[2].profile, "a");
}

}  // namespace
}  // namespace umsim::cli
