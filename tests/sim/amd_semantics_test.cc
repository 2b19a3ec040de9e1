// AMD semantics: the MI300A APU (one memory: nothing migrates, a GPU fault maps
// its 2 MiB window in place, a prefetch only maps, system memory is fatal to
// touch with XNACK off) and system (malloc) memory on discrete GPUs. Times are
// hand-computed from round_profile(): batch 10000 ns, VA block 2000 ns, page
// 100 ns, remote host access 2 GB/s (2048 ns per 4 KiB page), CPU access 10 ns.
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
using trace::Processor;
using trace::TraceBuilder;

EngineOptions apu(bool xnack) {
  auto o = options_for(round_profile());
  o.vendor = xnack ? VendorSemantics::amd_apu_xnack_on() : VendorSemantics::amd_apu_xnack_off();
  return o;
}

TEST(AmdApu, GpuFirstTouchMapsTheWindowInPlace) {
  const auto t = TraceBuilder()
                     .alloc("A", 4_MiB, AllocKind::kSystem)
                     .kernel("one_page", 0, 0)
                     .read("A", 0, 4_KiB)
                     .end()
                     .kernel("window", 0, 0)
                     .read("A", 0, 2_MiB)
                     .end()
                     .kernel("next_window", 0, 0)
                     .read("A", 2_MiB, 4_KiB)
                     .end()
                     .build();
  const Result r = replay(t, apu(true));
  ASSERT_EQ(r.kernels.size(), 3u);
  // batch 10000 + populate block 2000 + 1 page 100, then the access over the mapping 2048.
  EXPECT_EQ(r.kernels[0].counters.gpu_faults, 1u);
  EXPECT_EQ(r.kernels[0].counters.time_ns, 10000u + 2000 + 100 + 2048);
  // The whole 2 MiB window was mapped by that fault: 512 accesses, no fault.
  EXPECT_EQ(r.kernels[1].counters.gpu_faults, 0u);
  EXPECT_EQ(r.kernels[1].counters.remote_accesses, 512u);
  EXPECT_EQ(r.kernels[1].counters.time_ns, 512u * 2048);
  EXPECT_EQ(r.kernels[2].counters.gpu_faults, 1u);  // the next window faults again
  EXPECT_EQ(r.total.bytes_h2d, 0u);                  // nothing ever migrates
  EXPECT_EQ(r.total.bytes_d2h, 0u);
}

TEST(AmdApu, FaultOnCpuPopulatedPagesOnlyMaps) {
  const auto t = TraceBuilder().alloc("A", 2_MiB).cpu_write("A").kernel("k", 0, 0).read("A", 0, 4_KiB).end().build();
  const Result r = replay(t, apu(true));
  // The block's pages are populated: va_block_cost (2000), not a population.
  EXPECT_EQ(r.kernels[0].counters.time_ns, 10000u + 2000 + 100 + 2048);
  EXPECT_EQ(r.total.bytes_h2d, 0u);
}

TEST(AmdApu, CpuReadsWhatTheGpuWroteWithoutFaults) {
  const auto t = TraceBuilder().alloc("A", 8_KiB).kernel("k", 0, 0).write("A").end().sync().cpu_read("A").build();
  const Result r = replay(t, apu(true));
  EXPECT_EQ(r.total.cpu_faults, 0u);
  EXPECT_EQ(r.total.bytes_d2h, 0u);
}

TEST(AmdApu, PrefetchMapsWithoutCopying) {
  const auto t = TraceBuilder()
                     .alloc("A", 4_MiB)
                     .cpu_write("A")
                     .prefetch("A", Processor::gpu(0), 1)
                     .kernel("k", 0, 0, 1)
                     .read("A")
                     .end()
                     .build();
  const Result r = replay(t, apu(true));
  EXPECT_EQ(r.total.gpu_faults, 0u);
  EXPECT_EQ(r.total.bytes_h2d, 0u);
  EXPECT_EQ(r.total.bytes_prefetched, 0u);
  EXPECT_EQ(r.kernels[0].counters.remote_accesses, 1024u);
  // The CPU wrote 1024 pages (first touch 100 + access 10 each); two blocks are
  // then mapped at 500 ns each before the kernel starts on the stream.
  EXPECT_EQ(r.kernels[0].start_ns, 1024u * 110 + 2 * 500);
}

