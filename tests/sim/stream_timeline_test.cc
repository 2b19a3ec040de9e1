// Streams on one timeline (sim/stream_scheduler.cc): hand-computed timings of
// kernels that overlap on two streams, under round_profile() (numbers in
// sim_test_util.h), and the engine's behaviour on every committed trace.
#include <algorithm>
#include <filesystem>
#include <set>

#include <gtest/gtest.h>

#include "tests/sim/sim_test_util.h"
#include "tools/replay_setup.h"
#include "traces/trace_builder.h"
#include "traces/trace_reader.h"

namespace umsim::sim {
namespace {

using namespace trace::literals;
using testing::options_for;
using testing::replay;
using testing::round_profile;
using trace::Processor;
using trace::TraceBuilder;

// Two kernels on two streams of one GPU start together (host 2 x 110 = 220)
// and fault one page each, in different VA blocks: both entries land in one
// batch, serviced once: 220 + batch 10000 + (block 2000 + page 100 + copy
// 1000 + 4096/4) x 2 = 18468; both end 1000 later. Applied one after the
// other they took two batches (the second kernel ended at 29468).
TEST(StreamTimeline, ConcurrentKernelsShareTheGpusFaultBatch) {
  const auto t = TraceBuilder()
                     .alloc("A", 4_KiB)
                     .alloc("B", 4_KiB)
                     .cpu_write("A")
                     .cpu_write("B")
                     .kernel("k1", 0, 1000, 1)
                     .read("A")
                     .end()
                     .kernel("k2", 0, 1000, 2)
                     .read("B")
                     .end()
                     .sync()
                     .build();
  const Result r = replay(t, options_for(round_profile()));
  ASSERT_EQ(r.kernels.size(), 2u);
  for (const ScopeResult& k : r.kernels) {
    EXPECT_EQ(k.start_ns, 220u);
    EXPECT_EQ(k.counters.time_ns, 18468u + 1000 - 220);
    EXPECT_EQ(k.counters.gpu_faults, 1u);
  }
  EXPECT_EQ(r.kernels[0].counters.fault_batches + r.kernels[1].counters.fault_batches, 1u);
  EXPECT_EQ(r.total.time_ns, 19468u);

  EngineOptions old = options_for(round_profile());
  old.issue_order = true;
  const Result sequential = replay(t, old);
  EXPECT_EQ(sequential.total.time_ns, 29468u);
  EXPECT_EQ(sequential.kernels[1].counters.fault_batches, 1u);
}

// With other streams beside it a range access replays a lane step (here, one
// lane: 32 pages) at a time. Two kernels on two streams of one GPU start
// together, after the CPU wrote their 2 x 64 pages (64 x (100 + 10) x 2 =
// 14080), and each read the 64 pages of its own allocation; accesses take
// 1000 ns each (4.096 GB/s), batches hold 64 faults. k1's first 32 touches put
// it 32000 ahead, past k2, whose first 32 fill the batch: one service of 32
// pages in each of two VA blocks, 10000 + 2 x (2000 + 32 x 100 + copy 1000 +
// 32 x 4096 / 4) = 87936 after the start, for both. Their second halves fill
// the second batch the same way (175872); each kernel ends after its 64
// accesses: 239872 after its start. Replayed whole (each range at once), k1
// would have serviced its 64 pages alone and ended at 84936 + 64000 = 148936
// after the start, and k2's batch would have waited for that service
// (169872 + 64000 = 233872).
TEST(StreamTimeline, RangeAccessesOfConcurrentKernelsInterleaveByLaneSteps) {
  const auto t = TraceBuilder()
                     .alloc("A", 256_KiB)
                     .alloc("B", 256_KiB)
                     .cpu_write("A")
                     .cpu_write("B")
                     .kernel("k1", 0, 0, 1)
                     .read("A")
                     .end()
                     .kernel("k2", 0, 0, 2)
                     .read("B")
                     .end()
                     .sync()
                     .build();
  HardwareProfile p = round_profile();
  p.fault_batch_size = p.fault_concurrency = 64;
  p.gpu_access_gbps = 4.096;
  const Result r = replay(t, options_for(p));
  ASSERT_EQ(r.kernels.size(), 2u);
  for (const ScopeResult& k : r.kernels) {
    EXPECT_EQ(k.start_ns, 14080u);
    EXPECT_EQ(k.counters.time_ns, 239872u);
    EXPECT_EQ(k.counters.gpu_faults, 64u);
  }
  EXPECT_EQ(r.kernels[0].counters.fault_batches + r.kernels[1].counters.fault_batches, 2u);
  EXPECT_EQ(r.total.time_ns, 14080u + 239872);
}

// While its GPU services another kernel's faults, a kernel's accesses wait,
// hits included (on the H200 a kernel reading resident pages beside a faulting
// kernel ends with it: hip_backend/results/h200-pcie5/diag_concurrent_kernels).
// "hot" reads 256 pages made resident by an earlier kernel, one access each
// (1000 ns at 4.096 GB/s): alone it takes 256000 + its 1000 compute. Beside
// "cold", which faults 256 pages in from the host in batches of 32 (each
// service 10000 + 2000 + 32 x 100 + copy 1000 + 32 x 1024 = 49968), hot goes
// on by one part (a lane step: 32 touches) between two of cold's services, so
// it ends only after cold's last service.
TEST(StreamTimeline, HitsWaitWhileTheGpuServicesAnotherKernelsFaults) {
  auto trace = [](bool beside) {
    TraceBuilder b;
    b.alloc("H", 1_MiB).alloc("C", 1_MiB).cpu_write("C").kernel("warm", 0, 0, 2).read("H").end().sync();
    if (beside) b.kernel("cold", 0, 0, 1).read("C").end();
    return b.kernel("hot", 0, 1000, 2).read("H").end().sync().build();
  };
  HardwareProfile p = round_profile();
  p.fault_batch_size = p.fault_concurrency = 32;
  p.gpu_access_gbps = 4.096;
  const Result alone = replay(trace(false), options_for(p));
  const Result both = replay(trace(true), options_for(p));
  ASSERT_EQ(alone.kernels.size(), 2u);
  ASSERT_EQ(both.kernels.size(), 3u);
  const ScopeResult& hot_alone = alone.kernels[1];
  const ScopeResult& cold = both.kernels[1];
  const ScopeResult& hot = both.kernels[2];
  ASSERT_EQ(hot.name, "hot");
  EXPECT_EQ(hot_alone.counters.time_ns, 257000u);
  EXPECT_EQ(hot.counters.gpu_faults, 0u);
  EXPECT_EQ(cold.counters.fault_batches, 8u);
  // Hot's accesses go on only between cold's services: it ends after cold's
  // last service began, and far later than alone.
  EXPECT_GE(hot.start_ns + hot.counters.time_ns, cold.start_ns + 8 * 49968);
  EXPECT_GE(hot.counters.time_ns, hot_alone.counters.time_ns + 7 * 49968);
}

// Hits wait for data in flight to their own GPU only: gpu0 hits its resident
// page 0 of a VA block while gpu1 faults page 1 of the same block in from the
// host; gpu0's kernel takes what it takes alone (the block's in-flight data is
// gpu1's).
TEST(StreamTimeline, HitsDoNotWaitForAnotherGpusMigrationInTheSameBlock) {
  auto trace = [](bool beside) {
    TraceBuilder b;
    b.alloc("X", 8_KiB).alloc("Y", 32_KiB).cpu_write("X");
    b.kernel("warm", 0, 0, 1).read("X", 0, 4_KiB).read("Y").end().sync();
    if (beside) b.kernel("other", 1, 0, 2).read("X", 4_KiB, 4_KiB).end();
    return b.kernel("hits", 0, 0, 1).read("Y").read("X", 0, 4_KiB).end().sync().build();
  };
  HardwareProfile p = round_profile(2);
  p.gpu_access_gbps = 4.096;
  const Result alone = replay(trace(false), options_for(p));
  const Result both = replay(trace(true), options_for(p));
  ASSERT_EQ(both.kernels.size(), 3u);
  const ScopeResult& other = both.kernels[1];
  const ScopeResult& hits = both.kernels[2];
  EXPECT_EQ(other.counters.gpu_faults, 1u);
  EXPECT_EQ(hits.counters.gpu_faults, 0u);
  // gpu1's page lands after gpu0's kernel has touched page 0 (9000 ns in).
  EXPECT_GT(other.start_ns + other.counters.stall_ns, hits.start_ns + 9000);
  EXPECT_EQ(hits.counters.time_ns, alone.kernels[1].counters.time_ns);
  EXPECT_EQ(hits.counters.time_ns, 9000u);
}

// A page another GPU takes from a GPU whose kernel runs counts as read by
// that kernel (sim/fault_service.cc, note_served_pages): on the hardware its
// warps had all their accesses in flight when it started. "warm" leaves A
// (32 pages) on gpu0; then "reader" on gpu0 reads its resident D (64 pages:
// two lane steps of 32 touches, 1000 ns each) before A, while "taker" on gpu1
// reads A at once and pulls it over NVLink. Reader reaches A after taker's
// service: its 32 touches are served, no fault, and it takes what it takes
// alone (96 touches: 96000 ns); A stays on gpu1 (128 KiB moved peer to peer
// once). Without the rule reader faulted A back (another 128 KiB).
TEST(StreamTimeline, PagesTakenFromARunningKernelCountAsRead) {
  auto trace = [](bool beside) {
    TraceBuilder b;
    b.alloc("A", 128_KiB).alloc("D", 256_KiB);
    b.kernel("warm", 0, 0, 1).write("A").write("D").end().sync();
    if (beside) b.kernel("taker", 1, 0, 2).read("A").end();
    return b.kernel("reader", 0, 0, 1).read("D").read("A").end().sync().build();
  };
  HardwareProfile p = round_profile(2);
  p.gpu_access_gbps = 4.096;
  const Result alone = replay(trace(false), options_for(p));
  const Result both = replay(trace(true), options_for(p));
  ASSERT_EQ(alone.kernels.size(), 2u);
  ASSERT_EQ(both.kernels.size(), 3u);
  const ScopeResult& taker = both.kernels[1];
  const ScopeResult& reader = both.kernels[2];
  ASSERT_EQ(reader.name, "reader");
  EXPECT_EQ(alone.kernels[1].counters.time_ns, 96000u);
  EXPECT_EQ(taker.counters.gpu_faults, 32u);
  EXPECT_EQ(taker.counters.bytes_peer, 128u * 1024);
  // Taker's service ends before reader reaches A (64000 ns in).
  EXPECT_LT(taker.start_ns + taker.counters.stall_ns, reader.start_ns + 64000);
  EXPECT_EQ(reader.counters.gpu_faults, 0u);
  EXPECT_EQ(reader.counters.bytes_peer, 0u);
  EXPECT_EQ(reader.counters.time_ns, 96000u);
  EXPECT_EQ(both.total.bytes_peer, 128u * 1024);
}

// The same when reader, once taker has ended, is alone on the timeline with
// more buffered accesses than the timeline steps (70,000 single-page records
// of D before A's): it then replays as it is read, through the replay loop's
// in-line fault queue, and A's served pages must still count as read there.
TEST(StreamTimeline, ServedPagesCountAsReadWhenTheKernelRunsOnAlone) {
  TraceBuilder b;
  b.alloc("A", 128_KiB).alloc("D", 512_KiB);
  b.kernel("warm", 0, 0, 1).write("A").write("D").end().sync();
  b.kernel("taker", 1, 0, 2).write("A").end();
  b.kernel("reader", 0, 0, 1).read("D");
  for (int i = 0; i < 70000; ++i) b.read("D", (i % 128) * 4_KiB, 4_KiB);
  for (int page = 0; page < 32; ++page) b.read("A", page * 4_KiB, 4_KiB);
  const auto t = b.end().sync().build();
  HardwareProfile p = round_profile(2);
  p.gpu_access_gbps = 4.096;
  const Result r = replay(t, options_for(p));
  ASSERT_EQ(r.kernels.size(), 3u);
  const ScopeResult& taker = r.kernels[1];
  const ScopeResult& reader = r.kernels[2];
  ASSERT_EQ(reader.name, "reader");
  EXPECT_EQ(taker.counters.gpu_faults, 32u);
  EXPECT_LT(taker.start_ns + taker.counters.time_ns, reader.start_ns + 128000);  // taker ended first
  EXPECT_EQ(reader.counters.gpu_faults, 0u);
  EXPECT_EQ(reader.counters.bytes_peer, 0u);
  EXPECT_EQ(r.total.bytes_peer, 128u * 1024);
}

// Two GPUs fault on their own servicers at the same time: each kernel pays
// its own batch (10000 + 2100 + copy 2024 = 14124 after its start at 220).
TEST(StreamTimeline, GpusServiceTheirFaultsInParallel) {
  const auto t = TraceBuilder()
                     .alloc("A", 4_KiB)
                     .alloc("B", 4_KiB)
                     .cpu_write("A")
                     .cpu_write("B")
                     .kernel("k0", 0, 0, 1)
                     .read("A")
                     .end()
                     .kernel("k1", 1, 0, 2)
                     .read("B")
                     .end()
                     .sync()
                     .build();
  const Result r = replay(t, options_for(round_profile(2)));
  ASSERT_EQ(r.kernels.size(), 2u);
  EXPECT_EQ(r.kernels[0].counters.time_ns, 14124u);
  EXPECT_EQ(r.kernels[1].counters.time_ns, 14124u);
  EXPECT_EQ(r.total.time_ns, 220u + 14124);
}

// A later kernel on another stream starts before an earlier-issued prefetch
// that waits for a long kernel on its own stream: the kernel faults the data
// in (issue order had the prefetch move it first, and the kernel find it).
TEST(StreamTimeline, WorkRunsInTimeOrderNotIssueOrder) {
  const auto t = TraceBuilder()
                     .alloc("A", 4_KiB)
                     .alloc("D", 4_KiB, trace::AllocKind::kDevice, Processor::gpu(0))
                     .cpu_write("A")
                     .kernel("long", 0, 1000000, 1)
                     .read("D")
                     .end()
                     .prefetch("A", Processor::gpu(0), 1)
                     .kernel("reader", 0, 0, 2)
                     .read("A")
                     .end()
                     .sync()
                     .build();
  const Result r = replay(t, options_for(round_profile()));
  ASSERT_EQ(r.kernels.size(), 2u);
  EXPECT_EQ(r.kernels[0].name, "long");  // results stay in launch order
  EXPECT_EQ(r.kernels[1].counters.gpu_faults, 1u);
  EXPECT_EQ(r.kernels[1].start_ns, 110u);
  EXPECT_EQ(r.kernels[1].counters.time_ns, 14124u);

  EngineOptions old = options_for(round_profile());
  old.issue_order = true;
  const Result sequential = replay(t, old);
  EXPECT_EQ(sequential.kernels[1].counters.gpu_faults, 0u);
}

// Events keep their meaning across streams on the timeline: the kernel waits
// for the record made after the prefetch (issued before it on another stream).
TEST(StreamTimeline, WaitBlocksUntilTheRecordedWorkIsDone) {
  const auto t = TraceBuilder()
                     .alloc("A", 2_MiB)
                     .cpu_write("A")
                     .prefetch("A", Processor::gpu(0), 1)
                     .record("copied", 1)
                     .wait("copied", 2)
                     .kernel("k", 0, 1000, 2)
                     .read("A")
                     .end()
                     .build();
  const Result r = replay(t, options_for(round_profile()));
  EXPECT_EQ(r.kernels[0].start_ns, 582108u);  // as timing_test's EventWaitOrdersStreams
  EXPECT_EQ(r.kernels[0].counters.stall_ns, 0u);
}

// A phase marker is a label: the host launches the next phase's kernel on
// another GPU at once (launches cost no host time here, and device memory
// reads nothing), beside the first GPU's 1 ms kernel. With sync_at_phases (the
// HIP backend's replays synchronise every device at each marker) the marker
// waits for that kernel, and the next phase's kernel starts at its end.
TEST(StreamTimeline, SyncAtPhasesWaitsForEveryStreamAtAMarker) {
  const auto t = TraceBuilder()
                     .alloc("D0", 4_KiB, trace::AllocKind::kDevice, Processor::gpu(0))
                     .alloc("D1", 4_KiB, trace::AllocKind::kDevice, Processor::gpu(1))
                     .kernel("long", 0, 1000000, 1)
                     .read("D0")
                     .end()
                     .phase("next")
                     .kernel("short", 1, 500, 2)
                     .read("D1")
                     .end()
                     .sync()
                     .build();
  const Result label = replay(t, options_for(round_profile(2)));
  ASSERT_EQ(label.kernels.size(), 2u);
  EXPECT_EQ(label.kernels[0].counters.time_ns, 1000000u);
  EXPECT_EQ(label.kernels[1].start_ns, 0u);
  EXPECT_EQ(label.kernels[1].counters.time_ns, 500u);
  EXPECT_EQ(label.total.time_ns, 1000000u);
  EXPECT_FALSE(label.config["options"].contains("sync_at_phases"));

  EngineOptions synced = options_for(round_profile(2));
  synced.sync_at_phases = true;
  const Result r = replay(t, synced);
  ASSERT_EQ(r.kernels.size(), 2u);
  EXPECT_EQ(r.kernels[1].start_ns, 1000000u);
  EXPECT_EQ(r.kernels[1].counters.time_ns, 500u);
  ASSERT_EQ(r.phases.size(), 2u);
  EXPECT_EQ(r.phases[0].counters.time_ns, 1000000u);
  EXPECT_EQ(r.phases[1].start_ns, 1000000u);
  EXPECT_EQ(r.phases[1].counters.time_ns, 500u);
  EXPECT_EQ(r.total.time_ns, 1000500u);
  EXPECT_EQ(r.config["options"]["sync_at_phases"], true);
}

// --- every committed trace ----------------------------------------------------

// The streams that carry work, and the GPUs named, in a trace.
struct TraceShape {
  std::set<trace::StreamId> streams;
  int gpus = 1;
};

TraceShape shape_of(const std::string& path) {
  auto reader = trace::open_trace(path);
  std::vector<trace::Event> batch(4096);
  TraceShape shape;
  for (std::size_t n; (n = reader->read(batch)) != 0;)
    for (std::size_t i = 0; i < n; ++i) {
      const trace::EventKind k = batch[i].kind;
      if (k == trace::EventKind::kKernelBegin || k == trace::EventKind::kPrefetch ||
          k == trace::EventKind::kEventRecord || k == trace::EventKind::kEventWait)
        shape.streams.insert(batch[i].stream);
      if (batch[i].processor.is_gpu()) shape.gpus = std::max(shape.gpus, batch[i].processor.gpu_index() + 1);
    }
  return shape;
}

std::string replay_file(const std::string& path, bool issue_order) {
  EngineOptions o;
  o.profile = load_profile_file(shape_of(path).gpus > 1 ? "profiles/h200x2-nvlink.toml" : "profiles/h200-pcie5.toml");
  o.check_invariants = true;
  o.issue_order = issue_order;
  o.trace_name = path;
  EnginePolicies p = cli::make_policies(cli::PolicyChoice{}, &o.vendor);  // the nvidia preset
  Engine engine(std::move(o), std::move(p));
  auto reader = trace::open_trace(path);
  return to_json(engine.run(*reader)).dump(1);
}

// A trace whose work uses one stream gives byte-identical results on the
// timeline and in issue order (the engine before streams shared a timeline);
// every other trace replays with the invariant checker on.
TEST(StreamTimeline, SingleStreamTracesMatchIssueOrderByteForByte) {
  int single = 0, multi = 0;
  for (const char* dir : {"traces/examples", "traces/validation", "traces/validation_2gpu", "tests/sim/testdata"}) {
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
      const std::string path = entry.path().string();
      if (entry.path().extension() != ".umt") continue;
      SCOPED_TRACE(path);
      const std::string timeline = replay_file(path, false);
      if (shape_of(path).streams.size() <= 1) {
        EXPECT_EQ(timeline, replay_file(path, true));
        ++single;
      } else {
        ++multi;
      }
    }
  }
  EXPECT_GE(single, 15);  // the suites are mostly single-stream
  EXPECT_GE(multi, 10);
}

}  // namespace
}  // namespace umsim::sim
