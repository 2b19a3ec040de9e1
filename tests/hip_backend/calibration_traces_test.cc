// The calibration microbenchmarks as traces: shapes of the fault runs, the CPU
// run's phase indices, and the files the tuner replays.
#include "hip_backend/calibration_traces.h"

#include <set>
#include <stdexcept>

#include <gtest/gtest.h>

namespace umsim::hip {
namespace {

using trace::EventKind;
constexpr trace::Bytes MiB = trace::Bytes{1} << 20;

std::size_t count(const trace::BuiltTrace& t, EventKind k) {
  std::size_t n = 0;
  for (const auto& e : t.events) n += e.kind == k;
  return n;
}

TEST(CalibrationTracesTest, RandomTouchesEveryPageOnceInAShuffledOrder) {
  const auto t = fault_trace({"random", 1 * MiB});
  std::set<std::uint64_t> pages;
  bool in_order = true;
  std::uint64_t last = 0;
  for (const auto& e : t.events) {
    if (e.kind != EventKind::kGpuAccess) continue;
    EXPECT_EQ(e.length, trace::kPageSize);
    in_order = in_order && (pages.empty() || e.offset > last);
    last = e.offset;
    pages.insert(e.offset / trace::kPageSize);
  }
  EXPECT_EQ(pages.size(), 256u);
  EXPECT_EQ(*pages.rbegin(), 255u);
  EXPECT_FALSE(in_order);
  EXPECT_EQ(count(t, EventKind::kCpuAccess), 1u);  // the CPU writes the buffer first
}

TEST(CalibrationTracesTest, PatternsAndUntouchedMemory) {
  const auto stride = fault_trace({"stride64k", 4 * MiB});
  ASSERT_EQ(count(stride, EventKind::kGpuAccess), 1u);
  for (const auto& e : stride.events)
    if (e.kind == EventKind::kGpuAccess) EXPECT_EQ(e.stride, 64u << 10);
  const auto fresh = fault_trace({"gpu_fresh", 4 * MiB});
  EXPECT_EQ(count(fresh, EventKind::kCpuAccess), 0u);  // nobody touched it before the kernel
  EXPECT_THROW(fault_trace({"diagonal", 4 * MiB}), std::invalid_argument);
}

TEST(CalibrationTracesTest, CpuTestIndicesNameTheirPhases) {
  const auto t = cpu_trace(1 * MiB);
  std::vector<std::string> phases = {"main"};  // phase 0 is the trace's implicit one
  for (const auto& e : t.events)
    if (e.kind == EventKind::kPhase) phases.push_back(t.names.name(e.name));
  for (const auto& [index, test] : cpu_trace_tests()) {
    ASSERT_LT(index, phases.size());
    EXPECT_EQ(phases[index], test);
  }
}

TEST(CalibrationTracesTest, CopyTestsNameTheirPhases) {
  const auto t = copy_trace();
  std::vector<std::string> phases = {"main"};
  std::size_t copies = 0, memsets = 0;
  for (const auto& e : t.events) {
    if (e.kind == EventKind::kPhase) phases.push_back(t.names.name(e.name));
    copies += e.kind == EventKind::kCopy;
    memsets += e.kind == EventKind::kMemset;
  }
  const auto tests = copy_trace_tests();
  // 2 host kinds x 2 directions x 4 sizes, 4 device-to-device, 1 into managed memory; 4 + 1 memsets.
  EXPECT_EQ(copies, 21u);
  EXPECT_EQ(memsets, 5u);
  ASSERT_EQ(tests.size(), 26u);
  for (const CopyTest& c : tests) {
    ASSERT_LT(c.phase, phases.size());
    EXPECT_EQ(phases[c.phase], c.name);
  }
  EXPECT_EQ(tests.front().name, "copy_pinned_h2d_65536");
  EXPECT_EQ(tests.front().bytes, 64u << 10);
  EXPECT_EQ(tests.back().name, "memset_managed_16777216");
}

TEST(CalibrationTracesTest, TunerTracesCoverEveryFaultRun) {
  std::set<std::string> files;
  for (const auto& [name, t] : tuner_traces()) files.insert(name);
  for (const FaultRun& r : fault_runs(false))
    EXPECT_TRUE(files.count("faults_" + r.pattern + "_" + std::to_string(r.bytes) + ".umt")) << r.pattern;
  for (const FaultRun& r : fault_runs(true))  // quick runs are a subset
    EXPECT_TRUE(files.count("faults_" + r.pattern + "_" + std::to_string(r.bytes) + ".umt")) << r.pattern;
  EXPECT_TRUE(files.count("cpu_268435456.umt"));
  EXPECT_TRUE(files.count("read_mostly_268435456.umt"));
  EXPECT_TRUE(files.count("copies.umt"));
  EXPECT_TRUE(files.count("revoke_16777216.umt"));
}

TEST(CalibrationTracesTest, RevocationTestsNameTheirPhases) {
  const auto t = read_mostly_rmw_trace(kRevokeRunBytes);
  std::vector<std::string> phases = {"main"};
  std::size_t rmw = 0;
  for (const auto& e : t.events) {
    if (e.kind == EventKind::kPhase) phases.push_back(t.names.name(e.name));
    rmw += e.kind == EventKind::kGpuAccess && e.access() == trace::AccessType::kReadModifyWrite;
  }
  EXPECT_EQ(rmw, 1u);
  for (const auto& [phase, name] : read_mostly_rmw_tests()) {
    ASSERT_LT(phase, phases.size());
    EXPECT_EQ(phases[phase], name);
  }
}

}  // namespace
}  // namespace umsim::hip
