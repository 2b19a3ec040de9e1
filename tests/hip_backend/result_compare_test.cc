// Side-by-side comparison of a simulator and a hardware result.
#include "hip_backend/result_compare.h"

#include <cmath>

#include <gtest/gtest.h>

namespace umsim::hip {
namespace {

Result make(const std::string& producer, std::uint64_t ktime, std::uint64_t bytes) {
  Result r;
  r.producer = producer;
  ScopeResult k;
  k.name = "k";
  k.gpu = 0;
  k.counters.time_ns = ktime;
  k.counters.bytes_h2d = bytes;
  r.kernels.push_back(k);
  ScopeResult p;
  p.name = "main";
  p.counters = k.counters;
  r.phases.push_back(p);
  r.total = k.counters;
  return r;
}

TEST(ResultCompareTest, RelativeErrorIsSignedAgainstTheMeasurement) {
  EXPECT_DOUBLE_EQ(relative_error(110, 100), 0.10);
  EXPECT_DOUBLE_EQ(relative_error(90, 100), -0.10);
  EXPECT_DOUBLE_EQ(relative_error(0, 0), 0.0);
  EXPECT_TRUE(std::isinf(relative_error(5, 0)));
}

TEST(ResultCompareTest, ComparesEveryScopeAndMetricBothSidesMeasured) {
  Result sim = make("umsim-sim", 1200, 4096);
  Result hw = make("umsim-hip", 1000, 4096);
  hw.unmeasured = {"evictions", "remote_accesses"};
  const Comparison c = compare_results(sim, hw, {"time_ns", "bytes_h2d", "evictions"});
  ASSERT_EQ(c.rows.size(), 6u);  // (kernel, phase, total) x (time, bytes)
  EXPECT_EQ(c.rows[0].scope, "kernel 0 k");
  EXPECT_EQ(c.rows[0].metric, "time_ns");
  EXPECT_DOUBLE_EQ(c.rows[0].rel_error, 0.2);
  EXPECT_EQ(c.rows[1].metric, "bytes_h2d");
  EXPECT_DOUBLE_EQ(c.rows[1].rel_error, 0.0);
  EXPECT_EQ(c.rows[2].scope, "phase main");
  EXPECT_EQ(c.rows[4].scope, "total");
  EXPECT_EQ(c.skipped_metrics, (std::vector<std::string>{"evictions"}));
  const std::string table = format_table(c);
  EXPECT_NE(table.find("+20.0%"), std::string::npos) << table;
  EXPECT_NE(table.find("not compared (unmeasured by one side): evictions"), std::string::npos) << table;
  const auto j = to_json(c);
  EXPECT_EQ(j["rows"][0]["rel_error"], 0.2);
}

// The backend's replays synchronise at phase markers; a simulator result
// replayed without --sync-at-phases is flagged, one replayed with it is not,
// and a hardware result that does not say (older files) is not either.
TEST(ResultCompareTest, NotesASimulatorResultWithOtherPhaseSemantics) {
  Result hw = make("umsim-hip", 100, 0);
  Result sim = make("umsim", 100, 0);
  EXPECT_EQ(phase_semantics_note(sim, hw), "");
  hw.config["phase_boundaries"] = "device synchronized at each phase marker";
  EXPECT_NE(phase_semantics_note(sim, hw).find("--sync-at-phases"), std::string::npos);
  sim.config["options"] = {{"gpu_memory_bytes", 1}};
  EXPECT_NE(phase_semantics_note(sim, hw), "");
  sim.config["options"]["sync_at_phases"] = true;
  EXPECT_EQ(phase_semantics_note(sim, hw), "");
}

TEST(ResultCompareTest, RejectsResultsOfDifferentTraces) {
  Result sim = make("umsim-sim", 1, 1);
  Result hw = make("umsim-hip", 1, 1);
  hw.kernels[0].name = "other";
  try {
    compare_results(sim, hw);
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "kernels 0 is 'k' in the first result but 'other' in the second: not the same trace?");
  }
  hw.kernels.clear();
  EXPECT_THROW(compare_results(sim, hw), std::runtime_error);
  EXPECT_THROW(compare_results(sim, sim, {"nope"}), std::runtime_error);
}

TEST(ResultCompareTest, MeasuredZeroAndPredictedNonZeroIsInfiniteAndJsonNull) {
  const Comparison c = compare_results(make("s", 5, 0), make("h", 0, 0), {"time_ns"});
  EXPECT_TRUE(std::isinf(c.rows[0].rel_error));
  EXPECT_TRUE(to_json(c)["rows"][0]["rel_error"].is_null());
  EXPECT_NE(format_table(c).find("hw 0"), std::string::npos);
}

}  // namespace
}  // namespace umsim::hip
