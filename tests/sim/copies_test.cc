// Explicit copies, memsets, peer access per GPU pair and read-modify-write
// accesses (format version 2): hand-computed timings under round_profile()
// with pinned copies at 4 GB/s, pageable at 2 GB/s and device memory at 2 GB/s.
#include <gtest/gtest.h>

#include "tests/sim/sim_test_util.h"
#include "traces/trace_builder.h"

namespace umsim::sim {
namespace {

using namespace trace::literals;
using testing::options_for;
using testing::replay;
using testing::round_profile;
using trace::AllocKind;
using trace::CopyKind;
using trace::Issue;
using trace::Processor;
using trace::TraceBuilder;

HardwareProfile copy_profile(int gpus = 1) {
  HardwareProfile p = round_profile(gpus);
  p.pinned_copy_gbps = 4.0;
  p.pageable_copy_gbps = 2.0;
  p.gpu_access_gbps = 2.0;
  return p;
}

TraceBuilder with_device(Bytes bytes = 4_MiB) {
  TraceBuilder b;
  b.alloc("D", bytes, AllocKind::kDevice, Processor::gpu(0));
  return b;
}

// Pinned: link latency 1000 + 4 MiB / 4 GB/s = 1000 + 1048576.
TEST(Copies, PinnedHostToDevice) {
  const auto t = with_device().copy_host(CopyKind::kFromPinnedHost, "D", 0, 4_MiB).build();
  EXPECT_EQ(replay(t, options_for(copy_profile())).total.time_ns, 1049576u);
}

// Pageable: 1000 + 4 MiB / 2 GB/s = 1000 + 2097152, either direction.
TEST(Copies, PageableBothDirections) {
  const auto up = with_device().copy_host(CopyKind::kFromPageableHost, "D", 0, 4_MiB).build();
  EXPECT_EQ(replay(up, options_for(copy_profile())).total.time_ns, 2098152u);
  const auto down = with_device().copy_host(CopyKind::kToPageableHost, "D", 0, 4_MiB).build();
  EXPECT_EQ(replay(down, options_for(copy_profile())).total.time_ns, 2098152u);
}

// Pageable downloads at their own bandwidth (1 GB/s: 1000 + 4194304) and a
// fixed call cost per copy and memset (500 ns): two uploads 2 x (500 + 1000 +
// 2097152), the download 500 + 1000 + 4194304, a 4 MiB memset of device memory
// 500 + 2097152.
TEST(Copies, PageableDownloadBandwidthAndCallCost) {
  HardwareProfile p = copy_profile();
  p.pageable_to_host_copy_gbps = 1.0;
  p.copy_call_ns = 500;
  const auto t = with_device()
                     .copy_host(CopyKind::kFromPageableHost, "D", 0, 4_MiB)
                     .copy_host(CopyKind::kFromPageableHost, "D", 0, 4_MiB)
                     .copy_host(CopyKind::kToPageableHost, "D", 0, 4_MiB)
                     .memset("D", 0, 4_MiB)
                     .build();
  EXPECT_EQ(replay(t, options_for(p)).total.time_ns, 2 * (500u + 1000u + 2097152u) + (500u + 1000u + 4194304u) +
                                                          (500u + 2097152u));
}

// host.pageable_to_host_call_cost 700: a copy into pageable host memory pays
// it beyond the call cost (500 + 700 + 1000 + 4194304); one from pageable
// memory and one into pinned memory do not (500 + 1000 + 2097152, 500 + 1000 +
// 4 MiB / 4 GB/s = 1048576).
TEST(Copies, PageableDownloadsPayTheStaging) {
  HardwareProfile p = copy_profile();
  p.pageable_to_host_copy_gbps = 1.0;
  p.copy_call_ns = 500;
  p.pageable_to_host_call_ns = 700;
  const auto t = with_device()
                     .copy_host(CopyKind::kToPageableHost, "D", 0, 4_MiB)
                     .copy_host(CopyKind::kFromPageableHost, "D", 0, 4_MiB)
                     .copy_host(CopyKind::kToPinnedHost, "D", 0, 4_MiB)
                     .build();
  EXPECT_EQ(replay(t, options_for(p)).total.time_ns,
            (500u + 700u + 1000u + 4194304u) + (500u + 1000u + 2097152u) + (500u + 1000u + 1048576u));
}

// host.pageable_cached_copy_gbps 4, pageable_cache_bytes 8 MiB: every pageable
// copy reads or writes the start of one host buffer, and an upload's bytes
// that an earlier copy left in the cache move at 4 GB/s, the rest at 2. Each
// copy 1000 + its bytes: 4 MiB cold 2097152; again, cached 1048576; 1 MiB of
// it 262144; 8 MiB, half cached 1048576 + 2097152; 16 MiB, the 8 cached
// 2097152 + 4194304, but it streams through the cache, so the last 4 MiB find
// nothing: 2097152.
HardwareProfile cached_upload_profile() {
  HardwareProfile p = copy_profile();
  p.pageable_cached_copy_gbps = 4.0;
  p.pageable_cache_bytes = 8_MiB;
  return p;
}

std::vector<Nanos> phase_times(const Result& r) {
  std::vector<Nanos> t;
  for (const ScopeResult& s : r.phases)
    if (s.name != "main") t.push_back(s.counters.time_ns);
  return t;
}

TEST(Copies, PageableUploadsFromTheCachedBuffer) {
  auto b = with_device(16_MiB);
  for (Bytes bytes : {4_MiB, 4_MiB, 1_MiB, 8_MiB, 16_MiB, 4_MiB})
    b.phase("up").copy_host(CopyKind::kFromPageableHost, "D", 0, bytes);
  const Result r = replay(b.build(), options_for(cached_upload_profile()));
  EXPECT_EQ(phase_times(r), (std::vector<Nanos>{1000 + 2097152, 1000 + 1048576, 1000 + 262144,
                                                1000 + 1048576 + 2097152, 1000 + 2097152 + 4194304,
                                                1000 + 2097152}));
}

// host.pageable_warming_share 0.5: bytes copied once before pay half of what
// the memory's speed costs beyond the cache's. Three 4 MiB uploads: cold 1000 +
// 2097152; copied once, 1048576 + 0.5 x (2097152 - 1048576) = 1572864; copied
// twice, 1048576. Then 8 MiB: its first 4 MiB copied three times (1048576),
// the rest cold (2097152); 8 MiB again: the first 4 MiB cached, the next 4
// copied once (1048576 + 524288 + 1048576 = 2621440).
TEST(Copies, PageableUploadsWarmOverTwoCopies) {
  auto b = with_device(16_MiB);
  for (Bytes bytes : {4_MiB, 4_MiB, 4_MiB, 8_MiB, 8_MiB})
    b.phase("up").copy_host(CopyKind::kFromPageableHost, "D", 0, bytes);
  HardwareProfile p = cached_upload_profile();
  p.pageable_warming_share = 0.5;
  EXPECT_EQ(phase_times(replay(b.build(), options_for(p))),
            (std::vector<Nanos>{1000 + 2097152, 1000 + 1572864, 1000 + 1048576, 1000 + 1048576 + 2097152,
                                1000 + 2621440}));
  // A share of 1: a second copy as slow as a cold one; 0: as fast as a cached one.
  p.pageable_warming_share = 1;
  EXPECT_EQ(phase_times(replay(b.build(), options_for(p)))[1], 1000u + 2097152u);
  p.pageable_warming_share = 0;
  EXPECT_EQ(phase_times(replay(b.build(), options_for(p)))[1], 1000u + 1048576u);
}

// A download writes the buffer's start (it stays at the pageable speed, 1000 +
// 2097152), so the upload after it finds its 4 MiB cached (1000 + 1048576);
// pinned copies use another buffer and leave it as it was. Without the two
// keys, every pageable upload is at the memory's speed.
TEST(Copies, PageableDownloadsLeaveTheBufferCached) {
  const auto t = with_device()
                     .phase("down").copy_host(CopyKind::kToPageableHost, "D", 0, 4_MiB)
                     .phase("pinned").copy_host(CopyKind::kFromPinnedHost, "D", 0, 4_MiB)
                     .phase("up").copy_host(CopyKind::kFromPageableHost, "D", 0, 4_MiB)
                     .build();
  EXPECT_EQ(phase_times(replay(t, options_for(cached_upload_profile()))),
            (std::vector<Nanos>{1000 + 2097152, 1000 + 1048576, 1000 + 1048576}));
  EXPECT_EQ(phase_times(replay(t, options_for(copy_profile()))),
            (std::vector<Nanos>{1000 + 2097152, 1000 + 1048576, 1000 + 2097152}));
}

// The CPU's own accesses take the cache's room: after a 4 MiB upload, a CPU
// write of 6 MiB of other memory leaves 8 - 6 = 2 MiB of the buffer cached, so
// the next 4 MiB upload moves 2 MiB at 4 GB/s and 2 at 2 (1000 + 524288 +
// 1048576); a CPU read of one word per page of 4 MiB touches 1,024 lines of
// 64 B, 64 KiB, and leaves the 4 MiB just copied cached (1000 + 1048576).
TEST(Copies, CpuAccessesTakeTheCachesRoom) {
  const auto t = with_device()
                     .alloc("H", 8_MiB, AllocKind::kManaged)
                     .phase("first").copy_host(CopyKind::kFromPageableHost, "D", 0, 4_MiB)
                     .cpu_write("H", 0, 6_MiB)
                     .phase("after_cpu").copy_host(CopyKind::kFromPageableHost, "D", 0, 4_MiB)
                     .cpu_read("H", 0, 4_MiB, 4_KiB)
                     .phase("after_words").copy_host(CopyKind::kFromPageableHost, "D", 0, 4_MiB)
                     .build();
  const Result r = replay(t, options_for(cached_upload_profile()));
  ASSERT_EQ(r.phases.size(), 4u);
  // Each phase holds its copy and then the CPU's accesses: the copy is what is
  // left after the accesses' own time, which the same trace without the cache shows.
  const Result plain = replay(t, options_for(copy_profile()));
  EXPECT_EQ(plain.phases[1].counters.time_ns - r.phases[1].counters.time_ns, 0u);  // cold either way
  EXPECT_EQ(plain.phases[2].counters.time_ns - r.phases[2].counters.time_ns, 2097152u - (524288u + 1048576u));
  EXPECT_EQ(plain.phases[3].counters.time_ns - r.phases[3].counters.time_ns, 2097152u - 1048576u);
}

// A synchronous copy holds the host; an asynchronous one only its stream: the
// pageable 4 KiB copy (1000 + 2048) starts at once beside the 4 MiB upload on
// stream 1, so a kernel on stream 2 starts at 3048; the total waits for both.
TEST(Copies, AsyncCopiesRunOnTheirStream) {
  auto b = with_device();
  b.copy_host(CopyKind::kFromPinnedHost, "D", 0, 4_MiB, Issue{0, 1, true})
      .copy_host(CopyKind::kToPageableHost, "D", 0, 4_KiB, Issue{0, 2, false})
      .kernel("k", 0, 0, 2)
      .end();
  const Result r = replay(b.build(), options_for(copy_profile()));
  EXPECT_EQ(r.kernels[0].start_ns, 3048u);
  EXPECT_EQ(r.total.time_ns, 1049576u);
  // A synchronous copy on stream 1 waits for the stream's earlier work.
  auto c = with_device();
  c.copy_host(CopyKind::kFromPinnedHost, "D", 0, 4_MiB, Issue{0, 1, true})
      .copy_host(CopyKind::kToPageableHost, "D", 0, 4_KiB, Issue{0, 1, false});
  EXPECT_EQ(replay(c.build(), options_for(copy_profile())).total.time_ns, 1049576u + 3048u);
}

// Device to device on one GPU: every byte read and written at 2 GB/s: 2 x 2097152.
TEST(Copies, DeviceToDeviceAtDeviceBandwidth) {
  auto b = with_device();
  b.alloc("E", 4_MiB, AllocKind::kDevice, Processor::gpu(0)).copy("E", 0, "D", 0, 4_MiB);
  EXPECT_EQ(replay(b.build(), options_for(copy_profile())).total.time_ns, 4194304u);
}

// Between GPUs: over the peer link (1000 + 4 MiB / 8 GB/s) once the trace
// enables the pair; staged through the host (two host-link copies) before.
TEST(Copies, PeerCopiesFollowPeerEnable) {
  auto staged = with_device();
  staged.alloc("E", 4_MiB, AllocKind::kDevice, Processor::gpu(1)).copy("E", 0, "D", 0, 4_MiB);
  EXPECT_EQ(replay(staged.build(), options_for(copy_profile(2))).total.time_ns, 2u * (1000 + 1048576));
  auto peer = with_device();
  peer.alloc("E", 4_MiB, AllocKind::kDevice, Processor::gpu(1)).peer_enable(0, 1).copy("E", 0, "D", 0, 4_MiB);
  EXPECT_EQ(replay(peer.build(), options_for(copy_profile(2))).total.time_ns, 1000u + 524288u);
  // A profile whose GPUs cannot reach each other refuses the statement.
  HardwareProfile no_peers = copy_profile(2);
  no_peers.peer_access = false;
  auto refused = TraceBuilder().peer_enable(0, 1).build();
  EXPECT_THROW(replay(refused, options_for(no_peers)), SimulationError);
}

// Into CPU-resident managed memory: the range migrates to the copy's GPU first
// (prefetch block cost 500 + one 2 MiB run 1000 + 524288), then the copy
// (1000 + 524288). The CPU's first touch took 512 x 110 = 56320 before.
TEST(Copies, CopyIntoManagedMemoryMigratesItToTheCopysGpu) {
  const auto t = TraceBuilder()
                     .alloc("A", 2_MiB)
                     .cpu_write("A")
                     .copy_host(CopyKind::kFromPinnedHost, "A", 0, 2_MiB)
                     .kernel("k", 0, 0)
                     .read("A")
                     .end()
                     .build();
  const Result r = replay(t, options_for(copy_profile()));
  EXPECT_EQ(r.kernels[0].start_ns, 56320u + 500 + 525288 + 525288);
  EXPECT_EQ(r.kernels[0].counters.gpu_faults, 0u);  // resident: no fault
  EXPECT_EQ(r.total.bytes_h2d, 2_MiB);
}

// A memset of managed memory is the runtime's fill kernel writing the range,
// faulting as a kernel does: 2 MiB resident nowhere is 512 page faults in one
// VA block, two batches of 256 (batch 10000 + block 2000 + 256 x 100 = 37600
// each), populated on the GPU with no copy, then 2 MiB written at 2 GB/s
// (1048576). The faults count in the memset's phase, not as a kernel; the
// trace's kernel then hits.
TEST(Copies, MemsetOfManagedMemoryFaultsLikeAKernel) {
  const auto t = TraceBuilder()
                     .phase("memset")
                     .alloc("A", 2_MiB)
                     .memset("A")
                     .phase("kernel")
                     .kernel("k", 0, 0)
                     .write("A")
                     .end()
                     .build();
  const Result r = replay(t, options_for(copy_profile()));
  EXPECT_EQ(r.total.bytes_h2d, 0u);
  ASSERT_EQ(r.kernels.size(), 1u);
  EXPECT_EQ(r.kernels[0].counters.gpu_faults, 0u);
  EXPECT_EQ(r.kernels[0].start_ns, 2 * 37600u + 1048576u);
  ASSERT_EQ(r.phases.size(), 2u);
  EXPECT_EQ(r.phases[0].name, "memset");
  EXPECT_EQ(r.phases[0].counters.gpu_faults, 512u);
  EXPECT_EQ(r.phases[0].counters.fault_batches, 2u);
  EXPECT_EQ(r.phases[0].counters.accesses, 0u);  // the trace's own accesses only
  EXPECT_EQ(r.phases[0].counters.time_ns, 2 * 37600u + 1048576u);
}

// gpu.fill_lanes: the fill kernel sweeps its range in that many slices, a trace
// kernel in gpu.access_lanes (1 here). 8 MiB fresh, 2048 faulted pages in 8
// batches of 256, each batch 10000 + 256 x 100 plus 2000 per VA block it
// touches, and 8 MiB written at 2 GB/s (4194304). One lane: each batch in one
// block, 8 x 37600 + 4194304 = 4495104; two: slices of 1024 pages, each batch
// 128 pages of block b and 128 of block b + 2, 8 x 39600 + 4194304 = 4511104.
// The kernel after it writes another fresh 8 MiB in one lane: 4495104.
TEST(Copies, ManagedMemsetSweepsTheFillLanes) {
  const auto t = TraceBuilder()
                     .phase("memset")
                     .alloc("A", 8_MiB)
                     .memset("A")
                     .phase("kernel")
                     .alloc("B", 8_MiB)
                     .kernel("k", 0, 0)
                     .write("B")
                     .end()
                     .build();
  HardwareProfile p = copy_profile();
  const Result plain = replay(t, options_for(p));
  ASSERT_EQ(plain.phases.size(), 2u);
  EXPECT_EQ(plain.phases[0].counters.time_ns, 4495104u);
  p.gpu_fill_lanes = 2;
  const Result two = replay(t, options_for(p));
  ASSERT_EQ(two.phases.size(), 2u);
  EXPECT_EQ(two.phases[0].counters.gpu_faults, 2048u);
  EXPECT_EQ(two.phases[0].counters.fault_batches, 8u);
  EXPECT_EQ(two.phases[0].counters.time_ns, 4511104u);
  ASSERT_EQ(two.kernels.size(), 1u);
  EXPECT_EQ(two.kernels[0].counters.time_ns, 4495104u);
  EXPECT_EQ(two.kernels[0].counters.fault_batches, 8u);
}

// After a managed memset the next kernel's launch takes host.launch_after_memset_cost
// (here 300000 ns) before the kernel starts: its phase carries it, its own time
// does not, and the kernel after it pays nothing. The memset ends at 1123776
// (above); k1 starts 300000 later and writes the resident 2 MiB (1048576), k2
// follows at once: the phase takes 300000 + 2 x 1048576. Without the key k1
// starts when the memset ends.
TEST(Copies, FirstLaunchAfterAManagedMemsetPaysItsHostCost) {
  const auto t = TraceBuilder()
                     .alloc("A", 2_MiB)
                     .phase("memset")
                     .memset("A")
                     .phase("kernels")
                     .kernel("k1", 0, 0)
                     .write("A")
                     .end()
                     .kernel("k2", 0, 0)
                     .write("A")
                     .end()
                     .sync()
                     .build();
  HardwareProfile p = copy_profile();
  p.launch_after_memset_ns = 300000;
  const Result r = replay(t, options_for(p));
  ASSERT_EQ(r.kernels.size(), 2u);
  ASSERT_EQ(r.phases.size(), 3u);
  const Nanos memset_end = 2 * 37600u + 1048576u;
  EXPECT_EQ(r.phases[1].counters.time_ns, memset_end);
  EXPECT_EQ(r.kernels[0].start_ns, memset_end + 300000);
  EXPECT_EQ(r.kernels[0].counters.time_ns, 1048576u);
  EXPECT_EQ(r.kernels[1].start_ns, memset_end + 300000 + 1048576);
  EXPECT_EQ(r.kernels[1].counters.time_ns, 1048576u);
  EXPECT_EQ(r.phases[2].counters.time_ns, 300000u + 2 * 1048576u);
  EngineOptions in_issue_order = options_for(p);  // the engine without the stream timeline
  in_issue_order.issue_order = true;
  const Result ordered = replay(t, in_issue_order);
  EXPECT_EQ(ordered.kernels[0].start_ns, memset_end + 300000);
  EXPECT_EQ(ordered.phases[2].counters.time_ns, 300000u + 2 * 1048576u);
  const Result without = replay(t, options_for(copy_profile()));
  EXPECT_EQ(without.kernels[0].start_ns, memset_end);
  EXPECT_EQ(without.phases[2].counters.time_ns, 2 * 1048576u);
}

// With launch gaps (host.launch_gap 2000 ns), a kernel launched on another
// stream right after the first launch after a memset does not reach the GPU
// before it: both start 300000 after the memset ends.
TEST(Copies, ALaunchDoesNotOvertakeTheFirstAfterAMemset) {
  const auto t = TraceBuilder()
                     .alloc("A", 2_MiB)
                     .alloc("B", 2_MiB)
                     .memset("A")
                     .phase("kernels")
                     .kernel("k1", 0, 0, 1)
                     .write("A")
                     .end()
                     .kernel("k2", 0, 0, 2)
                     .write("B")
                     .end()
                     .sync()
                     .build();
  HardwareProfile p = copy_profile();
  p.launch_after_memset_ns = 300000;
  p.launch_gap_ns = 2000;
  const Result r = replay(t, options_for(p));
  ASSERT_EQ(r.kernels.size(), 2u);
  const Nanos memset_end = 2 * 37600u + 1048576u;
  EXPECT_EQ(r.kernels[0].start_ns, memset_end + 300000);
  EXPECT_EQ(r.kernels[1].start_ns, memset_end + 300000);
}

// Managed pages the CPU holds migrate to the fill kernel's GPU on its faults
// (one batch: 10000 + 2000 + 16 x 100 = 13600, then the 64 KiB copy: 1000
// latency + 65536 / 4 GB/s = 17384) and are then written at 2 GB/s (32768).
TEST(Copies, MemsetOfCpuHeldManagedMemoryMigratesItByFaults) {
  const auto t = TraceBuilder().alloc("A", 64_KiB).cpu_write("A").phase("memset").memset("A").build();
  const Result r = replay(t, options_for(copy_profile()));
  ASSERT_EQ(r.phases.size(), 2u);
  EXPECT_EQ(r.phases[1].counters.time_ns, 13600u + 17384u + 32768u);
  EXPECT_EQ(r.total.bytes_h2d, 64_KiB);
  EXPECT_EQ(r.total.gpu_faults, 16u);
  EXPECT_EQ(r.total.fault_batches, 1u);
}

// Read-modify-write of a ReadMostly page held by the CPU: the load faults and
// duplicates it (batch 10000 + duplicate block 2000 + page 100 + copy 2024),
// the store faults again and collapses the CPU's copy (10000 + 2000 + 100, no
// copy); the load and the store each touch the resident page (4 KiB / 2 GB/s).
TEST(ReadModifyWrite, ReadFaultThenWriteUpgradeCollapsesDuplicates) {
  const auto t = TraceBuilder()
                     .alloc("A", 4_KiB)
                     .cpu_write("A")
                     .advise("A", trace::Advice::kSetReadMostly)
                     .kernel("k", 0, 0)
                     .read_modify_write("A")
                     .end()
                     .build();
  const Result r = replay(t, options_for(copy_profile()));
  const Counters& k = r.kernels[0].counters;
  EXPECT_EQ(k.fault_batches, 2u);
  EXPECT_EQ(k.gpu_faults, 2u);
  EXPECT_EQ(k.bytes_h2d, 4096u);
  EXPECT_EQ(k.time_ns, 14124u + 12100u + 2 * 2048u);
}

// Without ReadMostly the load's fault moves the page for good: the store hits
// (one batch, and the two resident touches).
TEST(ReadModifyWrite, PlainPagesFaultOnce) {
  const auto t =
      TraceBuilder().alloc("A", 4_KiB).cpu_write("A").kernel("k", 0, 0).read_modify_write("A").end().build();
  const Result r = replay(t, options_for(copy_profile()));
  EXPECT_EQ(r.kernels[0].counters.fault_batches, 1u);
  EXPECT_EQ(r.kernels[0].counters.time_ns, 14124u + 2 * 2048u);
}

}  // namespace
}  // namespace umsim::sim
