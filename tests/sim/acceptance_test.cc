// The model's acceptance tests (issue "core model"), with hand-computed
// expectations, under the checked-in h200-pcie5-published profile (published numbers:
// the expectations do not move when the default profile is recalibrated).
#include <gtest/gtest.h>

#include "sim/engine.h"
#include "tests/sim/sim_test_util.h"
#include "traces/trace_builder.h"

namespace umsim::sim {
namespace {

using namespace trace::literals;
using testing::h200_profile;
using testing::options_for;
using testing::replay;
using trace::Advice;
using trace::AllocKind;
using trace::Processor;
using trace::TraceBuilder;

constexpr std::uint64_t kPagesPerGiB = (1_GiB) / 4096;  // 262144

// 1. Demand paging of CPU-written data: every page faults once, 256 per batch.
TEST(Acceptance, DemandPagingMovesExactlyTheBufferOnce) {
  const auto t = TraceBuilder().alloc("A", 1_GiB).cpu_write("A").kernel("k0", 0, 1000).read("A").end().build();
  const Result r = replay(t, options_for(h200_profile()));
  EXPECT_EQ(r.total.bytes_h2d, 1_GiB);
  EXPECT_EQ(r.total.bytes_d2h, 0u);
  EXPECT_EQ(r.total.gpu_faults, kPagesPerGiB);
  EXPECT_EQ(r.total.gpu_fault_pages, kPagesPerGiB);
  EXPECT_EQ(r.total.fault_batches, (kPagesPerGiB + 255) / 256);
  EXPECT_EQ(r.total.evictions, 0u);
  ASSERT_EQ(r.kernels.size(), 1u);
  EXPECT_EQ(r.kernels[0].counters.gpu_faults, kPagesPerGiB);
  EXPECT_GT(r.kernels[0].counters.stall_ns, 0u);
  EXPECT_EQ(r.kernels[0].counters.time_ns, r.kernels[0].counters.stall_ns + 1000);
}

// 2. Prefetch first on the same stream: no faults, kernel time = compute time.
TEST(Acceptance, PrefetchOnTheSameStreamRemovesAllFaults) {
  const auto t = TraceBuilder()
                     .alloc("A", 1_GiB)
                     .cpu_write("A")
                     .prefetch("A", Processor::gpu(0), /*stream=*/0)
                     .kernel("k0", 0, 12345, /*stream=*/0)
                     .read("A")
                     .end()
                     .build();
  const Result r = replay(t, options_for(h200_profile()));
  ASSERT_EQ(r.kernels.size(), 1u);
  EXPECT_EQ(r.kernels[0].counters.gpu_faults, 0u);
  EXPECT_EQ(r.kernels[0].counters.fault_batches, 0u);
  EXPECT_EQ(r.kernels[0].counters.time_ns, 12345u);
  EXPECT_EQ(r.kernels[0].counters.stall_ns, 0u);
  EXPECT_EQ(r.total.bytes_prefetched, 1_GiB);
  EXPECT_EQ(r.total.bytes_h2d, 1_GiB);
  EXPECT_EQ(r.total.gpu_faults, 0u);
}

// 3. Oversubscription: 1 GiB read twice with 512 MiB of GPU memory. FIFO by
// allocation evicts blocks 0..255 in pass 1 (256 evictions) and every block
// in pass 2 (512), each writing back a whole 2 MiB chunk.
TEST(Acceptance, OversubscriptionEvictsAndFaultsAgain) {
  const auto t = TraceBuilder()
                     .alloc("A", 1_GiB)
                     .cpu_write("A")
                     .kernel("pass1", 0, 0)
                     .read("A")
                     .end()
                     .kernel("pass2", 0, 0)
                     .read("A")
                     .end()
                     .build();
  const Result r = replay(t, options_for(h200_profile(), 512_MiB));
  ASSERT_EQ(r.kernels.size(), 2u);
  EXPECT_EQ(r.kernels[0].counters.gpu_faults, kPagesPerGiB);
  EXPECT_EQ(r.kernels[1].counters.gpu_faults, kPagesPerGiB);
  EXPECT_EQ(r.kernels[0].counters.evictions, 256u);
  EXPECT_EQ(r.kernels[1].counters.evictions, 512u);
  EXPECT_EQ(r.total.bytes_d2h, 768 * 2_MiB);
  EXPECT_EQ(r.total.bytes_evicted, 768 * 2_MiB);
  EXPECT_EQ(r.total.bytes_h2d, 2_GiB);
  EXPECT_GT(r.total.bytes_d2h, 0u);
}

TEST(Acceptance, OversubscriptionNeverExceedsCapacity) {
  auto shared = std::make_shared<const trace::BuiltTrace>(
      TraceBuilder().alloc("A", 64_MiB).cpu_write("A").kernel("k", 0).read("A").end().kernel("k", 0).read("A").end().build());
  Engine engine(options_for(h200_profile(), 16_MiB), {});
  trace::MemoryTraceReader reader(shared);
  const Result r = engine.run(reader);  // the checker runs after every event
  EXPECT_EQ(engine.chunk_capacity(0), 8u);
  EXPECT_LE(engine.chunks_in_use(0), 8u);
  EXPECT_GT(r.total.evictions, 0u);
}

// 4. ReadMostly: GPU reads duplicate, the CPU then reads its own copy (no D2H),
// and a GPU write collapses the duplicates without copying.
TEST(Acceptance, ReadMostlyDuplicatesAndWriteCollapses) {
  auto shared = std::make_shared<const trace::BuiltTrace>(TraceBuilder()
                                                              .alloc("W", 2_MiB)
                                                              .cpu_write("W")
                                                              .advise("W", Advice::kSetReadMostly)
                                                              .kernel("read", 0)
                                                              .read("W")
                                                              .end()
                                                              .sync()
                                                              .cpu_read("W")
                                                              .phase("write")
                                                              .kernel("write", 0)
                                                              .write("W")
                                                              .end()
                                                              .build());
  Engine engine(options_for(h200_profile()), {});
  trace::MemoryTraceReader reader(shared);
  const Result r = engine.run(reader);
  ASSERT_EQ(r.kernels.size(), 2u);
  ASSERT_EQ(r.phases.size(), 2u);
  EXPECT_EQ(r.phases[0].counters.bytes_h2d, 2_MiB);  // duplicated to the GPU
  EXPECT_EQ(r.phases[0].counters.cpu_faults, 0u);    // the CPU kept its copy
  EXPECT_EQ(r.total.bytes_d2h, 0u);
  EXPECT_EQ(r.kernels[1].counters.gpu_faults, 512u);  // writes to read-only duplicates fault
  EXPECT_EQ(r.kernels[1].counters.bytes_h2d, 0u);     // ... and collapse in place
  const Allocation* w = engine.allocation("W");
  ASSERT_NE(w, nullptr);
  for (const PageState& p : w->pages) ASSERT_EQ(p.copies, processor_bit(Processor::gpu(0)));
}

// 5. AccessedBy gpu0 + PreferredLocation cpu: GPU reads go over the link.
TEST(Acceptance, AccessedByWithPreferredCpuReadsRemotely) {
  const auto t = TraceBuilder()
                     .alloc("A", 64_MiB)
                     .cpu_write("A")
                     .advise("A", Advice::kSetPreferredLocation, Processor::cpu())
                     .advise("A", Advice::kSetAccessedBy, Processor::gpu(0))
                     .kernel("k", 0, 0)
                     .read("A")
                     .end()
                     .build();
  const Result r = replay(t, options_for(h200_profile()));
  EXPECT_EQ(r.total.remote_accesses, 64_MiB / 4096);
  EXPECT_EQ(r.total.gpu_faults, 0u);
  EXPECT_EQ(r.total.bytes_h2d + r.total.bytes_d2h + r.total.bytes_peer, 0u);
  // 16384 pages x 4096 B at 45 GB/s, rounded up.
  EXPECT_EQ(r.kernels[0].counters.time_ns, 1491309u);
}

TEST(Acceptance, PreferredCpuFirstTouchByGpuPopulatesOnCpuWithoutMigration) {
  const auto t = TraceBuilder()
                     .alloc("A", 8_MiB)
                     .advise("A", Advice::kSetPreferredLocation, Processor::cpu())
                     .kernel("k", 0, 0)
                     .read("A")
                     .read("A")
                     .end()
                     .build();
  const Result r = replay(t, options_for(h200_profile()));
  EXPECT_EQ(r.total.gpu_faults, 2048u);  // first touches fault once, then map remotely
  EXPECT_EQ(r.total.remote_accesses, 4096u);
  EXPECT_EQ(r.total.bytes_h2d + r.total.bytes_d2h, 0u);
}

// 6. Device memory must fit; results are byte-identical across runs.
TEST(Acceptance, DeviceAllocationLargerThanGpuMemoryIsAClearError) {
  const auto t = TraceBuilder().alloc("weights", 200_GiB, AllocKind::kDevice, Processor::gpu(0)).build();
  try {
    replay(t, options_for(h200_profile()));
    FAIL() << "expected an error";
  } catch (const SimulationError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("<memory>:event 1"), std::string::npos) << m;
    EXPECT_NE(m.find("device allocation 'weights' needs 200GiB on gpu0"), std::string::npos) << m;
    EXPECT_NE(m.find("profile h200-pcie5"), std::string::npos) << m;
  }
}

TEST(Acceptance, JsonIsByteIdenticalAcrossRuns) {
  const auto t = TraceBuilder()
                     .alloc("A", 96_MiB)
                     .cpu_write("A")
                     .phase("compute")
                     .kernel("k0", 0, 5000)
                     .read("A", 0, 64_MiB)
                     .write("A", 32_MiB, 64_MiB, 8192)
                     .end()
                     .cpu_read("A")
                     .build();
  const std::string a = to_json(replay(t, options_for(h200_profile(), 64_MiB))).dump(2);
  const std::string b = to_json(replay(t, options_for(h200_profile(), 64_MiB))).dump(2);
  EXPECT_EQ(a, b);
  EXPECT_NE(a.find("\"evictions\""), std::string::npos);
}

}  // namespace
}  // namespace umsim::sim
