// Hand-computed timings on tiny traces under round_profile() (see
// sim_test_util.h for its numbers).
#include <gtest/gtest.h>

#include "tests/sim/sim_test_util.h"
#include "traces/trace_builder.h"

namespace umsim::sim {
namespace {

using namespace trace::literals;
using testing::options_for;
using testing::replay;
using testing::round_profile;
using trace::Advice;
using trace::Processor;
using trace::TraceBuilder;

// CPU first touch 100+10 = 110. Kernel starts at 110; batch 10000, block
// 2000 + 1 page 100 -> 12210; H2D copy 1000 + 4096/4 = 2024 -> 14234; compute
// 1000 -> ends 15234.
TEST(Timing, OnePageOneBatch) {
  const auto t = TraceBuilder().alloc("A", 4_KiB).cpu_write("A").kernel("k", 0, 1000).read("A").end().build();
  const Result r = replay(t, options_for(round_profile()));
  ASSERT_EQ(r.kernels.size(), 1u);
  const Counters& k = r.kernels[0].counters;
  EXPECT_EQ(r.kernels[0].start_ns, 110u);
  EXPECT_EQ(k.stall_ns, 14124u);
  EXPECT_EQ(k.time_ns, 15124u);
  EXPECT_EQ(k.gpu_faults, 1u);
  EXPECT_EQ(k.fault_batches, 1u);
  EXPECT_EQ(k.bytes_h2d, 4096u);
  EXPECT_EQ(r.total.time_ns, 15234u);
  EXPECT_EQ(r.total.accesses, 2u);
}

// A GPU first touch populates in place: no copy.
TEST(Timing, GpuFirstTouchCostsNoTransfer) {
  const auto t = TraceBuilder().alloc("A", 4_KiB).kernel("k", 0, 0).write("A").end().build();
  const Result r = replay(t, options_for(round_profile()));
  EXPECT_EQ(r.total.time_ns, 12100u);
  EXPECT_EQ(r.total.bytes_h2d, 0u);
}

// Two passes over 100 pages before the batch fills: 200 entries, 100 unique
// pages, one batch (duplicates coalesced). One VA block: 10000 + 2000 +
// 100*100, plus one 400 KiB copy: 1000 + 409600/4.
TEST(Timing, DuplicateFaultsCoalesceInOneBatch) {
  const auto t = TraceBuilder()
                     .alloc("A", 100 * 4_KiB)
                     .cpu_write("A")
                     .kernel("k", 0, 0)
                     .read("A", 0, TraceBuilder::kWhole, 0, /*count=*/2)
                     .end()
                     .build();
  const Result r = replay(t, options_for(round_profile()));
  const Counters& k = r.kernels[0].counters;
  EXPECT_EQ(k.gpu_faults, 200u);
  EXPECT_EQ(k.gpu_fault_pages, 100u);
  EXPECT_EQ(k.fault_batches, 1u);
  EXPECT_EQ(k.bytes_h2d, 409600u);
  EXPECT_EQ(k.time_ns, 10000u + 2000 + 100 * 100 + 1000 + 102400);
}

// faults.wakeup_cost: a kernel's first batch wakes the idle servicer, its later
// batches find it at work. At concurrency 1, k1's two pages are two batches:
// 5000 + 2 x (10000 + 2000 + 100 + copy 2024) = 33248. k2 starts after k1, on an
// idle servicer again: 5000 + 14124 = 19124.
TEST(Timing, WakeupIsPaidByAKernelsFirstBatchOnAnIdleServicer) {
  auto p = round_profile();
  p.fault_concurrency = 1;
  p.fault_wakeup_ns = 5000;
  const auto t = TraceBuilder()
                     .alloc("A", 8_KiB)
                     .alloc("B", 4_KiB)
                     .cpu_write("A")
                     .cpu_write("B")
                     .kernel("k1", 0, 0)
                     .read("A")
                     .end()
                     .kernel("k2", 0, 0)
                     .read("B")
                     .end()
                     .build();
  const Result r = replay(t, options_for(p));
  ASSERT_EQ(r.kernels.size(), 2u);
  EXPECT_EQ(r.kernels[0].counters.fault_batches, 2u);
  EXPECT_EQ(r.kernels[0].counters.time_ns, 33248u);
  EXPECT_EQ(r.kernels[1].counters.time_ns, 19124u);
  p.fault_wakeup_ns = 0;
  const Result without = replay(t, options_for(p));
  EXPECT_EQ(without.kernels[0].counters.time_ns, 28248u);
  EXPECT_EQ(without.kernels[1].counters.time_ns, 14124u);
}

// The cold-start tests' trace: k1 faults two pages after the CPU's writes,
// k2 one right after, k3 computes 30 us on a resident page, k4 faults one.
trace::BuiltTrace cold_start_trace() {
  return TraceBuilder()
      .alloc("A", 16_KiB)
      .cpu_write("A")
      .kernel("k1", 0, 0).read("A", 0, 8_KiB).end()
      .kernel("k2", 0, 0).read("A", 8_KiB, 4_KiB).end()
      .kernel("k3", 0, 30000).read("A", 0, 4_KiB).end()
      .kernel("k4", 0, 0).read("A", 12_KiB, 4_KiB).end()
      .build();
}

// A profile for the cold-start tests: cold_start_cost 3000, cold_start_time 20 us.
HardwareProfile cold_start_profile(std::uint32_t concurrency) {
  auto p = round_profile();
  p.fault_concurrency = concurrency;
  p.fault_cold_start_ns = 3000;
  p.fault_cold_time_ns = 20000;
  return p;
}

// faults.cold_start_cost 3000, cold_start_time 20000 ns. k1 faults two pages:
// the GPU's first batch ever is cold. One batch at concurrency 256: 3000 +
// 10000 + 2000 + 2 * 100 + copy 1000 + 8192/4 = 18248; two at concurrency 1
// (the one-page paths), only the first cold: 3000 + 2 * 14124. k2's page right
// after: idle 0, warm, 14124. k3 computes 30 us on a resident page; k4's fault
// then comes 30 us after the last batch: 3000 * (1 - e^-1.5) = 2330.6 -> 2331
// more, 16455. With --warm-fault-service the path counts as used at time 0:
// k1 (at 440, after the CPU's 4 * 110) pays 3000 * (1 - e^-0.022) = 65.3 -> 65.
TEST(Timing, ColdStartIsPaidByTheFirstBatchAfterAnIdleStretch) {
  const auto t = cold_start_trace();
  for (const std::uint32_t concurrency : {256u, 1u}) {
    SCOPED_TRACE(concurrency);
    auto p = cold_start_profile(concurrency);
    const Nanos k1_warm = concurrency == 1 ? 2 * 14124 : 15248;
    const Result r = replay(t, options_for(p));
    ASSERT_EQ(r.kernels.size(), 4u);
    EXPECT_EQ(r.kernels[0].counters.time_ns, 3000 + k1_warm);
    EXPECT_EQ(r.kernels[1].counters.time_ns, 14124u);
    EXPECT_EQ(r.kernels[2].counters.gpu_faults, 0u);
    EXPECT_EQ(r.kernels[2].counters.time_ns, 30000u);
    EXPECT_EQ(r.kernels[3].counters.time_ns, 16455u);
    auto warm = options_for(p);
    warm.warm_fault_service = true;
    const Result w = replay(t, warm);
    EXPECT_EQ(w.kernels[0].counters.time_ns, 65 + k1_warm);
    EXPECT_EQ(w.kernels[3].counters.time_ns, 16455u);
    p.fault_cold_start_ns = 0;
    EXPECT_EQ(replay(t, options_for(p)).kernels[3].counters.time_ns, 14124u);
  }
}

// faults.cold_start_carry 0.5 on the trace above: each batch leaves half its
// coldness to the next, which pays 3000 * (1 - (1 - left) * e^(-idle / 20 us)).
// Concurrency 256: k1's one batch is cold (3000 + 15248 = 18248, left 0.5);
// k2's, right after, pays 1500 (15624, left 0.25); k4's, 30 us after the last
// batch, 3000 * (1 - 0.75 * e^-1.5) = 2497.9 -> 2498 (16622). Concurrency 1:
// k1's two batches pay 3000 and 1500 (3000 + 1500 + 2 * 14124 = 32748); k2 750
// (14874, left 0.125); k4 3000 * (1 - 0.875 * e^-1.5) = 2414.3 -> 2414 (16538).
TEST(Timing, ColdStartCarryWarmsThePathOverSeveralBatches) {
  const auto t = cold_start_trace();
  for (const std::uint32_t concurrency : {256u, 1u}) {
    SCOPED_TRACE(concurrency);
    auto p = cold_start_profile(concurrency);
    p.fault_cold_carry = 0.5;
    const Result r = replay(t, options_for(p));
    ASSERT_EQ(r.kernels.size(), 4u);
    EXPECT_EQ(r.kernels[0].counters.time_ns, concurrency == 1 ? 32748u : 18248u);
    EXPECT_EQ(r.kernels[1].counters.time_ns, concurrency == 1 ? 14874u : 15624u);
    EXPECT_EQ(r.kernels[2].counters.time_ns, 30000u);
    EXPECT_EQ(r.kernels[3].counters.time_ns, concurrency == 1 ? 16538u : 16622u);
  }
}

// A kernel that finds its GPU idle (nothing running, nothing ended within
// idle_start_after = 150 us) pays idle_start_cost = 20 us once. Compute-only
// kernels, launch 0: k1 0-120 (gpu0 never ran), k2 120-220 (back to back);
// k3 on gpu1 220-440 (never ran); k4 gpu0 440: idle 220 -> 30 us; k5 gpu1
// 470: idle 30 -> 100 us; k6 gpu0 570: idle 100 -> 10 us; k7 gpu1 580-780;
// k8 gpu0 780: idle 200 -> 120 us; k9 on another stream of gpu0 at 780,
// beside k8: not idle -> 100 us.
TEST(Timing, IdleStartIsPaidByAKernelThatFindsItsGpuIdle) {
  auto p = round_profile(2);
  p.gpu_idle_start_ns = 20000;
  p.gpu_idle_after_ns = 150000;
  const auto t = TraceBuilder()
                     .kernel("k1", 0, 100000).end()
                     .kernel("k2", 0, 100000).end()
                     .sync()
                     .kernel("k3", 1, 200000, 1).end()
                     .sync()
                     .kernel("k4", 0, 10000).end()
                     .sync()
                     .kernel("k5", 1, 100000, 1).end()
                     .sync()
                     .kernel("k6", 0, 10000).end()
                     .sync()
                     .kernel("k7", 1, 200000, 1).end()
                     .sync()
                     .kernel("k8", 0, 100000).end()
                     .kernel("k9", 0, 100000, 2).end()
                     .build();
  const Result r = replay(t, options_for(p));
  ASSERT_EQ(r.kernels.size(), 9u);
  const std::vector<Nanos> start{0, 120000, 220000, 440000, 470000, 570000, 580000, 780000, 780000};
  const std::vector<Nanos> time{120000, 100000, 220000, 30000, 100000, 10000, 200000, 120000, 100000};
  for (std::size_t k = 0; k < 9; ++k) {
    EXPECT_EQ(r.kernels[k].start_ns, start[k]) << r.kernels[k].name;
    EXPECT_EQ(r.kernels[k].counters.time_ns, time[k]) << r.kernels[k].name;
  }
  p.gpu_idle_start_ns = 0;
  EXPECT_EQ(replay(t, options_for(p)).kernels[0].counters.time_ns, 100000u);
}

// Fault concurrency caps a batch: 1000 faults at concurrency 64 -> 16 batches.
TEST(Timing, ConcurrencyBoundsBatchSize) {
  auto p = round_profile();
  p.fault_concurrency = 64;
  const auto t = TraceBuilder().alloc("A", 1000 * 4_KiB).kernel("k", 0, 0).read("A").end().build();
  const Result r = replay(t, options_for(p));
  EXPECT_EQ(r.total.gpu_faults, 1000u);
  EXPECT_EQ(r.total.fault_batches, 16u);
}

// A batch spanning two VA blocks pays the per-block cost twice: 2 pages at
// 2 MiB - 4 KiB and 2 MiB: 10000 + 2*(2000 + 100) + 2 copies of 2024.
TEST(Timing, BatchServicesOneVaBlockAtATime) {
  const auto t = TraceBuilder()
                     .alloc("A", 4_MiB)
                     .cpu_write("A", 2_MiB - 4_KiB, 8_KiB)
                     .kernel("k", 0, 0)
                     .read("A", 2_MiB - 4_KiB, 8_KiB)
                     .end()
                     .build();
  const Result r = replay(t, options_for(round_profile()));
  EXPECT_EQ(r.kernels[0].counters.time_ns, 10000u + 2 * 2100 + 2 * 2024);
}

// A CPU-written range of pages 510..513 (two in each VA block), read by one kernel.
trace::BuiltTrace read_across_two_blocks() {
  return TraceBuilder()
      .alloc("A", 4_MiB)
      .cpu_write("A", 2_MiB - 8_KiB, 16_KiB)
      .kernel("k", 0, 0)
      .read("A", 2_MiB - 8_KiB, 16_KiB)
      .end()
      .build();
}

// gpu.access_lanes: a range read of pages 510..513 (two in each VA block) at
// fault concurrency 2. In address order each batch holds one block's two
// pages: 2 x (10000 + 2000 + 2*100 + one 2-page copy 1000 + 2048) = 30496.
// With 2 lanes the warps sweep both halves at once (510, 512, then 511, 513):
// each batch spans both blocks, 2 x (10000 + 2*(2000 + 100) + 2 copies of 2024)
// = 36496. Same pages, same bytes.
TEST(Timing, AccessLanesInterleaveARangeAcrossBlocks) {
  const auto trace = read_across_two_blocks;
  auto p = round_profile();
  p.fault_concurrency = 2;
  const Result in_order = replay(trace(), options_for(p));
  EXPECT_EQ(in_order.kernels[0].counters.time_ns, 30496u);
  p.gpu_access_lanes = 2;
  const Result lanes = replay(trace(), options_for(p));
  EXPECT_EQ(lanes.kernels[0].counters.time_ns, 36496u);
  EXPECT_EQ(lanes.total.fault_batches, 2u);
  EXPECT_EQ(lanes.total.bytes_h2d, in_order.total.bytes_h2d);
  EXPECT_EQ(lanes.total.gpu_faults, 4u);
  // More lanes than touches: one lane per touch, the same as 4 lanes.
  p.gpu_access_lanes = 1000;
  EXPECT_EQ(replay(trace(), options_for(p)).kernels[0].counters.time_ns,
            [&] {
              auto q = p;
              q.gpu_access_lanes = 4;
              return replay(trace(), options_for(q)).kernels[0].counters.time_ns;
            }());
}

// gpu.access_window: the same read with 2 lanes in windows of 2 touches. The
// warps hold pages 510 and 511 first (one window, both in the first block),
// then 512 and 513: the lanes interleave within a window only, so the batches
// are address order's, 30496; a window of the whole range is plain lanes.
TEST(Timing, AccessWindowKeepsBatchesToTheWarpsInFlight) {
  const auto trace = read_across_two_blocks;
  auto p = round_profile();
  p.fault_concurrency = 2;
  p.gpu_access_lanes = 2;
  p.gpu_access_window = 2;
  const Result windows = replay(trace(), options_for(p));
  EXPECT_EQ(windows.kernels[0].counters.time_ns, 30496u);
  EXPECT_EQ(windows.total.fault_batches, 2u);
  EXPECT_EQ(windows.total.gpu_faults, 4u);
  p.gpu_access_window = 4;
  EXPECT_EQ(replay(trace(), options_for(p)).kernels[0].counters.time_ns, 36496u);
}

// GPU-to-GPU migration over the peer link: kernel 1 on gpu0 populates the
// page (12100), kernel 2 on gpu1 starts then and faults: 10000 + 2100, then a
// peer copy 1000 + 4096/8.
TEST(Timing, PeerMigrationBetweenGpus) {
  const auto t = TraceBuilder()
                     .alloc("A", 4_KiB)
                     .kernel("producer", 0, 0)
                     .write("A")
                     .end()
                     .kernel("consumer", 1, 0)
                     .read("A")
                     .end()
                     .build();
  const Result r = replay(t, options_for(round_profile(2)));
  ASSERT_EQ(r.kernels.size(), 2u);
  EXPECT_EQ(r.kernels[1].gpu, 1);
  EXPECT_EQ(r.kernels[1].start_ns, 12100u);
  EXPECT_EQ(r.kernels[1].counters.time_ns, 12100u + 1512);
  EXPECT_EQ(r.total.bytes_peer, 4096u);
  EXPECT_EQ(r.total.bytes_h2d + r.total.bytes_d2h, 0u);
}

// AMD stages peer migrations through host memory: D2H 2024 then H2D 2024.
// Read duplication copies from the closest copy, as the driver does: gpu1's
// read of a ReadMostly page that the CPU and gpu0 hold comes from gpu0 over the
// peer link (1000 + 512 ns) when peers reach each other, else from the CPU over
// its host link (1000 + 1024 ns).
TEST(Timing, DuplicationCopiesFromThePeerGpu) {
  const auto t = TraceBuilder()
                     .alloc("A", 4_KiB)
                     .cpu_write("A")
                     .advise("A", trace::Advice::kSetReadMostly)
                     .kernel("read0", 0, 0)
                     .read("A")
                     .end()
                     .sync()
                     .kernel("read1", 1, 0)
                     .read("A")
                     .end()
                     .build();
  HardwareProfile p = round_profile(2);
  p.peer_access = true;
  const Result peer = replay(t, options_for(p));
  EXPECT_EQ(peer.total.bytes_h2d, 4096u);  // gpu0's copy, from the CPU
  EXPECT_EQ(peer.total.bytes_peer, 4096u);  // gpu1's, from gpu0
  p.peer_access = false;
  const Result host = replay(t, options_for(p));
  EXPECT_EQ(host.total.bytes_h2d, 8192u);
  EXPECT_EQ(host.total.bytes_peer, 0u);
  ASSERT_EQ(peer.kernels.size(), 2u);
  EXPECT_EQ(host.kernels[1].counters.time_ns - peer.kernels[1].counters.time_ns, 2024u - 1512u);
  // Where GPU-to-GPU copies are staged through the host (AMD), the CPU's copy
  // is the closer one: nothing crosses between the GPUs.
  p.peer_access = true;
  EngineOptions amd = options_for(p);
  amd.vendor = VendorSemantics::amd_xnack_on();
  amd.vendor.read_mostly_duplicates = true;  // to duplicate at all (AMD itself does not)
  const Result staged = replay(t, amd);
  EXPECT_EQ(staged.total.bytes_peer, 0u);
  EXPECT_EQ(staged.total.bytes_d2h, 0u);
  EXPECT_EQ(staged.total.bytes_h2d, 8192u);  // both GPUs copy from the CPU
}

// A prefetch whose pages all come from a peer GPU pays the peer per-block cost
// (200 ns here) instead of the host one (500 ns): gpu0 writes one page, a
// prefetch moves it to gpu1 (200 + peer copy 1000 + 512).
TEST(Timing, PeerPrefetchHasItsOwnBlockCost) {
  const auto t = TraceBuilder()
                     .alloc("A", 4_KiB)
                     .kernel("producer", 0, 0)
                     .write("A")
                     .end()
                     .sync()
                     .prefetch("A", Processor::gpu(1))
                     .sync()
                     .build();
  HardwareProfile p = round_profile(2);
  const Nanos host_cost = replay(t, options_for(p)).total.time_ns;
  p.prefetch_peer_va_block_ns = 200;
  const Result r = replay(t, options_for(p));
  EXPECT_EQ(r.total.bytes_peer, 4096u);
  EXPECT_EQ(r.total.time_ns, 12100u + 200 + 1000 + 512);
  EXPECT_EQ(host_cost - r.total.time_ns, 500u - 200u);
}

TEST(Timing, AmdPeerMigrationGoesThroughTheHost) {
  const auto t = TraceBuilder()
                     .alloc("A", 4_KiB)
                     .kernel("producer", 0, 0)
                     .write("A")
                     .end()
                     .kernel("consumer", 1, 0)
                     .read("A")
                     .end()
                     .build();
  auto o = options_for(round_profile(2));
  o.vendor = VendorSemantics::amd_xnack_on();
  o.vendor.gpu_fault_window_pages = 1;  // one page: keep the arithmetic small
  const Result r = replay(t, o);
  EXPECT_EQ(r.kernels[1].counters.time_ns, 12100u + 2024 + 2024);
  EXPECT_EQ(r.total.bytes_peer, 0u);
  EXPECT_EQ(r.total.bytes_d2h, 4096u);
  EXPECT_EQ(r.total.bytes_h2d, 4096u);
}

// CPU fault: after a sync at 12100 the CPU reads the GPU-written page:
// fault 5000, D2H copy 2024, access 10.
TEST(Timing, CpuFaultMigratesThePageBack) {
  const auto t = TraceBuilder().alloc("A", 4_KiB).kernel("k", 0, 0).write("A").end().sync().cpu_read("A").build();
  const Result r = replay(t, options_for(round_profile()));
  EXPECT_EQ(r.total.cpu_faults, 1u);
  EXPECT_EQ(r.total.bytes_d2h, 4096u);
  EXPECT_EQ(r.total.time_ns, 12100u + 5000 + 2024 + 10);
}

// With cpu.page_read_cost and read_fault_cost set, CPU reads pay them and
// writes keep page_access_cost and fault_cost: first touch 100 + 10 (write),
// two reads 2 * 3, one write 10; a faulting read pays the read fault (1200),
// the copy and the read; a faulting write the write fault (5000).
TEST(Timing, CpuReadsHaveTheirOwnCosts) {
  HardwareProfile p = round_profile();
  p.cpu_read_ns = 3;
  p.cpu_read_fault_ns = 1200;
  const auto t = TraceBuilder().alloc("A", 4_KiB).cpu_write("A").cpu_read("A").cpu_read("A").cpu_write("A").build();
  EXPECT_EQ(replay(t, options_for(p)).total.time_ns, 110u + 3 + 3 + 10);
  const auto f = TraceBuilder().alloc("A", 4_KiB).kernel("k", 0, 0).write("A").end().sync().cpu_read("A").build();
  EXPECT_EQ(replay(f, options_for(p)).total.time_ns, 12100u + 1200 + 2024 + 3);
  const auto w = TraceBuilder().alloc("A", 4_KiB).kernel("k", 0, 0).write("A").end().sync().cpu_write("A").build();
  EXPECT_EQ(replay(w, options_for(p)).total.time_ns, 12100u + 5000 + 2024 + 10);
}

// A prefetch on stream 1 overlaps a kernel on stream 2 that does not touch its
// data; a kernel on stream 0 that does touch it waits for the copy.
// CPU writes 512 pages: 512 * 110 = 56320. Prefetch: 56320 + 500, copy
// 1000 + 2 MiB / 4 = 525288 -> ready at 582108.
TEST(Timing, PrefetchOverlapsKernelsOnOtherStreams) {
  const auto t = TraceBuilder()
                     .alloc("A", 2_MiB)
                     .alloc("B", 4_KiB, trace::AllocKind::kDevice, Processor::gpu(0))
                     .cpu_write("A")
                     .prefetch("A", Processor::gpu(0), /*stream=*/1)
                     .kernel("independent", 0, 5000, /*stream=*/2)
                     .read("B")
                     .end()
                     .kernel("dependent", 0, 1000, /*stream=*/0)
                     .read("A")
                     .end()
                     .build();
  const Result r = replay(t, options_for(round_profile()));
  ASSERT_EQ(r.kernels.size(), 2u);
  EXPECT_EQ(r.kernels[0].start_ns, 56320u);
  EXPECT_EQ(r.kernels[0].counters.time_ns, 5000u);
  EXPECT_EQ(r.kernels[1].start_ns, 56320u);
  EXPECT_EQ(r.kernels[1].counters.stall_ns, 582108u - 56320);
  EXPECT_EQ(r.kernels[1].counters.gpu_faults, 0u);
  EXPECT_EQ(r.total.time_ns, 583108u);
}

// Recording an event after the prefetch and waiting for it on the kernel's
// stream orders them: the kernel starts when the copy is done.
TEST(Timing, EventWaitOrdersStreams) {
  const auto t = TraceBuilder()
                     .alloc("A", 2_MiB)
                     .cpu_write("A")
                     .prefetch("A", Processor::gpu(0), /*stream=*/1)
                     .record("copied", 1)
                     .wait("copied", 0)
                     .kernel("k", 0, 1000, /*stream=*/0)
                     .read("A")
                     .end()
                     .build();
  const Result r = replay(t, options_for(round_profile()));
  EXPECT_EQ(r.kernels[0].start_ns, 582108u);
  EXPECT_EQ(r.kernels[0].counters.time_ns, 1000u);
  EXPECT_EQ(r.kernels[0].counters.stall_ns, 0u);
}

// Two prefetches to the same GPU contend for its single H2D copy engine.
TEST(Timing, ConcurrentTransfersContendForTheCopyEngine) {
  const auto t = TraceBuilder()
                     .alloc("A", 2_MiB)
                     .alloc("B", 2_MiB)
                     .cpu_write("A")
                     .cpu_write("B")
                     .prefetch("A", Processor::gpu(0), 1)
                     .prefetch("B", Processor::gpu(0), 2)
                     .sync()
                     .build();
  const Result r = replay(t, options_for(round_profile()));
  // Host: 1024 pages * 110 = 112640; A's copy ends 112640+500+525288 =
  // 638428; B's copy queues behind it: 638428 + 525288 = 1163716.
  EXPECT_EQ(r.total.time_ns, 1163716u);
  auto p = round_profile();
  p.copy_engines_h2d = 2;
  const Result two = replay(t, options_for(p));
  EXPECT_EQ(two.total.time_ns, 638428u);
  // Sharing the link with the fault service (sim/shared_link.h) leaves two
  // streams' transfers one queue.
  auto shared = round_profile();
  shared.link_sharing = LinkSharing{true, 0.25};
  EXPECT_EQ(replay(t, options_for(shared)).total.time_ns, 1163716u);
}

// Eviction write-back: 2 MiB of GPU memory, two 2 MiB buffers touched by the
// GPU after the CPU wrote them. Touching B evicts A's chunk: 3000 + D2H
// 1000 + 524288.
TEST(Timing, EvictionWritesBackBeforeTheFaultIsServiced) {
  const auto t = TraceBuilder()
                     .alloc("A", 2_MiB)
                     .alloc("B", 4_KiB)
                     .cpu_write("A", 0, 4_KiB)
                     .cpu_write("B")
                     .kernel("a", 0, 0)
                     .read("A", 0, 4_KiB)
                     .end()
                     .kernel("b", 0, 0)
                     .read("B")
                     .end()
                     .build();
  const Result r = replay(t, options_for(round_profile(), 2_MiB));
  ASSERT_EQ(r.kernels.size(), 2u);
  EXPECT_EQ(r.kernels[1].counters.evictions, 1u);
  EXPECT_EQ(r.kernels[1].counters.bytes_evicted, 4096u);
  EXPECT_EQ(r.kernels[1].counters.time_ns, 12100u + 3000 + 2024 + 2024);
}

// Pinned host memory is accessed remotely: 2 pages at 2 GB/s = 4096 ns.
TEST(Timing, PinnedMemoryIsReadOverTheLink) {
  const auto t = TraceBuilder()
                     .alloc("H", 8_KiB, trace::AllocKind::kPinned)
                     .kernel("k", 0, 100)
                     .read("H")
                     .end()
                     .build();
  const Result r = replay(t, options_for(round_profile()));
  EXPECT_EQ(r.total.remote_accesses, 2u);
  EXPECT_EQ(r.kernels[0].counters.time_ns, 4096u + 100);
  EXPECT_EQ(r.total.gpu_faults, 0u);
}

// AMD with XNACK off: managed memory is zero-copy host memory unless prefetched.
TEST(Timing, XnackOffManagedMemoryIsZeroCopy) {
  const auto t = TraceBuilder().alloc("A", 8_KiB).kernel("k", 0, 0).read("A").end().build();
  auto o = options_for(round_profile());
  o.vendor = VendorSemantics::amd_xnack_off();
  const Result r = replay(t, o);
  EXPECT_EQ(r.total.gpu_faults, 0u);
  EXPECT_EQ(r.total.remote_accesses, 2u);
  EXPECT_EQ(r.total.bytes_h2d, 0u);
}

// AMD XNACK on migrates the whole 2 MiB window around a fault.
TEST(Timing, XnackOnMigratesTheWindow) {
  const auto t = TraceBuilder().alloc("A", 4_MiB).cpu_write("A").kernel("k", 0, 0).read("A", 0, 4_KiB).end().build();
  auto o = options_for(round_profile());
  o.vendor = VendorSemantics::amd_xnack_on();
  const Result r = replay(t, o);
  EXPECT_EQ(r.total.gpu_faults, 1u);
  EXPECT_EQ(r.total.bytes_h2d, 2_MiB);
}

TEST(Timing, PhasesAggregateTheirKernels) {
  const auto t = TraceBuilder()
                     .phase("load")
                     .alloc("A", 4_KiB)
                     .cpu_write("A")
                     .phase("compute")
                     .kernel("k", 0, 1000)
                     .read("A")
                     .end()
                     .sync()
                     .build();
  const Result r = replay(t, options_for(round_profile()));
  ASSERT_EQ(r.phases.size(), 2u);  // no implicit "main" before the first marker
  EXPECT_EQ(r.phases[0].name, "load");
  EXPECT_EQ(r.phases[0].counters.time_ns, 110u);
  EXPECT_EQ(r.phases[1].start_ns, 110u);
  EXPECT_EQ(r.phases[1].counters.time_ns, 15124u);
  EXPECT_EQ(r.phases[1].counters.gpu_faults, 1u);
  EXPECT_EQ(r.total.gpu_faults, 1u);
  EXPECT_EQ(r.total.time_ns, 15234u);
}

}  // namespace
}  // namespace umsim::sim

