// A kernel that does not fault beside one that does
// (gpu.resident_kernels_wait_for_faults, sim/resident_beside_faults.cc):
// timings under round_profile() (numbers in sim_test_util.h), where accesses
// cost nothing and a kernel's end is its last stall plus its compute.
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

constexpr Nanos kSpin = 100000;

Nanos end_of(const ScopeResult& k) { return k.start_ns + k.counters.time_ns; }

// R is made resident on gpu0 by a first kernel; C is written by the CPU.
// Then "cold" faults C in on stream 2, writing it (or reading it), and "spin"
// reads R and computes `compute` on stream 1, in the order given.
trace::BuiltTrace spin_and_cold(bool spin_first, int spin_gpu = 0, bool cold_writes = true, Nanos compute = kSpin) {
  TraceBuilder b;
  b.alloc("R", 8_KiB).alloc("C", 8_KiB).cpu_write("C").kernel("warm", spin_gpu, 0, 1).read("R").end().sync();
  auto spin = [&] { b.kernel("spin", spin_gpu, compute, 1).read("R").end(); };
  if (spin_first) spin();
  b.kernel("cold", 0, 0, 2);
  if (cold_writes) b.write("C");
  else b.read("C");
  b.end();
  if (!spin_first) spin();
  return b.sync().build();
}

Result run(const trace::BuiltTrace& t, bool wait, int gpus = 1, Nanos other_stream_gap = 0) {
  HardwareProfile p = round_profile(gpus);
  p.gpu_resident_kernels_wait_for_faults = wait;
  if (other_stream_gap) {  // the gap counts from a launch that found the GPU idle
    p.launch_gap_ns = 2000;
    p.idle_launch_gap_ns = 19000;
    p.other_stream_launch_gap_ns = other_stream_gap;
  }
  return replay(t, options_for(p));
}

const ScopeResult& kernel(const Result& r, const std::string& name) {
  for (const ScopeResult& k : r.kernels)
    if (k.name == name) return k;
  throw std::runtime_error("no kernel " + name);
}

// Both start together; cold's one batch (two pages of one VA block: 10000 +
// 2000 + 2 x 100 + copy 1000 + 8192 / 4 = 15248 ns) ends at cold's end. With
// the key, spin's reads wait for it (cold faults on writes), so its compute
// starts there; without, its reads go through at the start and its compute
// ends kSpin later.
TEST(ResidentBesideFaults, AKernelOfResidentReadsWaitsForTheFaultingKernelBesideIt) {
  const Result held = run(spin_and_cold(false), true);
  const Result free = run(spin_and_cold(false), false);
  const ScopeResult& cold = kernel(held, "cold");
  EXPECT_EQ(cold.counters.time_ns, 15248u);
  EXPECT_EQ(kernel(held, "spin").start_ns, cold.start_ns);
  EXPECT_EQ(end_of(kernel(held, "spin")), end_of(cold) + kSpin);
  EXPECT_EQ(kernel(held, "spin").counters.gpu_faults, 0u);
  // The faulting kernel itself is not slowed.
  EXPECT_EQ(kernel(free, "cold").counters.time_ns, 15248u);
  EXPECT_EQ(kernel(free, "spin").counters.time_ns, kSpin);
}

// Beside a kernel faulting on reads, spin's reads and compute go through, but
// it ends no earlier than cold's last fault: with 1000 ns of compute it ends
// with cold (15248 ns), not 1000 ns after its start. With kSpin of compute it
// ends kSpin after its start, as without the key.
TEST(ResidentBesideFaults, BesideReadFaultsAKernelEndsNoEarlierThanTheLastFault) {
  const Result held = run(spin_and_cold(false, 0, false, 1000), true);
  const Result free = run(spin_and_cold(false, 0, false, 1000), false);
  const ScopeResult& cold = kernel(held, "cold");
  EXPECT_EQ(cold.counters.time_ns, 15248u);
  EXPECT_EQ(kernel(held, "spin").start_ns, cold.start_ns);
  EXPECT_EQ(end_of(kernel(held, "spin")), end_of(cold));
  EXPECT_EQ(kernel(free, "spin").counters.time_ns, 1000u);
  EXPECT_EQ(kernel(run(spin_and_cold(false, 0, false), true), "spin").counters.time_ns, kSpin);
}