TEST(AmdApu, XnackOffSystemMemoryIsAFatalFault) {
  const auto t = TraceBuilder().alloc("A", 8_KiB, AllocKind::kSystem).kernel("k", 0, 0).read("A").end().build();
  try {
    replay(t, apu(false));
    FAIL() << "a GPU touch of malloc memory with XNACK off must stop the run";
  } catch (const SimulationError& e) {
    EXPECT_NE(std::string(e.what()).find("XNACK off"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("'A'"), std::string::npos) << e.what();
  }
  // The CPU may still use it.
  const auto host = TraceBuilder().alloc("A", 8_KiB, AllocKind::kSystem).cpu_write("A").build();
  EXPECT_EQ(replay(host, apu(false)).total.cpu_faults, 0u);
}

TEST(AmdApu, XnackOffManagedMemoryIsMappedFromTheStart) {
  const auto t = TraceBuilder().alloc("A", 8_KiB).kernel("k", 0, 0).read("A").end().build();
  const Result r = replay(t, apu(false));
  EXPECT_EQ(r.total.gpu_faults, 0u);
  EXPECT_EQ(r.total.remote_accesses, 2u);
  EXPECT_EQ(r.kernels[0].counters.time_ns, 2u * 2048);
}

TEST(AmdApu, DeviceMemoryIsLocalToTheGpuAndCoherentForTheCpu) {
  const auto t = TraceBuilder()
                     .alloc("D", 8_KiB, AllocKind::kDevice, Processor::gpu(0))
                     .kernel("k", 0, 0)
                     .write("D")
                     .end()
                     .sync()
                     .cpu_read("D")
                     .build();
  const Result r = replay(t, apu(true));
  EXPECT_EQ(r.total.gpu_faults, 0u);
  EXPECT_EQ(r.total.remote_accesses, 0u);
  EXPECT_EQ(r.total.cpu_faults, 0u);  // the CPU reads hipMalloc memory in place (one HBM)
  EXPECT_EQ(r.total.bytes_d2h, 0u);
  // On a discrete GPU the same trace is refused.
  auto discrete = options_for(round_profile());
  discrete.vendor = VendorSemantics::amd_xnack_on();
  EXPECT_THROW(replay(t, discrete), SimulationError);
}

TEST(AmdApu, ResultNamesTheSemantics) {
  const auto t = TraceBuilder().alloc("A", 4_KiB).cpu_write("A").build();
  const nlohmann::ordered_json j = to_json(replay(t, apu(true)));
  EXPECT_EQ(j["config"]["vendor"]["name"], "amd-apu-xnack-on");
  EXPECT_EQ(j["config"]["vendor"]["single_memory_pool"], true);
  auto discrete = options_for(round_profile());
  discrete.vendor = VendorSemantics::amd_xnack_on();
  EXPECT_FALSE(to_json(replay(t, discrete))["config"]["vendor"].contains("single_memory_pool"));
}

// Discrete GPUs: system memory pages like managed memory where the GPU can
// fault (HMM on NVIDIA, XNACK on AMD), and not at all with XNACK off.
TEST(SystemMemory, XnackOnMigratesTheWindowAsManagedMemory) {
  const auto t = TraceBuilder()
                     .alloc("A", 4_MiB, AllocKind::kSystem)
                     .cpu_write("A")
                     .kernel("k", 0, 0)
                     .read("A", 0, 4_KiB)
                     .end()
                     .build();
  auto o = options_for(round_profile());
  o.vendor = VendorSemantics::amd_xnack_on();
  EXPECT_EQ(replay(t, o).total.bytes_h2d, 2_MiB);
  o.vendor = VendorSemantics::nvidia();
  EXPECT_EQ(replay(t, o).total.bytes_h2d, 4_KiB);  // one page (no prefetch policy here)
  o.vendor = VendorSemantics::amd_xnack_off();
  EXPECT_THROW(replay(t, o), SimulationError);
}

}  // namespace
}  // namespace umsim::sim
