// A kernel's compute beside another stream's faults (gpu.compute_beside_faults,
// sim/compute_beside_faults.cc) and the start of a kernel launched on another
// stream right after one (host.other_stream_launch_gap): hand-computed
// timings under round_profile() (numbers in sim_test_util.h).
#include <gtest/gtest.h>

#include "tests/sim/sim_test_util.h"
#include "traces/trace_builder.h"

namespace umsim::sim {
namespace {

using namespace trace::literals;
using testing::options_for;
using testing::replay;
using testing::round_profile;
using trace::TraceBuilder;

// "spin" computes 100000 ns and touches nothing; "cold", on another stream,
// faults one page in from the host: one batch of 10000 + block 2000 + page
// 100 + copy (1000 + 4096 / 4) = 14124 ns. Both start after the CPU's write
// (110 ns). At rate r spin's compute makes r x 14124 of progress while the
// batch is serviced, so it ends (1 - r) x 14124 later than alone.
trace::BuiltTrace spin_beside_a_fault(trace::StreamId cold_stream) {
  return TraceBuilder()
      .alloc("C", 4_KiB)
      .cpu_write("C")
      .kernel("spin", 0, 100000, 1)
      .end()
      .kernel("cold", 0, 0, cold_stream)
      .read("C")
      .end()
      .sync()
      .build();
}

TEST(ComputeBesideFaults, ComputeRunsAtTheProfilesRateWhileTheGpuServicesAnotherKernelsFaults) {
  for (const auto& [rate, spin_ns] : {std::pair{1.0, 100000u}, {0.5, 107062u}, {0.25, 110593u}, {0.0, 114124u}}) {
    HardwareProfile p = round_profile();
    p.gpu_compute_beside_faults = rate;
    const Result r = replay(spin_beside_a_fault(2), options_for(p));
    ASSERT_EQ(r.kernels.size(), 2u);
    const ScopeResult& spin = r.kernels[0];
    const ScopeResult& cold = r.kernels[1];
    EXPECT_EQ(spin.start_ns, 110u);
    EXPECT_EQ(cold.start_ns, 110u);
    EXPECT_EQ(cold.counters.time_ns, 14124u) << rate;
    EXPECT_EQ(spin.counters.time_ns, spin_ns) << rate;
    EXPECT_EQ(spin.counters.stall_ns, 0u) << rate;  // slower compute is not a stall
    EXPECT_EQ(r.total.time_ns, 110u + spin_ns) << rate;
  }
}

// On one stream the kernels run one after the other: spin's compute follows
// cold's fault and runs at full speed.
TEST(ComputeBesideFaults, AKernelAfterTheFaultsOnItsStreamComputesAtFullSpeed) {
  HardwareProfile p = round_profile();
  p.gpu_compute_beside_faults = 0.5;
  const Result r = replay(spin_beside_a_fault(1), options_for(p));
  ASSERT_EQ(r.kernels.size(), 2u);
  EXPECT_EQ(r.kernels[0].counters.time_ns, 100000u);
  EXPECT_EQ(r.kernels[1].start_ns, 100110u);
  EXPECT_EQ(r.kernels[1].counters.time_ns, 14124u);
}

// A kernel whose accesses are done waits for the replay to reach its end:
// cold starts later than spin (host.other_stream_launch_gap, below), when
// spin has computed 43000 ns already, and still slows the rest. Launch gaps
// 2000 / 19000 (idle GPU) / 43000 (another stream): spin starts at 110 +
// 19000 = 19110, cold at 19110 + 43000 = 62110; its batch ends at 76234;
// spin ran 43000 at full speed, 7062 during the batch and the last 49938
// after it: it ends at 126172.
TEST(ComputeBesideFaults, FaultsOfAKernelThatStartsLaterSlowTheComputeStillRunning) {
  HardwareProfile p = round_profile();
  p.gpu_compute_beside_faults = 0.5;
  p.launch_gap_ns = 2000;
  p.idle_launch_gap_ns = 19000;
  p.other_stream_launch_gap_ns = 43000;
  const Result r = replay(spin_beside_a_fault(2), options_for(p));
  ASSERT_EQ(r.kernels.size(), 2u);
  EXPECT_EQ(r.kernels[0].start_ns, 19110u);
  EXPECT_EQ(r.kernels[1].start_ns, 62110u);
  EXPECT_EQ(r.kernels[1].counters.time_ns, 14124u);
  EXPECT_EQ(r.kernels[0].start_ns + r.kernels[0].counters.time_ns, 126172u);
}

// host.other_stream_launch_gap: k1 finds the GPU idle (19000 after its
// call); k2 and k3, on other streams, are launched right after it and start
// 43000 after k1 (k3 does not overtake k2); k4 on k1's stream follows k1.
// A later launch on another stream, long after k1's start, is not held.
TEST(ComputeBesideFaults, KernelsOfOtherStreamsStartTheGapAfterTheOneThatFoundTheGpuIdle) {
  const auto t = TraceBuilder()
                     .kernel("k1", 0, 100000, 1)
                     .end()
                     .kernel("k2", 0, 100000, 2)
                     .end()
                     .kernel("k3", 0, 100000, 3)
                     .end()
                     .kernel("k4", 0, 100000, 1)
                     .end()
                     .sync()
                     .kernel("k5", 0, 100000, 1)
                     .end()
                     .kernel("k6", 0, 100000, 2)
                     .end()
                     .sync()
                     .build();
  HardwareProfile p = round_profile();
  p.launch_gap_ns = 2000;
  p.idle_launch_gap_ns = 19000;
  p.other_stream_launch_gap_ns = 43000;
  const Result r = replay(t, options_for(p));
  ASSERT_EQ(r.kernels.size(), 6u);
  EXPECT_EQ(r.kernels[0].start_ns, 19000u);
  EXPECT_EQ(r.kernels[1].start_ns, 62000u);
  EXPECT_EQ(r.kernels[2].start_ns, 62000u);
  EXPECT_EQ(r.kernels[3].start_ns, 119000u);
  // The sync returns at 219000 (k4's end: no sync_return_cost here); the GPU
  // ran a kernel just before, so k5 starts 2000 after its call, and k6, whose
  // launch finds the GPU busy too, is not held by k1's start long before.
  EXPECT_EQ(r.kernels[4].start_ns, 221000u);
  EXPECT_EQ(r.kernels[5].start_ns, 221000u);
  for (const ScopeResult& k : r.kernels) EXPECT_EQ(k.counters.time_ns, 100000u) << k.name;
}

}  // namespace
}  // namespace umsim::sim