// Launched first, with cold starting 43000 ns later (host.other_stream_launch_gap),
// spin reads R before cold faults: it does not wait. (Started together, spin's
// end would close cold's open batch and wait for it, key or not.)
TEST(ResidentBesideFaults, ReadsDoneBeforeTheOtherKernelFaultsDoNotWait) {
  const Result r = run(spin_and_cold(true), true, 1, 43000);
  EXPECT_GT(kernel(r, "cold").start_ns, kernel(r, "spin").start_ns + 20000);
  EXPECT_EQ(kernel(r, "spin").counters.time_ns, kSpin);
  const Result without = run(spin_and_cold(true), false, 1, 43000);
  EXPECT_EQ(kernel(r, "cold").counters.time_ns, kernel(without, "cold").counters.time_ns);
  EXPECT_EQ(kernel(r, "cold").counters.time_ns, 15248u);
}

// Another GPU's faults do not hold a kernel.
TEST(ResidentBesideFaults, FaultsOnAnotherGpuDoNotHoldIt) {
  const Result r = run(spin_and_cold(false, 1), true, 2);
  EXPECT_EQ(kernel(r, "spin").counters.time_ns, kSpin);
}

// Two kernels that fault (one on pages the other faults too, one on pages of
// its own) share the batches whatever the key says: byte-identical results.
TEST(ResidentBesideFaults, KernelsThatFaultAreNotHeld) {
  const auto t = TraceBuilder()
                     .alloc("A", 64_KiB)
                     .alloc("B", 64_KiB)
                     .cpu_write("A")
                     .cpu_write("B")
                     .kernel("a", 0, 1000, 1)
                     .read("A")
                     .end()
                     .kernel("shares_a", 0, 1000, 2)
                     .read("A")
                     .end()
                     .kernel("b", 0, 1000, 3)
                     .read("B")
                     .end()
                     .sync()
                     .build();
  const Result with = run(t, true), without = run(t, false);
  ASSERT_EQ(with.kernels.size(), 3u);
  for (std::size_t k = 0; k < 3; ++k) {
    EXPECT_EQ(with.kernels[k].start_ns, without.kernels[k].start_ns) << k;
    EXPECT_EQ(with.kernels[k].counters.time_ns, without.kernels[k].counters.time_ns) << k;
  }
  EXPECT_GT(kernel(with, "a").counters.gpu_faults + kernel(with, "shares_a").counters.gpu_faults, 0u);
  EXPECT_GT(kernel(with, "b").counters.gpu_faults, 0u);
}

// A kernel reading a range with one page not resident faults on it, so it is
// not held: it shares cold's batch, its compute starting at that batch's end,
// as without the key.
TEST(ResidentBesideFaults, ARangeWithAPageElsewhereFaultsInsteadOfWaiting) {
  const auto t = TraceBuilder()
                     .alloc("R", 8_KiB)
                     .alloc("C", 8_KiB)
                     .cpu_write("C")
                     .kernel("warm", 0, 0, 1)
                     .read("R", 0, 4_KiB)
                     .end()
                     .sync()
                     .kernel("cold", 0, 0, 2)
                     .read("C")
                     .end()
                     .kernel("mixed", 0, kSpin, 1)
                     .read("R")
                     .end()
                     .sync()
                     .build();
  const Result r = run(t, true), without = run(t, false);
  EXPECT_EQ(kernel(r, "mixed").counters.gpu_faults, 1u);
  EXPECT_EQ(end_of(kernel(r, "mixed")), end_of(kernel(r, "cold")) + kSpin);
  EXPECT_EQ(end_of(kernel(without, "mixed")), end_of(kernel(r, "mixed")));
}

}  // namespace
}  // namespace umsim::sim
