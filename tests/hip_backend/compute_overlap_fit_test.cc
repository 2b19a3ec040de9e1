// The gpu.fault_compute_overlap fit: hand-computed runs, bad runs, and the
// model's own replay of the calibration trace (the fit inverts the model).
#include "hip_backend/compute_overlap_fit.h"

#include <gtest/gtest.h>

#include "hip_backend/calibration_traces.h"
#include "sim/engine.h"
#include "traces/memory_trace_reader.h"

namespace umsim::hip {
namespace {

// C = 1 ms, resident accesses a = 100 us, stall S = 5 ms, f = 0.5:
// both = 5 + 0.1 + 1 - 0.5 x min(5, 1.1) = 5.55 ms.
TEST(ComputeOverlapFit, HandComputedRuns) {
  EXPECT_DOUBLE_EQ(fit_fault_compute_overlap({{1000000, 1100000, 5100000, 5550000}}), 0.5);
  EXPECT_DOUBLE_EQ(fit_fault_compute_overlap({{1000000, 1100000, 5100000, 6100000}}), 0.0);   // serial
  EXPECT_DOUBLE_EQ(fit_fault_compute_overlap({{1000000, 1100000, 5100000, 5000000}}), 1.0);   // all hidden
  EXPECT_DOUBLE_EQ(fit_fault_compute_overlap({{1000000, 1100000, 5100000, 6500000}}), 0.0);   // slower: clamped
  // Median of three.
  EXPECT_DOUBLE_EQ(fit_fault_compute_overlap({{1000000, 1100000, 5100000, 5550000},
                                              {1000000, 1100000, 5100000, 6100000},
                                              {1000000, 1100000, 5100000, 5000000}}),
                   0.5);
}

TEST(ComputeOverlapFit, ReadsTheCalibrationsRawRuns) {
  const auto raw = nlohmann::json::parse(
      R"([{"compute_ns": 1000000, "compute_only_ns": 1100000, "faults_only_ns": 5100000, "both_ns": 5550000}])");
  EXPECT_DOUBLE_EQ(fit_fault_compute_overlap(compute_overlap_runs(raw)), 0.5);
  try {
    compute_overlap_runs(nlohmann::json::parse(R"([{"compute_ns": 1000000, "both_ns": -3}])"));
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "compute_overlap run 0: 'compute_only_ns' missing or not a non-negative integer");
  }
}

TEST(ComputeOverlapFit, UnusableRunsAreNamed) {
  EXPECT_THROW(fit_fault_compute_overlap({}), std::invalid_argument);
  try {
    fit_fault_compute_overlap({{1000000, 1100000, 5100000, 5550000}, {1000000, 1100000, 90000, 5550000}});
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "compute_overlap run 1: faults_only took no longer than the resident accesses: no stall to overlap");
  }
  EXPECT_THROW(fit_fault_compute_overlap({{0, 1, 2, 3}}), std::invalid_argument);
  EXPECT_THROW(fit_fault_compute_overlap({{1000, 10, 2000, 3000}}), std::invalid_argument);
}

// The simulator replaying the calibration trace with a known overlap gives
// kernel times from which the fit recovers it (to rounding).
TEST(ComputeOverlapFit, RecoversTheModelsOverlapFromItsReplay) {
  for (double f : {0.0, 0.3, 1.0}) {
    sim::EngineOptions o;
    o.profile = sim::load_profile_file("profiles/h200-pcie5.toml");
    o.profile.gpu_fault_compute_overlap = f;
    // compute_only, the first kernel after the prefetch, also pays the idle
    // start (as on the GPU): 25 us of 5 ms, an overlap 0.01 off. Not this fit's subject.
    o.profile.gpu_idle_start_ns = 0;
    // Likewise the first demand-fault kernel's cold fault path (faults.cold_start_cost).
    o.profile.fault_cold_start_ns = 0;
    o.check_invariants = true;
    sim::Engine engine(std::move(o), {});
    auto t = std::make_shared<const trace::BuiltTrace>(compute_overlap_trace(kComputeOverlapBytes, kComputeOverlapNs));
    trace::MemoryTraceReader reader(t);
    const Result r = engine.run(reader);
    ASSERT_EQ(r.kernels.size(), 3u);
    const ComputeOverlapRun run{kComputeOverlapNs, r.kernels[0].counters.time_ns, r.kernels[1].counters.time_ns,
                                r.kernels[2].counters.time_ns};
    // The two demand-fault kernels stall within a few microseconds of each other.
    EXPECT_NEAR(fit_fault_compute_overlap({run}), f, 0.01) << "overlap " << f;
  }
}

}  // namespace
}  // namespace umsim::hip