namespace umsim::sim {
namespace {

// A GPU sync waits only for that GPU's streams: gpu1's long kernel on
// stream 1 does not hold back the host after `sync gpu=0`: the host is at
// 1000 + 110 when it launches "next" (stream 0 is free since 1000). Phases
// tile the timeline, so "after" starts when "main"'s work is done: 50000.
TEST(Timing, GpuSyncWaitsForThatGpusStreamsOnly) {
  const auto t = TraceBuilder()
                     .alloc("D0", 4_KiB, trace::AllocKind::kDevice, Processor::gpu(0))
                     .alloc("D1", 4_KiB, trace::AllocKind::kDevice, Processor::gpu(1))
                     .alloc("H", 4_KiB)
                     .kernel("short", 0, 1000, /*stream=*/0)
                     .read("D0")
                     .end()
                     .kernel("long", 1, 50000, /*stream=*/1)
                     .read("D1")
                     .end()
                     .sync_gpu(0)
                     .cpu_write("H")  // first touch: 110 ns after the sync
                     .kernel("next", 0, 0, /*stream=*/0)
                     .end()
                     .phase("after")
                     .build();
  const Result r = replay(t, options_for(round_profile(2)));
  ASSERT_EQ(r.kernels.size(), 3u);
  EXPECT_EQ(r.kernels[2].start_ns, 1110u);
  ASSERT_EQ(r.phases.size(), 2u);
  EXPECT_EQ(r.phases[1].start_ns, 50000u);
  EXPECT_EQ(r.total.time_ns, 50000u);
}

}  // namespace
}  // namespace umsim::sim

