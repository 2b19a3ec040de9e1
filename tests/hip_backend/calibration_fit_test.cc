// Calibration fits on synthetic measurements with known parameters, and the
// in-place TOML value update.
#include "hip_backend/calibration_fit.h"

#include <cmath>

#include <gtest/gtest.h>

namespace umsim::hip {
namespace {

TEST(CalibrationFitTest, LinkFitRecoversKnownParameters) {
  LinkFit truth{3000, 50, 0.1, 0};
  std::vector<SizeSample> s;
  for (double b = 4096; b <= 256.0 * 1024 * 1024; b *= 4) s.push_back({b, truth.transfer_ns(b)});
  const LinkFit f = fit_link(s);
  EXPECT_LT(f.rms_rel_error, 0.03);
  EXPECT_NEAR(f.peak_gbps, 50, 3);
  for (const auto& x : s) EXPECT_NEAR(f.transfer_ns(x.bytes) / x.time_ns, 1.0, 0.06) << x.bytes;
}

TEST(CalibrationFitTest, MigrationFitRecoversPerBlockCostAndPeak) {
  MigrationFit truth;
  truth.per_block_ns = 40000;
  truth.peak_gbps = 48;
  truth.atan_b_per_kib = 0.2;
  truth.latency_ns = 4000;
  std::vector<MigrationSample> s;
  for (double b = 1 << 20; b <= 512.0 * (1 << 20); b *= 4) s.push_back({b, truth.predict_ns(b)});
  const MigrationFit f = fit_migration(s, 0.2, 4000);
  EXPECT_NEAR(f.per_block_ns, 40000, 1000);
  EXPECT_NEAR(f.peak_gbps, 48, 1);
  EXPECT_LT(f.rms_rel_error, 0.01);
}

TEST(CalibrationFitTest, PrefetchPipelinesDriverWorkWithCopies) {
  MigrationFit m;
  m.per_block_ns = 10000;
  m.peak_gbps = 1e9;  // copies take no time: the driver work is the bottleneck
  m.atan_b_per_kib = 1;
  EXPECT_NEAR(m.predict_ns(8.0 * (1 << 20)), 40000, 1);
  m.per_block_ns = 0;
  m.peak_gbps = 1;  // copy-bound: 2 MiB at about 1 GB/s per block
  EXPECT_GT(m.predict_ns(4.0 * (1 << 20)), 4.0 * (1 << 20));
}

TEST(CalibrationFitTest, FreshPrefetchPredictionByHand) {
  MigrationFit link;
  link.per_block_ns = 10000;
  link.latency_ns = 4000;
  link.peak_gbps = 1e9;  // copies take only their latency
  link.atan_b_per_kib = 1;
  // One block: call 20 us, its work 10 us, its copy 4 us.
  EXPECT_NEAR(link.predict_ns(64.0 * 1024, 2.0 * 1024 * 1024, 20000), 34000, 1);
  // Sixteen blocks of 64 KiB: the driver's 16 x 10 us outlasts the copies; the last copy ends 4 us after it.
  EXPECT_NEAR(link.predict_ns(16 * 64.0 * 1024, 64.0 * 1024, 20000), 184000, 1);
}

TEST(CalibrationFitTest, FreshPrefetchFitTellsBlockWorkFromCallCost) {
  // The sparse run (16 blocks, a few pages each) sets the block work apart from
  // the call; whole-block runs alone would leave them traded against each other.
  MigrationFit link;
  link.latency_ns = 3955;
  link.peak_gbps = 51.25;
  link.atan_b_per_kib = 0.13594;
  const double call = 21000;
  link.per_block_ns = 7500;
  std::vector<FreshPrefetchSample> s = {{128.0 * 1024, 2.0 * 1024 * 1024, 0},
                                        {512.0 * 1024, 2.0 * 1024 * 1024, 0},
                                        {4.0 * 1024 * 1024, 2.0 * 1024 * 1024, 0},
                                        {32.0 * 1024 * 1024, 2.0 * 1024 * 1024, 0},
                                        {16 * 64.0 * 1024, 64.0 * 1024, 0},
                                        {128.0 * 1024 * 1024, 2.0 * 1024 * 1024, 0}};
  for (auto& x : s) x.time_ns = link.predict_ns(x.bytes, x.run_bytes, call);
  link.per_block_ns = 45000;  // what the fit starts from must not matter
  const FreshPrefetchFit f = fit_fresh_prefetch(s, link);
  EXPECT_NEAR(f.call_ns, 21000, 500);
  EXPECT_NEAR(f.per_block_ns, 7500, 250);
  EXPECT_LT(f.rms_rel_error, 0.01);
  EXPECT_THROW(fit_fresh_prefetch({}, link), std::runtime_error);
}

TEST(CalibrationFitTest, NnlsKeepsCoefficientsNonNegative) {
  // y = 2*a + 0*b exactly, with b anti-correlated: unconstrained LS could go negative.
  const std::vector<std::vector<double>> a = {{1, 1}, {2, 0}, {3, 1}, {4, 0}};
  const std::vector<double> y = {2, 4, 6, 8};
  const auto x = nnls(a, y);
  EXPECT_NEAR(x[0], 2, 1e-6);
  EXPECT_NEAR(x[1], 0, 1e-6);
  const auto neg = nnls({{1}, {1}}, {-1, -2});
  EXPECT_EQ(neg[0], 0);
}

TEST(CalibrationFitTest, FaultFitRecoversCosts) {
  std::vector<FaultSample> s;
  for (double batches : {10.0, 40.0, 100.0})
    for (double blocks : {5.0, 50.0})
      for (double pages : {100.0, 5000.0}) s.push_back({30000 * batches + 20000 * blocks + 200 * pages, batches, blocks, pages});
  const FaultFit f = fit_fault_costs(s);
  EXPECT_NEAR(f.batch_ns, 30000, 10);
  EXPECT_NEAR(f.va_block_ns, 20000, 10);
  EXPECT_NEAR(f.page_ns, 200, 1);
}

TEST(CalibrationFitTest, UpdatesValuesInPlaceKeepingCommentsAndOrder) {
  const std::string toml =
      "name = \"x\"\n# comment line\n[faults]\nbatch_cost = \"30us\"   # fetch, sort\npage_cost = \"200ns\"\n"
      "[link.host_to_gpu]\npeak_gbps = 55.0\n";
  const std::string out =
      update_toml_values(toml, {{"faults.batch_cost", "\"12ns\""}, {"link.host_to_gpu.peak_gbps", "49.75"}});
  EXPECT_EQ(out,
            "name = \"x\"\n# comment line\n[faults]\nbatch_cost = \"12ns\"   # fetch, sort\npage_cost = \"200ns\"\n"
            "[link.host_to_gpu]\npeak_gbps = 49.75\n");
}

TEST(CalibrationFitTest, RefusesToInventKeys) {
  try {
    update_toml_values("[faults]\nbatch_cost = 1\n", {{"faults.nope", "2"}});
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "profile has no key 'faults.nope' (calibration keeps the profile's keys)");
  }
}

TEST(CalibrationFitTest, FitProfileNamesMissingFields) {
  try {
    fit_profile(nlohmann::json::object());
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "calibration data: missing 'launch_overhead_ns'");
  }
}

TEST(CalibrationFitTest, DurationsAreIntegerNanoseconds) {
  EXPECT_EQ(toml_duration(1234.6), "\"1235ns\"");
  EXPECT_EQ(toml_duration(-5), "\"0ns\"");
}

}  // namespace
}  // namespace umsim::hip
