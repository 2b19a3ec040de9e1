// Hand-computed timings of the costs that depend on how much of a page a
// touch covers and on fixed per-call costs, under round_profile()
// (sim_test_util.h): transaction units for resident and remote touches, the
// per-page cost of fault-driven migration, prefetch calls, kernel launches
// and CPU touches by cache line.
#include <vector>

#include <gtest/gtest.h>

#include "tests/sim/sim_test_util.h"
#include "traces/trace_builder.h"

namespace umsim::sim {
namespace {

using namespace trace::literals;
using testing::options_for;
using testing::replay;
using testing::round_profile;
using trace::Processor;
using trace::TraceBuilder;

// gpu.access_unit 32 B, access_gbps 4 (4 B/ns), access_cost 10 ns per touch.
// k1 populates two pages (batch 10000 + block 2000 + 2 pages * 100) and
// writes them whole: 256 sectors * 32 B / 4 = 2048 + 2 * 10 -> 14268.
// k2 reads one word per page (stride 4 KiB): 2 sectors = 64 B / 4 = 16 + 20 = 36.
// k3 reads bytes 0..99: sectors 0..3 = 128 B / 4 = 32 + 10 = 42.
TEST(AccessCost, ResidentTouchesCostTheirSectors) {
  const auto t = TraceBuilder()
                     .alloc("A", 8_KiB)
                     .kernel("k1", 0, 0).write("A").end()
                     .kernel("k2", 0, 0).read("A", 0, TraceBuilder::kWhole, 4_KiB).end()
                     .kernel("k3", 0, 0).read("A", 0, 100).end()
                     .build();
  HardwareProfile p = round_profile();
  p.gpu_access_gbps = 4.0;
  p.gpu_access_unit = 32;
  p.gpu_access_ns = 10;
  const Result r = replay(t, options_for(p));
  ASSERT_EQ(r.kernels.size(), 3u);
  EXPECT_EQ(r.kernels[0].counters.time_ns, 14268u);
  EXPECT_EQ(r.kernels[1].counters.time_ns, 36u);
  EXPECT_EQ(r.kernels[2].counters.time_ns, 42u);
}

// A page touch costs a fraction of a nanosecond (an H200's resident touch
// about 0.1 ns): summed over the kernel's touches, then rounded. gpu.access_unit
// 32 B at 4 B/ns; 0.25 ns per touch. k2 reads one word of each of 1024 pages
// (a 4 MiB allocation): 1024 sectors * 32 B / 4 = 8192, + 1024 * 0.25 = 256
// -> 8448; k3 one word of 3 pages: 3 * 8 = 24, + 0.75 -> 1 -> 25. Rounded per
// touch (or whole ns per touch) k2 would be 8192.
TEST(AccessCost, FractionalTouchCostsAddUpBeforeRounding) {
  const auto t = TraceBuilder()
                     .alloc("A", 4_MiB)
                     .kernel("k1", 0, 0).write("A").end()
                     .kernel("k2", 0, 0).read("A", 0, TraceBuilder::kWhole, 4_KiB).end()
                     .kernel("k3", 0, 0).read("A", 0, 12_KiB, 4_KiB).end()
                     .build();
  HardwareProfile p = round_profile();
  p.gpu_access_gbps = 4.0;
  p.gpu_access_unit = 32;
  p.gpu_access_ns = 0.25;
  const Result r = replay(t, options_for(p));
  ASSERT_EQ(r.kernels.size(), 3u);
  EXPECT_EQ(r.kernels[1].counters.accesses, 1024u);
  EXPECT_EQ(r.kernels[1].counters.time_ns, 8448u);
  EXPECT_EQ(r.kernels[2].counters.time_ns, 25u);
  // Remote touches likewise: 0.4 ns each over 1024 pinned pages read a word each.
  const auto pinned = TraceBuilder()
                          .alloc("H", 4_MiB, trace::AllocKind::kPinned)
                          .kernel("words", 0, 0).read("H", 0, TraceBuilder::kWhole, 4_KiB).end()
                          .build();
  HardwareProfile q = round_profile();
  q.remote_access_unit = 32;
  q.remote_access_ns = 0.4;
  const Nanos without = replay(pinned, options_for(q)).kernels[0].counters.time_ns;
  q.remote_access_ns = 0;
  EXPECT_EQ(without - replay(pinned, options_for(q)).kernels[0].counters.time_ns, 410u);  // 1024 * 0.4 = 409.6
}

// With the default unit (4 KiB) every touch is a whole page, as before:
// k2's two word reads cost 2 * 4096 / 4 = 2048.
TEST(AccessCost, DefaultUnitChargesWholePages) {
  const auto t = TraceBuilder()
                     .alloc("A", 8_KiB)
                     .kernel("k1", 0, 0).write("A").end()
                     .kernel("k2", 0, 0).read("A", 0, TraceBuilder::kWhole, 4_KiB).end()
                     .build();
  HardwareProfile p = round_profile();
  p.gpu_access_gbps = 4.0;
  EXPECT_EQ(replay(t, options_for(p)).kernels[1].counters.time_ns, 2048u);
}

// A range record whose pages are all resident hits is counted in one pass,
// whatever the lanes: k2 reads 16 resident pages three times (48 touches of a
// whole page at 4 B/ns: 48 * 4096 / 4 = 49152), k3 writes them twice (32768);
// k4 reads them with one more page, not yet resident, and takes the per-page
// path: 17 touches, one fault.
TEST(AccessCost, AllHitRangeRecordsCountEveryTouch) {
  const auto t = TraceBuilder()
                     .alloc("A", 68_KiB)
                     .kernel("k1", 0, 0).write("A", 0, 64_KiB).end()
                     .kernel("k2", 0, 0).read("A", 0, 64_KiB, 0, 3).end()
                     .kernel("k3", 0, 0).write("A", 0, 64_KiB, 0, 2).end()
                     .kernel("k4", 0, 0).read("A").end()
                     .build();
  for (const std::uint32_t lanes : {1u, 4u}) {
    HardwareProfile p = round_profile();
    p.gpu_access_gbps = 4.0;
    p.gpu_access_lanes = lanes;
    const Result r = replay(t, options_for(p));
    ASSERT_EQ(r.kernels.size(), 4u);
    EXPECT_EQ(r.kernels[1].counters.accesses, 48u) << lanes;
    EXPECT_EQ(r.kernels[1].counters.time_ns, 49152u) << lanes;
    EXPECT_EQ(r.kernels[1].counters.gpu_faults, 0u) << lanes;
    EXPECT_EQ(r.kernels[2].counters.accesses, 32u) << lanes;
    EXPECT_EQ(r.kernels[2].counters.time_ns, 32768u) << lanes;
    EXPECT_EQ(r.kernels[3].counters.accesses, 17u) << lanes;
    EXPECT_EQ(r.kernels[3].counters.gpu_faults, 1u) << lanes;
  }
}

// Remote touches of pinned memory: remote.access_unit 32, access_cost 50 ns.
// One word per page of two pages: 2 sectors = 64 B at 2 B/ns = 32, + 2 * 50
// -> 132. A whole-page read: 2 * 4096 / 2 = 4096 + 100 -> 4196. With gpu.
// access_gbps set, remote touches are not also charged as local ones.
TEST(AccessCost, RemoteTouchesCostTheirSectors) {
  const auto t = TraceBuilder()
                     .alloc("H", 8_KiB, trace::AllocKind::kPinned)
                     .kernel("words", 0, 0).read("H", 0, TraceBuilder::kWhole, 4_KiB).end()
                     .kernel("pages", 0, 0).read("H").end()
                     .build();
  HardwareProfile p = round_profile();
  p.remote_access_unit = 32;
  p.remote_access_ns = 50;
  p.gpu_access_gbps = 4.0;
  p.gpu_access_unit = 32;
  const Result r = replay(t, options_for(p));
  ASSERT_EQ(r.kernels.size(), 2u);
  EXPECT_EQ(r.kernels[0].counters.remote_accesses, 2u);
  EXPECT_EQ(r.kernels[0].counters.time_ns, 132u);
  EXPECT_EQ(r.kernels[1].counters.time_ns, 4196u);
}

// remote.gpu_write_to_host_gbps 8: the GPU's stores to host memory at their
// own bandwidth, its loads at gpu_to_host_gbps (2 B/ns). Two pinned pages
// read and two written in one kernel: 8192 / 2 = 4096 + 8192 / 8 = 1024 ->
// 5120; without the key both at 2 B/ns, 16384 / 2 = 8192. A memset of
// pinned memory by the GPU is stores too: 8192 / 8 = 1024 after its call.
TEST(AccessCost, StoresToHostMemoryHaveTheirOwnBandwidth) {
  const auto t = TraceBuilder()
                     .alloc("R", 8_KiB, trace::AllocKind::kPinned)
                     .alloc("W", 8_KiB, trace::AllocKind::kPinned)
                     .kernel("both", 0, 0).read("R").write("W").end()
                     .sync()
                     .phase("memset").memset("W")
                     .build();
  HardwareProfile p = round_profile();
  const Result plain = replay(t, options_for(p));
  EXPECT_EQ(plain.kernels[0].counters.time_ns, 8192u);
  p.remote_gpu_write_to_host_gbps = 8.0;
  const Result r = replay(t, options_for(p));
  EXPECT_EQ(r.kernels[0].counters.time_ns, 5120u);
  EXPECT_EQ(plain.phases[1].counters.time_ns - r.phases[1].counters.time_ns, 8192u / 2 - 8192u / 8);
}

// Sparse reads of host memory are bound by their read requests, one per
// 128-byte line (remote.request_cost 40 ns), where that is slower than their
// bytes (remote.access_unit 32 B at 2 B/ns): two pinned pages read one word
// per 128 B are 64 requests, 2560, against 64 sectors = 2048 B / 2 = 1024;
// read whole, 8192 B / 2 = 4096 against the same 2560; written one word per
// 128 B, stores are posted: their bytes alone, 1024. Without a request cost
// the sparse read is its bytes, 1024.
TEST(AccessCost, SparseRemoteReadsAreBoundByTheirRequests) {
  const auto t = TraceBuilder()
                     .alloc("H", 8_KiB, trace::AllocKind::kPinned)
                     .kernel("words", 0, 0).read("H", 0, TraceBuilder::kWhole, 128).end()
                     .kernel("pages", 0, 0).read("H").end()
                     .kernel("stores", 0, 0).write("H", 0, TraceBuilder::kWhole, 128).end()
                     .build();
  HardwareProfile p = round_profile();
  p.remote_access_unit = 32;
  p.remote_request_unit = 128;
  p.remote_request_ns = 40;
  const Result r = replay(t, options_for(p));
  ASSERT_EQ(r.kernels.size(), 3u);
  EXPECT_EQ(r.kernels[0].counters.remote_accesses, 2u);
  EXPECT_EQ(r.kernels[0].counters.time_ns, 2560u);
  EXPECT_EQ(r.kernels[1].counters.time_ns, 4096u);
  EXPECT_EQ(r.kernels[2].counters.time_ns, 1024u);
  p.remote_request_ns = 0;
  EXPECT_EQ(replay(t, options_for(p)).kernels[0].counters.time_ns, 1024u);
}

// A read-modify-write's dependent stores to the GPU's own memory cost
// gpu.rmw_cost per unit beyond a plain store's (gpu.access_unit 32 B at
// 4 B/ns, rmw_cost 0.5 ns). Two resident pages: rmw whole, 256 units read and
// 256 stored = 16 KiB / 4 = 4096, + 256 * 0.5 = 128 -> 4224; the same read
// and write as separate accesses, 4096; rmw of one word per page, 2 + 2 units
// = 32, + 2 * 0.5 = 1 -> 33. A pinned buffer's rmw stores go over the link
// (remote bytes at 2 B/ns: 16 KiB / 2 = 8192) and cost no more with the key.
TEST(AccessCost, ReadModifyWriteStoresCostTheirUnits) {
  const auto t = TraceBuilder()
                     .alloc("A", 8_KiB)
                     .alloc("H", 8_KiB, trace::AllocKind::kPinned)
                     .kernel("populate", 0, 0).write("A").end()
                     .kernel("rmw", 0, 0).read_modify_write("A").end()
                     .kernel("read_write", 0, 0).read("A").write("A").end()
                     .kernel("rmw_words", 0, 0).read_modify_write("A", 0, TraceBuilder::kWhole, 4_KiB).end()
                     .kernel("rmw_pinned", 0, 0).read_modify_write("H").end()
                     .build();
  HardwareProfile p = round_profile();
  p.gpu_access_gbps = 4.0;
  p.gpu_access_unit = 32;
  p.gpu_rmw_ns = 0.5;
  const Result r = replay(t, options_for(p));
  ASSERT_EQ(r.kernels.size(), 5u);
  EXPECT_EQ(r.kernels[1].counters.time_ns, 4224u);
  EXPECT_EQ(r.kernels[2].counters.time_ns, 4096u);
  EXPECT_EQ(r.kernels[3].counters.time_ns, 33u);
  const Nanos pinned = r.kernels[4].counters.time_ns;
  p.gpu_rmw_ns = 0;
  const Result without = replay(t, options_for(p));
  EXPECT_EQ(without.kernels[1].counters.time_ns, 4096u);
  EXPECT_EQ(without.kernels[4].counters.time_ns, pinned);
}

// faults.migrated_page_cost 300 per page a fault service moves from another
// copy: the one-page fault of Timing.OnePageOneBatch (15124) costs 300 more;
// a GPU first touch (nothing to move) does not.
TEST(AccessCost, FaultDrivenMigrationCostsPerPage) {
  HardwareProfile p = round_profile();
  p.fault_migrated_page_ns = 300;
  const auto moved = TraceBuilder().alloc("A", 4_KiB).cpu_write("A").kernel("k", 0, 1000).read("A").end().build();
  EXPECT_EQ(replay(moved, options_for(p)).kernels[0].counters.time_ns, 15124u + 300);
  const auto fresh = TraceBuilder().alloc("A", 4_KiB).kernel("k", 0, 0).write("A").end().build();
  EXPECT_EQ(replay(fresh, options_for(p)).total.time_ns, 12100u);
}

// The per-page cost covers the pages the prefetch policy pulls in too: a
// policy-free fault of 1 page vs 4 pages moved by a faulting range read of 4
// pages in one batch: 4 * 300 on top of the plain service.
TEST(AccessCost, MigratedPageCostCountsEveryMovedPage) {
  HardwareProfile p = round_profile();
  const auto t = TraceBuilder().alloc("A", 16_KiB).cpu_write("A").kernel("k", 0, 0).read("A").end().build();
  const Nanos plain = replay(t, options_for(p)).kernels[0].counters.time_ns;
  p.fault_migrated_page_ns = 300;
  EXPECT_EQ(replay(t, options_for(p)).kernels[0].counters.time_ns, plain + 4 * 300);
}

// faults.run_cost 700 per contiguous run of pages a fault service copies:
// one batch faulting pages 0, 1 and 3 of a CPU-written block copies two runs
// ({0, 1} and {3}): 2 * 700 on top of the plain service, on the short path
// (unadvised pages) and on the general one (AccessedBy advice, which keeps the
// migration); a one-page fault pays one run; a GPU first touch copies nothing,
// nor does a read duplication of ReadMostly pages pay it (its costs are apart).
TEST(AccessCost, FaultServiceCostsPerCopyRun) {
  auto three_pages = [](bool advised) {
    TraceBuilder b;
    b.alloc("A", 64_KiB).cpu_write("A");
    if (advised) b.advise("A", trace::Advice::kSetAccessedBy, Processor::cpu());
    return b.kernel("k", 0, 0).read("A", 0, 8_KiB).read("A", 12_KiB, 4_KiB).end().build();
  };
  const auto one_page = TraceBuilder().alloc("A", 4_KiB).cpu_write("A").kernel("k", 0, 0).read("A").end().build();
  const auto fresh = TraceBuilder().alloc("A", 4_KiB).kernel("k", 0, 0).write("A").end().build();
  const auto duplicated = TraceBuilder()
                              .alloc("A", 64_KiB)
                              .cpu_write("A")
                              .advise("A", trace::Advice::kSetReadMostly)
                              .kernel("k", 0, 0).read("A", 0, 8_KiB).read("A", 12_KiB, 4_KiB).end()
                              .build();
  HardwareProfile p = round_profile();
  std::vector<Nanos> plain;
  for (const auto& t : {three_pages(false), three_pages(true), one_page, fresh, duplicated})
    plain.push_back(replay(t, options_for(p)).kernels[0].counters.time_ns);
  p.fault_run_ns = 700;
  EXPECT_EQ(replay(three_pages(false), options_for(p)).kernels[0].counters.time_ns, plain[0] + 2 * 700);
  EXPECT_EQ(replay(three_pages(true), options_for(p)).kernels[0].counters.time_ns, plain[1] + 2 * 700);
  EXPECT_EQ(replay(one_page, options_for(p)).kernels[0].counters.time_ns, plain[2] + 700);
  EXPECT_EQ(replay(fresh, options_for(p)).kernels[0].counters.time_ns, plain[3]);
  const Result dup = replay(duplicated, options_for(p));
  EXPECT_EQ(dup.kernels[0].counters.bytes_h2d, 12_KiB);  // three pages copied, the CPU's kept
  EXPECT_EQ(dup.kernels[0].counters.time_ns, plain[4]);
}

// prefetch.call_cost 700: CPU writes one page (110); the prefetch starts at
// 110 + 700, block 500, copy 1000 + 4096 / 4 -> 3334.
TEST(AccessCost, PrefetchCallsHaveAFixedCost) {
  HardwareProfile p = round_profile();
  p.prefetch_call_ns = 700;
  const auto t = TraceBuilder().alloc("A", 4_KiB).cpu_write("A").prefetch("A", Processor::gpu(0), 1).sync().build();
  EXPECT_EQ(replay(t, options_for(p)).total.time_ns, 3334u);
}

// prefetch.to_cpu_va_block_cost 2000: the page goes to gpu0 as above (3334),
// then back to the CPU: call 700 + the CPU-bound block's 2000 + copy 2024 ->
// 8058; unset, the block costs va_block_cost (500) as before: 6558.
TEST(AccessCost, PrefetchToTheCpuHasItsOwnBlockCost) {
  HardwareProfile p = round_profile();
  p.prefetch_call_ns = 700;
  const auto t = TraceBuilder()
                     .alloc("A", 4_KiB)
                     .cpu_write("A")
                     .prefetch("A", Processor::gpu(0), 1).sync()
                     .prefetch("A", Processor::cpu(), 1).sync()
                     .build();
  EXPECT_EQ(replay(t, options_for(p)).total.time_ns, 6558u);
  p.prefetch_to_cpu_va_block_ns = 2000;
  EXPECT_EQ(replay(t, options_for(p)).total.time_ns, 8058u);
}

// prefetch.queued_call_cost set: a call on an idle stream holds the host until
// its migration ends. The CPU writes a page (110); the prefetch on stream 1
// runs 110 + 700 + block 500 + copy 2024 -> 3334, so the kernel on stream 2,
// issued after it, starts at 3334 (at 110 without the key: the host does not
// wait for the prefetch).
TEST(AccessCost, PrefetchOnAnIdleStreamHoldsTheHost) {
  HardwareProfile p = round_profile();
  p.prefetch_call_ns = 700;
  const auto t = TraceBuilder()
                     .alloc("A", 4_KiB)
                     .cpu_write("A")
                     .prefetch("A", Processor::gpu(0), 1)
                     .kernel("k", 0, 1000, 2).end()
                     .build();
  EXPECT_EQ(replay(t, options_for(p)).kernels[0].start_ns, 110u);
  p.prefetch_queued_call_ns = 50;
  const Result r = replay(t, options_for(p));
  EXPECT_EQ(r.kernels[0].start_ns, 3334u);
  EXPECT_EQ(r.total.time_ns, 3334u + 1000);
}

// A call on a stream with work pending returns after queued_call_cost (50).
// Two pages written (220); page 0's prefetch holds the host to 220 + 700 +
// 500 + 2024 = 3444; page 1's call finds the stream still looking busy (the
// held call's completion is not seen before a sync): host 3444 + 50 = 3494,
// its migration 3444 + 3224 = 6668 on stream 1; the kernel on stream 2 starts
// at 3494. After a sync the stream is idle again: the CPU rewrites page 0
// (fault 5000 + copy 2024 + 10: 6668 -> 13702) and its prefetch holds the host
// to 13702 + 3224 = 16926, where the second kernel starts.
TEST(AccessCost, PrefetchOnABusyStreamIsQueued) {
  HardwareProfile p = round_profile();
  p.prefetch_call_ns = 700;
  p.prefetch_queued_call_ns = 50;
  const auto t = TraceBuilder()
                     .alloc("A", 8_KiB)
                     .cpu_write("A")
                     .prefetch("A", Processor::gpu(0), 1, 0, 4_KiB)
                     .prefetch("A", Processor::gpu(0), 1, 4_KiB, 4_KiB)
                     .kernel("k", 0, 100, 2).end()
                     .sync()
                     .cpu_write("A", 0, 4_KiB)
                     .prefetch("A", Processor::gpu(0), 1, 0, 4_KiB)
                     .kernel("k2", 0, 100, 2).end()
                     .build();
  const Result r = replay(t, options_for(p));
  ASSERT_EQ(r.kernels.size(), 2u);
  EXPECT_EQ(r.kernels[0].start_ns, 3494u);
  EXPECT_EQ(r.kernels[1].start_ns, 16926u);
  // The queued migration starts when the host issued it (3444), not when the
  // host got back from the queueing (3494): the two calls alone end at 6668.
  const auto two_calls = TraceBuilder()
                             .alloc("A", 8_KiB)
                             .cpu_write("A")
                             .prefetch("A", Processor::gpu(0), 1, 0, 4_KiB)
                             .prefetch("A", Processor::gpu(0), 1, 4_KiB, 4_KiB)
                             .build();
  EXPECT_EQ(replay(two_calls, options_for(p)).total.time_ns, 6668u);
  // A kernel pending on the stream makes it busy too: the call is queued.
  const auto behind_kernel = TraceBuilder()
                                 .alloc("A", 4_KiB)
                                 .cpu_write("A")
                                 .kernel("spin", 0, 5000, 1).end()
                                 .prefetch("A", Processor::gpu(0), 1)
                                 .kernel("k", 0, 100, 2).end()
                                 .build();
  const Result b = replay(behind_kernel, options_for(p));
  EXPECT_EQ(b.kernels[1].start_ns, 110u + 50);
  EXPECT_EQ(b.total.time_ns, 110u + 5000 + 3224);
}

// prefetch.host_va_block_cost 1000: a held call to a GPU returns once the
// driver's host work is done, 1000 a VA block after the call's own costs,
// while its copies go on. W's prefetch is the process's first managed-memory
// work on a GPU: it holds the host to its end, 110 + 700 + 500 + 2024 = 3334,
// as before. The CPU writes A's pages 511 and 512, one in each of two VA
// blocks (3334 + 220 = 3554); their prefetch on the same stream, now idle
// (with the key a call that held to its end leaves no busy look), is held:
// blocks from 3554 + 700 = 4254, block work 500 each (4754, 5254), the copies
// 2024 each queued on the one copy engine (4754 -> 6778 -> 8802). The call
// returns at 4254 + 2 x 1000 = 6254, where the kernel on stream 2 starts.
TEST(AccessCost, HeldPrefetchToAGpuReturnsAfterItsHostWork) {
  HardwareProfile p = round_profile();
  p.prefetch_call_ns = 700;
  p.prefetch_queued_call_ns = 50;
  p.prefetch_host_va_block_ns = 1000;
  enum class Before { kPrefetch, kRecordedPrefetch, kNothing, kDeviceKernel, kFaultingKernel };
  auto two_blocks = [](Before before) {
    TraceBuilder b;
    if (before == Before::kPrefetch || before == Before::kRecordedPrefetch)
      b.alloc("W", 4_KiB).cpu_write("W").prefetch("W", Processor::gpu(0), 1);
    if (before == Before::kRecordedPrefetch) b.record("e", 1);
    if (before == Before::kDeviceKernel)
      b.alloc("D", 4_KiB, trace::AllocKind::kDevice, Processor::gpu(0)).kernel("device", 0, 100, 3).read("D").end().sync();
    if (before == Before::kFaultingKernel) b.alloc("K", 4_KiB).cpu_write("K").kernel("faults", 0, 100, 3).read("K").end().sync();
    return b.phase("pipe")
        .alloc("A", 2_MiB + 4_KiB)
        .cpu_write("A", 2_MiB - 4_KiB, 8_KiB)
        .prefetch("A", Processor::gpu(0), 1, 2_MiB - 4_KiB, 8_KiB)
        .kernel("k", 0, 100, 2).end()
        .build();
  };
  const Result r = replay(two_blocks(Before::kPrefetch), options_for(p));
  EXPECT_EQ(r.kernels[0].start_ns, 6254u);
  EXPECT_EQ(r.total.time_ns, 8802u);
  // An event recorded on the stream takes no time: the next call still finds it idle.
  EXPECT_EQ(replay(two_blocks(Before::kRecordedPrefetch), options_for(p)).kernels[0].start_ns, 6254u);
  // The same call as the process's first managed-memory work on a GPU holds to
  // its end, with the key too; so it does after a kernel that read device
  // memory only (no fault).
  for (const Before before : {Before::kNothing, Before::kDeviceKernel}) {
    const Result first = replay(two_blocks(before), options_for(p));
    EXPECT_EQ(first.kernels.back().start_ns, first.total.time_ns - 100);
  }
  // After a kernel's faults it returns early, 220 (the CPU's writes) + 700 + 2 x
  // 1000 after the phase begins; the copies end 920 + 500 + 2 x 2024 after it.
  const Result after_faults = replay(two_blocks(Before::kFaultingKernel), options_for(p));
  const Nanos pipe = after_faults.phases.back().start_ns;
  EXPECT_EQ(after_faults.kernels.back().start_ns, pipe + 2920);
  EXPECT_EQ(after_faults.total.time_ns, pipe + 5468);
  // So does it in a run that follows others in one process (--warm-fault-service).
  EngineOptions warm = options_for(p);
  warm.warm_fault_service = true;
  const Result warm_first = replay(two_blocks(Before::kNothing), warm);
  EXPECT_EQ(warm_first.kernels[0].start_ns, 2920u);
  EXPECT_EQ(warm_first.total.time_ns, 5468u);
  // Without the key the second call counts as queued behind the first (its
  // completion unseen): the host at 3554 + 50, the migration as before.
  p.prefetch_host_va_block_ns.reset();
  EXPECT_EQ(replay(two_blocks(Before::kPrefetch), options_for(p)).kernels[0].start_ns, 3604u);
}

// prefetch.to_cpu_page_cost 300: the host's work for the pages a prefetch
// moves to the CPU comes before its copies. Two pages to gpu0 and back: the
// way back costs 2 * 300 more (the pages the CPU still holds cost nothing).
TEST(AccessCost, PrefetchToTheCpuPaysPerPageBeforeItsCopies) {
  HardwareProfile p = round_profile();
  const auto t = TraceBuilder()
                     .alloc("A", 12_KiB)
                     .cpu_write("A")
                     .prefetch("A", Processor::gpu(0), 1, 0, 8_KiB).sync()
                     .phase("back").prefetch("A", Processor::cpu(), 1).sync()
                     .build();
  const Nanos plain = replay(t, options_for(p)).phases[1].counters.time_ns;
  p.prefetch_to_cpu_page_ns = 300;
  EXPECT_EQ(replay(t, options_for(p)).phases[1].counters.time_ns, plain + 2 * 300);
}

// Page 0 and page 1 prefetched to gpu0 one right after the other, the CPU
// writes page 1 back, and page 1 is prefetched again (phase 4).
trace::BuiltTrace prefetch_around_a_cpu_write() {
  return TraceBuilder()
      .alloc("A", 8_KiB)
      .cpu_write("A")
      .phase("first").prefetch("A", Processor::gpu(0), 1, 0, 4_KiB).sync()
      .phase("warm").prefetch("A", Processor::gpu(0), 1, 4_KiB, 4_KiB).sync()
      .phase("cpu").cpu_write("A", 4_KiB, 4_KiB)
      .phase("again").prefetch("A", Processor::gpu(0), 1, 4_KiB, 4_KiB).sync()
      .build();
}

// prefetch.cold_call_cost 900 after 5000 ns without a prefetch: the first
// prefetch (of page 0, after the CPU's 2 * 110) starts at 220 + 700 + 900,
// block 500, copy 2024 -> 4344; page 1 right after it: + 700 + 500 + 2024 ->
// 7568; the CPU writes page 1 back (fault 5000 + copy 2024 + 10 -> 14602),
// more than 5000 after the last prefetch: page 1 again pays the cold call ->
// 14602 + 700 + 900 + 500 + 2024 = 18726.
TEST(AccessCost, PrefetchAfterAnIdleStretchPaysTheColdCall) {
  HardwareProfile p = round_profile();
  p.prefetch_call_ns = 700;
  p.prefetch_cold_call_ns = 900;
  p.prefetch_cold_after_ns = 5000;
  const auto t = prefetch_around_a_cpu_write();
  const Result r = replay(t, options_for(p));
  ASSERT_EQ(r.phases.size(), 5u);
  EXPECT_EQ(r.phases[1].counters.time_ns, 700u + 900 + 500 + 2024);
  EXPECT_EQ(r.phases[2].counters.time_ns, 700u + 500 + 2024);
  EXPECT_EQ(r.phases[4].counters.time_ns, 700u + 900 + 500 + 2024);
}

// prefetch.idle_call_cost 300 after 1000 ns without a prefetch, less than
// cold_call_after: the same trace, where the CPU's write-back
// makes a pause of 14602 - 7568 = 7034 ns before the last prefetch. With
// cold_call_after 8000 that pause is idle: 700 + 300 + 500 + 2024; with
// idle_call_after 7035 it is too short for either: 700 + 500 + 2024; at
// exactly 7034 it counts; with cold_call_after 7034 it is cold again.
TEST(AccessCost, PrefetchAfterAShortPausePaysTheIdleCall) {
  HardwareProfile p = round_profile();
  p.prefetch_call_ns = 700;
  p.prefetch_cold_call_ns = 900;
  p.prefetch_cold_after_ns = 8000;
  p.prefetch_idle_call_ns = 300;
  p.prefetch_idle_after_ns = 1000;
  const auto t = prefetch_around_a_cpu_write();
  auto last = [&] {
    const Result r = replay(t, options_for(p));
    EXPECT_EQ(r.phases[1].counters.time_ns, 700u + 900 + 500 + 2024);  // the replay's first: cold
    EXPECT_EQ(r.phases[2].counters.time_ns, 700u + 500 + 2024);
    return r.phases[4].counters.time_ns;
  };
  EXPECT_EQ(last(), 700u + 300 + 500 + 2024);
  p.prefetch_idle_after_ns = 7035;
  EXPECT_EQ(last(), 700u + 500 + 2024);
  p.prefetch_idle_after_ns = 7034;
  EXPECT_EQ(last(), 700u + 300 + 500 + 2024);
  p.prefetch_idle_after_ns = 1000;
  p.prefetch_cold_after_ns = 7034;
  EXPECT_EQ(last(), 700u + 900 + 500 + 2024);
}

// prefetch.first_on_gpu_cost 4000: the first prefetch into an allocation that
// gpu0 never held pays it (A's page 0, the replay's first prefetch, cold too:
// 700 + 900 + 4000 + 500 + 2024), A's next page does not (700 + 500 + 2024),
// B's first page does (700 + 4000 + 500 + 2024). C's page 0 came to gpu0 by a
// kernel's fault: the prefetch of its page 1 does not pay it. A prefetch to
// the CPU never does: its phase takes what it takes without the key.
TEST(AccessCost, PrefetchIntoAnAllocationTheGpuNeverHeldPaysTheFirstMapping) {
  HardwareProfile p = round_profile();
  p.prefetch_call_ns = 700;
  p.prefetch_cold_call_ns = 900;
  p.prefetch_cold_after_ns = 1'000'000'000;
  const auto t = TraceBuilder()
                     .alloc("A", 8_KiB)
                     .alloc("B", 8_KiB)
                     .alloc("C", 8_KiB)
                     .cpu_write("A")
                     .cpu_write("B")
                     .cpu_write("C")
                     .phase("a").prefetch("A", Processor::gpu(0), 1, 0, 4_KiB).sync()
                     .phase("a_next").prefetch("A", Processor::gpu(0), 1, 4_KiB, 4_KiB).sync()
                     .phase("b").prefetch("B", Processor::gpu(0), 1, 0, 4_KiB).sync()
                     .phase("c_fault").kernel("k", 0, 0, 1).read("C", 0, 4_KiB).end().sync()
                     .phase("c").prefetch("C", Processor::gpu(0), 1, 4_KiB, 4_KiB).sync()
                     .phase("back").prefetch("B", Processor::cpu(), 1, 0, 4_KiB).sync()
                     .build();
  const Result without = replay(t, options_for(p));
  p.prefetch_first_on_gpu_ns = 4000;
  const Result r = replay(t, options_for(p));
  ASSERT_EQ(r.phases.size(), 7u);
  EXPECT_EQ(r.phases[1].counters.time_ns, 700u + 900 + 4000 + 500 + 2024);
  EXPECT_EQ(r.phases[2].counters.time_ns, 700u + 500 + 2024);
  EXPECT_EQ(r.phases[3].counters.time_ns, 700u + 4000 + 500 + 2024);
  EXPECT_EQ(r.phases[5].counters.time_ns, 700u + 500 + 2024);
  EXPECT_EQ(r.phases[6].counters.time_ns, without.phases[6].counters.time_ns);
}

// prefetch.first_on_cpu_cost 3000 / next_on_cpu_cost 1000, once per replay;
// to_cpu_va_block_cost 2000 for a block the CPU holds none of,
// to_cpu_held_va_block_cost 300 for one it holds pages of. A, B and C went to
// gpu0 (B's page 1 stays with the CPU). A's page 0 pays the first call and a
// new block (700 + 3000 + 2000 + copy 2024), page 1 the second call and a held
// block (700 + 1000 + 300 + 2024), page 2 a held block (700 + 300 + 2024); B's
// page 0 a held block (700 + 300 + 2024); C's page 0, another allocation's
// first, a new block only (700 + 2000 + 2024). Without the held cost every
// block costs 2000.
TEST(AccessCost, ReplaysFirstPrefetchesToTheCpuAndNewBlocksThereCostMore) {
  HardwareProfile p = round_profile();
  p.prefetch_call_ns = 700;
  p.prefetch_to_cpu_va_block_ns = 2000;
  const auto t = TraceBuilder()
                     .alloc("A", 16_KiB)
                     .alloc("B", 8_KiB)
                     .alloc("C", 8_KiB)
                     .cpu_write("A")
                     .cpu_write("B")
                     .cpu_write("C")
                     .phase("to_gpu")
                     .prefetch("A", Processor::gpu(0), 1)
                     .prefetch("B", Processor::gpu(0), 1, 0, 4_KiB)
                     .prefetch("C", Processor::gpu(0), 1)
                     .sync()
                     .phase("first").prefetch("A", Processor::cpu(), 1, 0, 4_KiB).sync()
                     .phase("next").prefetch("A", Processor::cpu(), 1, 4_KiB, 4_KiB).sync()
                     .phase("third").prefetch("A", Processor::cpu(), 1, 8_KiB, 4_KiB).sync()
                     .phase("b").prefetch("B", Processor::cpu(), 1, 0, 4_KiB).sync()
                     .phase("c").prefetch("C", Processor::cpu(), 1, 0, 4_KiB).sync()
                     .build();
  const Result plain = replay(t, options_for(p));
  EXPECT_EQ(plain.phases[2].counters.time_ns, 700u + 2000 + 2024);
  EXPECT_EQ(plain.phases[3].counters.time_ns, 700u + 2000 + 2024);
  p.prefetch_first_on_cpu_ns = 3000;
  p.prefetch_next_on_cpu_ns = 1000;
  p.prefetch_to_cpu_held_va_block_ns = 300;
  const Result r = replay(t, options_for(p));
  ASSERT_EQ(r.phases.size(), 7u);
  EXPECT_EQ(r.phases[2].counters.time_ns, 700u + 3000 + 2000 + 2024);
  EXPECT_EQ(r.phases[3].counters.time_ns, 700u + 1000 + 300 + 2024);
  EXPECT_EQ(r.phases[4].counters.time_ns, 700u + 300 + 2024);
  EXPECT_EQ(r.phases[5].counters.time_ns, 700u + 300 + 2024);
  EXPECT_EQ(r.phases[6].counters.time_ns, 700u + 2000 + 2024);
}

// gpu.launch_cost 5000: an empty kernel with 1000 ns of compute takes 6000.
TEST(AccessCost, KernelLaunchHasAFixedCost) {
  HardwareProfile p = round_profile();
  p.gpu_launch_ns = 5000;
  const auto t = TraceBuilder().kernel("k", 0, 1000).end().build();
  const Result r = replay(t, options_for(p));
  EXPECT_EQ(r.kernels[0].counters.time_ns, 6000u);
  EXPECT_EQ(r.kernels[0].counters.stall_ns, 0u);
}

// CPU touches by 64-byte line: page write 630, one line 0, so L lines cost
// 10 * (L - 1). Two pages written whole at first touch: 2 * (100 + 630);
// one word per page: 2 * 0; 128 bytes (2 lines): 10.
TEST(AccessCost, CpuTouchesCostByCacheLine) {
  HardwareProfile p = round_profile();
  p.cpu_access_ns = 630;
  p.cpu_word_write_ns = 0;
  const auto t = TraceBuilder()
                     .alloc("A", 8_KiB)
                     .cpu_write("A")
                     .cpu_write("A", 0, TraceBuilder::kWhole, 4_KiB)
                     .cpu_write("A", 0, 128)
                     .build();
  EXPECT_EQ(replay(t, options_for(p)).total.time_ns, 2u * (100 + 630) + 10);
}

// A page the CPU's own fault just migrated in costs the faulted-page cost
// (200 ns read, 300 ns written) instead of a resident page's (600 / 700): A's
// two pages come back by CPU faults and are read whole (2 * (600 - 200) less
// than without the keys), one word per page after the next round trip (50
// either way), then written whole after the third (2 * (700 - 300) less). B,
// which never left the CPU, costs a resident page's read in every case.
TEST(AccessCost, PagesACpuFaultMigratedInCostTheFaultedPageRate) {
  const auto round_trip = [](TraceBuilder& b, const char* name) -> TraceBuilder& {
    return b.kernel(name, 0, 1).read("A").end().sync().phase(name);
  };
  TraceBuilder b;
  b.alloc("A", 8_KiB).alloc("B", 4_KiB).cpu_write("A").cpu_write("B");
  round_trip(b, "pages_read").cpu_read("A").cpu_read("B");
  round_trip(b, "words_read").cpu_read("A", 0, TraceBuilder::kWhole, 4_KiB).cpu_read("B");
  round_trip(b, "pages_written").cpu_write("A").cpu_read("B");
  const auto t = b.build();
  HardwareProfile p = round_profile();
  p.cpu_read_ns = 600;
  p.cpu_word_read_ns = 50;
  p.cpu_access_ns = 700;
  const Result without = replay(t, options_for(p));
  p.cpu_faulted_read_ns = 200;
  p.cpu_faulted_write_ns = 300;
  const Result with = replay(t, options_for(p));
  ASSERT_EQ(with.phases.size(), 4u);
  ASSERT_EQ(without.phases.size(), 4u);
  EXPECT_EQ(with.phases[1].counters.cpu_faults, without.phases[1].counters.cpu_faults);
  EXPECT_GT(with.phases[1].counters.cpu_faults, 0u);
  EXPECT_EQ(without.phases[1].counters.time_ns - with.phases[1].counters.time_ns, 2u * (600 - 200));
  EXPECT_EQ(without.phases[2].counters.time_ns, with.phases[2].counters.time_ns);
  EXPECT_EQ(without.phases[3].counters.time_ns - with.phases[3].counters.time_ns, 2u * (700 - 300));
}

}  // namespace
}  // namespace umsim::sim