namespace umsim::sim {
namespace {

// A batch is serviced in address order whatever order its faults arrived in:
// 200 pages touched backwards cost exactly what they cost forwards.
TEST(Timing, BatchOrderDoesNotDependOnArrivalOrder) {
  TraceBuilder fwd, bwd;
  for (auto* b : {&fwd, &bwd}) b->alloc("A", 4_MiB).cpu_write("A").kernel("k", 0, 0);
  for (int p = 0; p < 200; ++p) fwd.read("A", (p * 7 % 1024) * 4_KiB, 4_KiB);
  for (int p = 199; p >= 0; --p) bwd.read("A", (p * 7 % 1024) * 4_KiB, 4_KiB);
  const Result f = replay(fwd.end().build(), options_for(round_profile()));
  const Result b = replay(bwd.end().build(), options_for(round_profile()));
  EXPECT_EQ(f.kernels[0].counters, b.kernels[0].counters);
  EXPECT_EQ(f.kernels[0].counters.fault_batches, 1u);
  // 200 pages in two VA blocks: 10000 + 2 * 2000 + 200 * 100, plus one copy per
  // block of scattered single-page runs (1000 + n * 1024).
  EXPECT_EQ(f.kernels[0].counters.time_ns, 10000u + 2 * 2000 + 200 * 100 + 2 * 1000 + 200 * 1024);
}

}  // namespace
}  // namespace umsim::sim

namespace umsim::sim {
namespace {

// XNACK off: a prefetch moves the data to the GPU (the CPU loses its mapping),
// the CPU's next touch faults and brings the whole 2 MiB window back, and the
// GPU reads it remotely again afterwards.
TEST(Timing, XnackOffPrefetchThenCpuTouch) {
  const auto t = TraceBuilder()
                     .alloc("A", 4_MiB)
                     .prefetch("A", Processor::gpu(0))
                     .sync()
                     .kernel("local", 0, 0)
                     .read("A")
                     .end()
                     .sync()
                     .cpu_read("A", 0, 4_KiB)
                     .kernel("remote", 0, 0)
                     .read("A", 0, 4_KiB)
                     .end()
                     .build();
  auto o = options_for(round_profile());
  o.vendor = VendorSemantics::amd_xnack_off();
  const Result r = replay(t, o);
  EXPECT_EQ(r.total.gpu_faults, 0u);
  EXPECT_EQ(r.kernels[0].counters.remote_accesses, 0u);  // prefetched: local
  EXPECT_EQ(r.total.cpu_faults, 1u);
  EXPECT_EQ(r.total.bytes_d2h, 2_MiB);                    // the window
  EXPECT_EQ(r.kernels[1].counters.remote_accesses, 1u);   // zero-copy again
}

// Population on the GPU with its own costs (profile keys
// faults.populate_va_block_cost and populate_gbps): batch 10000 + populate
// block 500 + page 100 = 10600, then the zero fill of 4096 B at 2 GB/s = 2048
// -> 12648 (instead of 12100 with the migration's block cost and no fill).
TEST(Timing, GpuFirstTouchHasItsOwnPopulateCost) {
  const auto t = TraceBuilder().alloc("A", 4_KiB).kernel("k", 0, 0).write("A").end().build();
  HardwareProfile p = round_profile();
  p.fault_populate_block_ns = 500;
  p.populate_gbps = 2.0;
  const Result r = replay(t, options_for(p));
  EXPECT_EQ(r.total.time_ns, 12648u);
  EXPECT_EQ(r.total.bytes_h2d, 0u);
}

// A block whose faulted pages include a CPU-resident one pays the migration's
// block cost; the fresh page's zero fill runs alongside the copy. CPU first
// touch of page 0: 110. Kernel at 110: batch 10000 + block 2000 + 2 pages 200
// -> 12310; copy 1000 + 1024 = 2024 -> 14334, fill 2048 -> 14358 (the later):
// kernel time 14358 - 110 = 14248.
TEST(Timing, MixedBlockPaysTheMigrationBlockCost) {
  const auto t = TraceBuilder().alloc("A", 8_KiB).cpu_write("A", 0, 4_KiB).kernel("k", 0, 0).read("A").end().build();
  HardwareProfile p = round_profile();
  p.fault_populate_block_ns = 500;
  p.populate_gbps = 2.0;
  const Result r = replay(t, options_for(p));
  EXPECT_EQ(r.kernels[0].start_ns, 110u);
  EXPECT_EQ(r.kernels[0].counters.time_ns, 14358u - 110);
  EXPECT_EQ(r.total.bytes_h2d, 4096u);
}

// GPU-local access bandwidth (gpu.access_gbps = 4: 1024 ns per 4 KiB page
// access), added after the faults, before the compute. k1 populates A: 12100 +
// 1024 = 13124. k2 reads the resident page: 1024 + compute 1000 = 2024. k3
// reads a pinned page remotely: only the remote time, 4096 / 2 GB/s = 2048.
TEST(Timing, ResidentAccessesCostTheGpuAccessBandwidth) {
  const auto t = TraceBuilder()
                     .alloc("A", 4_KiB)
                     .alloc("H", 4_KiB, trace::AllocKind::kPinned)
                     .kernel("k1", 0, 0)
                     .write("A")
                     .end()
                     .kernel("k2", 0, 1000)
                     .read("A")
                     .end()
                     .kernel("k3", 0, 0)
                     .read("H")
                     .end()
                     .build();
  HardwareProfile p = round_profile();
  p.gpu_access_gbps = 4.0;
  const Result r = replay(t, options_for(p));
  ASSERT_EQ(r.kernels.size(), 3u);
  EXPECT_EQ(r.kernels[0].counters.time_ns, 13124u);
  EXPECT_EQ(r.kernels[1].counters.time_ns, 2024u);
  EXPECT_EQ(r.kernels[1].counters.stall_ns, 0u);
  EXPECT_EQ(r.kernels[2].counters.time_ns, 2048u);
}

// Read duplication of a ReadMostly page with its own block cost
// (faults.duplicate_va_block_cost = 500): batch 10000 + block 500 + page 100 +
// copy 2024 = 12624 (the migration's block cost would give 14124). The CPU
// keeps its copy: its read afterwards takes no fault.
TEST(Timing, ReadDuplicationHasItsOwnBlockCost) {
  const auto t = TraceBuilder()
                     .alloc("A", 4_KiB)
                     .cpu_write("A")
                     .advise("A", trace::Advice::kSetReadMostly)
                     .kernel("k", 0, 0)
                     .read("A")
                     .end()
                     .sync()
                     .cpu_read("A")
                     .build();
  HardwareProfile p = round_profile();
  p.fault_duplicate_block_ns = 500;
  const Result r = replay(t, options_for(p));
  EXPECT_EQ(r.kernels[0].counters.time_ns, 12624u);
  EXPECT_EQ(r.total.bytes_h2d, 4096u);
  EXPECT_EQ(r.total.cpu_faults, 0u);
  const Result plain = replay(t, options_for(round_profile()));
  EXPECT_EQ(plain.kernels[0].counters.time_ns, 14124u);
}

// Per-page driver work: a read duplicate pays faults.duplicated_page_cost
// (300), a migrated page migrated_page_cost (900). Two pages of A (ReadMostly)
// and two of B, each read by its own kernel: batch 10000 + block 2000 + 2 pages
// 100 + copy 1000 + 8192/4 = 15248, plus 2 x 300 (A) or 2 x 900 (B). Without
// duplicated_page_cost a duplicate pays migrated_page_cost.
TEST(Timing, ReadDuplicatesHaveTheirOwnPerPageCost) {
  const auto t = TraceBuilder()
                     .alloc("A", 8_KiB)
                     .alloc("B", 8_KiB)
                     .cpu_write("A")
                     .cpu_write("B")
                     .advise("A", trace::Advice::kSetReadMostly)
                     .kernel("dup", 0, 0)
                     .read("A")
                     .end()
                     .kernel("move", 0, 0)
                     .read("B")
                     .end()
                     .build();
  HardwareProfile p = round_profile();
  p.fault_migrated_page_ns = 900;
  p.fault_duplicated_page_ns = 300;
  const Result r = replay(t, options_for(p));
  ASSERT_EQ(r.kernels.size(), 2u);
  EXPECT_EQ(r.kernels[0].counters.time_ns, 15248u + 600u);
  EXPECT_EQ(r.kernels[1].counters.time_ns, 15248u + 1800u);
  p.fault_duplicated_page_ns.reset();
  EXPECT_EQ(replay(t, options_for(p)).kernels[0].counters.time_ns, 15248u + 1800u);
}

// A fault service duplicating the CPU's sole copy pays
// faults.revoke_cpu_write_page_cost (500) per page the CPU may still write:
// none right after the ReadMostly advice (it revoked the permission), both
// pages after a CPU write gave it back. Each kernel reads A's two pages:
// batch 10000 + block 2000 + 2 pages 100 + copy 1000 + 8192/4 = 15248, plus
// 2 x 300 duplicated pages, plus 2 x 500 after the write.
TEST(Timing, DuplicatingAPageTheCpuMayWriteRevokesThatPermission) {
  auto trace = [](bool write_after_advice) {
    TraceBuilder b;
    b.alloc("A", 8_KiB).cpu_write("A").advise("A", trace::Advice::kSetReadMostly);
    if (write_after_advice) b.cpu_write("A");
    return b.kernel("dup", 0, 0).read("A").end().build();
  };
  HardwareProfile p = round_profile();
  p.fault_duplicated_page_ns = 300;
  p.fault_revoke_cpu_write_page_ns = 500;
  EXPECT_EQ(replay(trace(false), options_for(p)).kernels.at(0).counters.time_ns, 15248u + 600u);
  EXPECT_EQ(replay(trace(true), options_for(p)).kernels.at(0).counters.time_ns, 15248u + 600u + 1000u);
  p.fault_revoke_cpu_write_page_ns = 0;
  EXPECT_EQ(replay(trace(true), options_for(p)).kernels.at(0).counters.time_ns, 15248u + 600u);
}

// A GPU write to a page it holds as a read-only duplicate faults; the service
// revokes the CPU's copy: batch 10000 + block 2000 + page 100 = 12100, plus
// faults.revoke_duplicate_page_cost per such page. Nothing is copied.
TEST(Timing, WriteToAReadDuplicateRevokesTheOtherCopies) {
  const auto t = TraceBuilder()
                     .alloc("A", 8_KiB)
                     .cpu_write("A")
                     .advise("A", trace::Advice::kSetReadMostly)
                     .kernel("load", 0, 0)
                     .read("A")
                     .end()
                     .kernel("store", 0, 0)
                     .write("A", 0, 4_KiB)
                     .end()
                     .build();
  HardwareProfile p = round_profile();
  p.fault_revoke_duplicate_page_ns = 7000;
  const Result r = replay(t, options_for(p));
  ASSERT_EQ(r.kernels.size(), 2u);
  EXPECT_EQ(r.kernels[1].counters.gpu_faults, 1u);
  EXPECT_EQ(r.kernels[1].counters.time_ns, 12100u + 7000u);
  EXPECT_EQ(r.kernels[1].counters.bytes_h2d, 0u);
  const Result plain = replay(t, options_for(round_profile()));
  EXPECT_EQ(plain.kernels[1].counters.time_ns, 12100u);
  EXPECT_EQ(plain.kernels[0].counters.time_ns, r.kernels[0].counters.time_ns);  // reads duplicate: no revocation
}

// With duplicates on two GPUs and the CPU, gpu0's write revokes both other
// holders' copies, each in turn: 12100 + 2 x 7000.
TEST(Timing, WriteToAReadDuplicateRevokesEachOtherHolder) {
  const auto t = TraceBuilder()
                     .alloc("A", 8_KiB)
                     .cpu_write("A")
                     .advise("A", trace::Advice::kSetReadMostly)
                     .kernel("load0", 0, 0)
                     .read("A")
                     .end()
                     .sync()
                     .kernel("load1", 1, 0)
                     .read("A")
                     .end()
                     .sync()
                     .kernel("store", 0, 0)
                     .write("A", 0, 4_KiB)
                     .end()
                     .build();
  HardwareProfile p = round_profile(2);
  p.fault_revoke_duplicate_page_ns = 7000;
  const Result r = replay(t, options_for(p));
  ASSERT_EQ(r.kernels.size(), 3u);
  EXPECT_EQ(r.kernels[2].counters.gpu_faults, 1u);
  EXPECT_EQ(r.kernels[2].counters.time_ns, 12100u + 2 * 7000u);
  EXPECT_EQ(r.kernels[2].counters.bytes_h2d + r.kernels[2].counters.bytes_peer, 0u);
}

// Host time around kernels that their own events do not see (host.launch_gap,
// host.idle_launch_gap, host.sync_return_cost, host.sync_call_cost; here 2000,
// 19000, 6000 and 2000 ns). Phase "first": the first launch finds the GPU
// idle, so k1 starts 19000 after its call and ends at 119000; its sync
// returns 6000 later (125000). Phase "two": the GPU ran a kernel 6000 ago,
// so k2 starts 2000 after its call (127000, ends 227000) and k3 follows it
// on the stream (ends 327000); the sync returns at 333000 (phase 208000).
// Phase "nothing": a sync with nothing to wait for takes 2000. Phase
// "streams": k4 on stream 1 and k5 on stream 2 both start 2000 after their
// calls (337000). Kernel times are unchanged; without the keys phases are
// their kernels' time.
TEST(Timing, LaunchGapsAndSyncReturnsAreHostTimeOutsideTheKernels) {
  const auto t = TraceBuilder()
                     .phase("first")
                     .kernel("k1", 0, 100000)
                     .end()
                     .sync()
                     .phase("two")
                     .kernel("k2", 0, 100000)
                     .end()
                     .kernel("k3", 0, 100000)
                     .end()
                     .sync()
                     .phase("nothing")
                     .sync()
                     .phase("streams")
                     .kernel("k4", 0, 100000, 1)
                     .end()
                     .kernel("k5", 0, 100000, 2)
                     .end()
                     .sync()
                     .build();
  HardwareProfile p = round_profile();
  p.launch_gap_ns = 2000;
  p.idle_launch_gap_ns = 19000;
  p.sync_return_ns = 6000;
  p.sync_call_ns = 2000;
  for (const bool issue_order : {false, true}) {
    EngineOptions o = options_for(p);
    o.issue_order = issue_order;
    const Result r = replay(t, o);
    ASSERT_EQ(r.kernels.size(), 5u);
    ASSERT_EQ(r.phases.size(), 4u);
    EXPECT_EQ(r.kernels[0].start_ns, 19000u);
    EXPECT_EQ(r.phases[0].counters.time_ns, 125000u);
    EXPECT_EQ(r.kernels[1].start_ns, 127000u);
    EXPECT_EQ(r.kernels[2].start_ns, 227000u);
    EXPECT_EQ(r.phases[1].counters.time_ns, 208000u);
    EXPECT_EQ(r.phases[2].counters.time_ns, 2000u);
    EXPECT_EQ(r.kernels[3].start_ns, 337000u);
    EXPECT_EQ(r.kernels[4].start_ns, 337000u);
    for (const ScopeResult& k : r.kernels) EXPECT_EQ(k.counters.time_ns, 100000u) << k.name;
  }
  // The first launch finds the GPU idle (19000); the second, on another
  // stream right after it, would reach the GPU 2000 after its call but does
  // not overtake the first.
  const auto both = TraceBuilder().kernel("a", 0, 100000, 1).end().kernel("b", 0, 100000, 2).end().sync().build();
  const Result r = replay(both, options_for(p));
  ASSERT_EQ(r.kernels.size(), 2u);
  EXPECT_EQ(r.kernels[0].start_ns, 19000u);
  EXPECT_EQ(r.kernels[1].start_ns, 19000u);
  const Result without = replay(t, options_for(round_profile()));
  EXPECT_EQ(without.phases[0].counters.time_ns, 100000u);
  EXPECT_EQ(without.phases[1].counters.time_ns, 200000u);
  EXPECT_EQ(without.phases[2].counters.time_ns, 0u);
}

// Freeing managed memory is host time (host.free_call_cost, here 5000 ns, and
// host.free_gpu_block_cost, 300 ns per VA block with pages on a GPU). A holds
// three 2 MiB blocks and the kernel reads one page in each of its first two:
// its free costs 5000 + 2 x 300. B, which only the CPU touched, costs the
// call alone; D, device memory, nothing. Without the keys a free costs
// nothing.
TEST(Timing, FreeingManagedMemoryCostsTheCallAndItsBlocksOnTheGpu) {
  const auto t = TraceBuilder()
                     .alloc("A", 3 * 2_MiB)
                     .alloc("B", 2_MiB)
                     .alloc("D", 2_MiB, trace::AllocKind::kDevice)
                     .cpu_write("B")
                     .kernel("k", 0)
                     .read("A", 0, 4_KiB)
                     .read("A", 2_MiB, 4_KiB)
                     .end()
                     .sync()
                     .phase("free_a")
                     .free("A")
                     .phase("free_b")
                     .free("B")
                     .phase("free_d")
                     .free("D")
                     .build();
  HardwareProfile p = round_profile();
  p.free_call_ns = 5000;
  p.free_gpu_block_ns = 300;
  const Result r = replay(t, options_for(p));
  ASSERT_EQ(r.phases.size(), 4u);
  EXPECT_EQ(r.phases[1].counters.time_ns, 5000u + 2 * 300u);
  EXPECT_EQ(r.phases[2].counters.time_ns, 5000u);
  EXPECT_EQ(r.phases[3].counters.time_ns, 0u);
  const Result without = replay(t, options_for(round_profile()));
  for (std::size_t i = 1; i < without.phases.size(); ++i) EXPECT_EQ(without.phases[i].counters.time_ns, 0u);
}

// Advice is host time (cudaMemAdvise returns when the driver has changed the
// range): a call cost, then per page the advice changes. ReadMostly revokes
// the CPU's writable mapping of the 4 pages only it holds (1000 + 4 x 300);
// set again, nothing changes (1000). AccessedBy gpu0 maps B's 2 resident
// pages (1000 + 2 x 150); a preferred location on them, 1000 + 2 x 60. On
// untouched C there is nothing to revoke or map: the calls alone (2 x 1000).
TEST(Timing, AdviceCostsHostTimeByThePagesItChanges) {
  const auto t = TraceBuilder()
                     .alloc("A", 4 * 4_KiB)
                     .alloc("B", 2 * 4_KiB)
                     .alloc("C", 3 * 4_KiB)
                     .cpu_write("A")
                     .cpu_write("B")
                     .phase("read_mostly")
                     .advise("A", Advice::kSetReadMostly)
                     .phase("again")
                     .advise("A", Advice::kSetReadMostly)
                     .phase("accessed_by")
                     .advise("B", Advice::kSetAccessedBy, Processor::gpu(0))
                     .phase("preferred")
                     .advise("B", Advice::kSetPreferredLocation, Processor::cpu())
                     .phase("untouched")
                     .advise("C", Advice::kSetReadMostly)
                     .advise("C", Advice::kSetAccessedBy, Processor::gpu(0))
                     .build();
  HardwareProfile p = round_profile();
  p.advise_call_ns = 1000;
  p.advise_read_mostly_page_ns = 300;
  p.advise_accessed_by_page_ns = 150;
  p.advise_preferred_page_ns = 60;
  const Result r = replay(t, options_for(p));
  ASSERT_EQ(r.phases.size(), 6u);
  EXPECT_EQ(r.phases[0].counters.time_ns, 660u);  // main: the CPU's first touches, 6 x 110
  EXPECT_EQ(r.phases[1].counters.time_ns, 2200u);
  EXPECT_EQ(r.phases[2].counters.time_ns, 1000u);
  EXPECT_EQ(r.phases[3].counters.time_ns, 1300u);
  EXPECT_EQ(r.phases[4].counters.time_ns, 1120u);
  EXPECT_EQ(r.phases[5].counters.time_ns, 2000u);
  EXPECT_EQ(r.total.time_ns, 660u + 2200 + 1000 + 1300 + 1120 + 2000);
  const Result without = replay(t, options_for(round_profile()));
  for (std::size_t i = 1; i < without.phases.size(); ++i) EXPECT_EQ(without.phases[i].counters.time_ns, 0u) << i;
}

// Read duplication by a prefetch pays prefetch.duplicate_va_block_cost (7000)
// only where it must revoke the sole holder's write permission: A's CPU copy
// lost it to the ReadMostly advice, so its block costs a plain block (500) +
// the copy 2024 = 2524; B's CPU write collapsed its duplicate (writable
// again): 7000 + 2024 = 9024.
TEST(Timing, ADuplicatingPrefetchRevokesWritePermissionOnlyOnce) {
  const auto t = TraceBuilder()
                     .alloc("A", 4_KiB)
                     .alloc("B", 4_KiB)
                     .cpu_write("A")
                     .cpu_write("B")
                     .advise("A", Advice::kSetReadMostly)
                     .advise("B", Advice::kSetReadMostly)
                     .kernel("k", 0, 0)
                     .read("B")
                     .end()
                     .sync()
                     .cpu_write("B")
                     .phase("after_advice")
                     .prefetch("A", Processor::gpu(0), 1)
                     .sync()
                     .phase("after_write")
                     .prefetch("B", Processor::gpu(0), 1)
                     .sync()
                     .build();
  HardwareProfile p = round_profile();
  p.prefetch_duplicate_va_block_ns = 7000;
  const Result r = replay(t, options_for(p));
  ASSERT_EQ(r.phases.size(), 3u);
  EXPECT_EQ(r.phases[1].counters.time_ns, 2524u);
  EXPECT_EQ(r.phases[2].counters.time_ns, 9024u);
  EXPECT_EQ(r.phases[1].counters.bytes_prefetched, 4096u);
  EXPECT_EQ(r.phases[2].counters.bytes_prefetched, 4096u);
}

}  // namespace
}  // namespace umsim::sim
