// Policies through the engine on tiny traces with hand-computed outcomes: each
// policy's effect is visible in the replay's counters.
#include <gtest/gtest.h>

#include "tests/policies/replay_harness.h"

namespace umsim::policies {
namespace {

using namespace testing;

Result run(const std::string& trace, const std::string& vendor, PolicySpecs specs, sim::Bytes gpu_memory = 0) {
  Combo c;
  c.vendor = vendor;
  c.specs = std::move(specs);
  ReplayOptions o;
  o.gpu_memory = gpu_memory;
  return replay(trace, c, o);
}

// The GPU reads 16 pages (one 64 KiB sub-region) 20 times through AccessedBy remote
// mappings: 320 remote accesses. With access counters (threshold 256) the 256th access
// migrates the sub-region: 64 KiB host-to-device, 256 remote accesses, the rest local.
TEST(PolicyEngine, AccessCounterMigratesAHotRemoteSubRegion) {
  const std::string trace =
      "umsim-trace 1\n"
      "alloc a 2MiB managed\n"
      "cpu w a len=2MiB\n"
      "advise a len=2MiB preferred=cpu\n"
      "advise a len=2MiB accessed_by=gpu0\n"
      "kernel k gpu=0 compute=1us\n"
      "  r a len=64KiB count=20\n"
      "end\n"
      "sync all\n";
  const Result plain = run(trace, "nvidia", {"none", "fifo", "driver", "none"});
  EXPECT_EQ(plain.total.remote_accesses, 320u);
  EXPECT_EQ(plain.total.bytes_h2d, 0u);
  const Result counted = run(trace, "nvidia", {"none", "fifo", "access-counter", "none"});
  EXPECT_EQ(counted.total.remote_accesses, 256u);
  EXPECT_EQ(counted.total.bytes_h2d, 64u * 1024);
}

// XNACK off: a kernel reads 1 MiB of managed memory in place (256 remote page accesses, no
// migration, no GPU fault); after an explicit prefetch it is local.
TEST(PolicyEngine, XnackOffIsZeroCopyUnlessPrefetched) {
  const std::string trace =
      "umsim-trace 1\n"
      "alloc a 1MiB managed\n"
      "cpu w a len=1MiB\n"
      "kernel k gpu=0 compute=1us\n"
      "  r a len=1MiB\n"
      "end\n"
      "sync all\n";
  const auto& preset = vendor_preset("amd-xnack-off");
  const Result r = run(trace, preset.name, preset.policies);
  EXPECT_EQ(r.total.remote_accesses, 256u);
  EXPECT_EQ(r.total.gpu_faults, 0u);
  EXPECT_EQ(r.total.bytes_h2d, 0u);
}

// An explicit prefetch moves XNACK-off managed memory to VRAM: the kernel's accesses are
// local (and the CPU no longer maps the pages, which the invariant checker verifies).
TEST(PolicyEngine, XnackOffPrefetchMakesPagesLocal) {
  const auto& preset = vendor_preset("amd-xnack-off");
  const std::string prefetched =
      "umsim-trace 1\n"
      "alloc a 1MiB managed\n"
      "cpu w a len=1MiB\n"
      "prefetch a to=gpu0\n"
      "kernel k gpu=0 compute=1us\n"
      "  r a len=1MiB\n"
      "end\n"
      "sync all\n";
  const Result p = run(prefetched, preset.name, preset.policies);
  EXPECT_EQ(p.total.remote_accesses, 0u);
  EXPECT_EQ(p.total.bytes_h2d, 1024u * 1024);
}

// XNACK on: one faulting page brings its whole 2 MiB window.
TEST(PolicyEngine, XnackOnMigratesTheFaultWindow) {
  const std::string trace =
      "umsim-trace 1\n"
      "alloc a 4MiB managed\n"
      "cpu w a len=4MiB\n"
      "kernel k gpu=0 compute=1us\n"
      "  r a+2MiB len=4KiB\n"
      "end\n"
      "sync all\n";
  const auto& preset = vendor_preset("amd-xnack-on");
  const Result r = run(trace, preset.name, preset.policies);
  EXPECT_EQ(r.total.gpu_faults, 1u);
  EXPECT_EQ(r.total.bytes_h2d, 2u * 1024 * 1024);
}

// The tree prefetcher's first-touch rule: a block resident nowhere, first touched by
// its preferred location, is populated whole; the next kernel reading it does not fault.
TEST(PolicyEngine, FirstTouchAtThePreferredLocationPopulatesTheBlock) {
  const std::string trace =
      "umsim-trace 1\n"
      "alloc z 2MiB managed\n"
      "advise z len=2MiB preferred=gpu0\n"
      "kernel first gpu=0 compute=1us\n"
      "  w z len=4KiB\n"
      "end\n"
      "sync all\n"
      "kernel second gpu=0 compute=1us\n"
      "  r z len=2MiB\n"
      "end\n"
      "sync all\n";
  const Result tree = run(trace, "nvidia", {"tree", "fifo", "driver", "none"});
  ASSERT_EQ(tree.kernels.size(), 2u);
  EXPECT_EQ(tree.kernels[0].counters.gpu_faults, 1u);
  EXPECT_EQ(tree.kernels[1].counters.gpu_faults, 0u);
  const Result none = run(trace, "nvidia", {"none", "fifo", "driver", "none"});
  EXPECT_EQ(none.kernels[1].counters.gpu_faults, 511u);
}

// A 64 KiB region written alternately by the CPU and the GPU in quick succession is
// detected as thrashing by the driver policy, which throttles; `none` never does.
TEST(PolicyEngine, PingPongIsThrottledByTheDriverThrashingPolicy) {
  std::string trace = "umsim-trace 1\nalloc y 2MiB managed\ncpu w y len=2MiB\n";
  for (int i = 0; i < 6; ++i)
    trace += "kernel ping gpu=0 compute=5us\n  w y len=64KiB\nend\nsync gpu=0\ncpu w y len=64KiB\n";
  const Result driver = run(trace, "nvidia", {"none", "fifo", "driver", "driver"});
  EXPECT_GT(driver.total.thrashing_events, 0u);
  EXPECT_GT(driver.total.throttles, 0u);
  const Result none = run(trace, "nvidia", {"none", "fifo", "driver", "none"});
  EXPECT_EQ(none.total.thrashing_events, 0u);
  EXPECT_EQ(none.total.throttles, 0u);
}

// Every response the driver policy can give, forced, keeps the model consistent (the
// harness runs the invariant checker): pins on the GPU with the CPU among the thrashing
// processors, remote mappings, throttles.
TEST(PolicyEngine, ForcedThrashingResponsesKeepTheModelConsistent) {
  std::string trace = "umsim-trace 1\nalloc y 2MiB managed\ncpu w y len=2MiB\n";
  for (int i = 0; i < 8; ++i)
    trace += "kernel ping gpu=0 compute=5us\n  w y len=64KiB\nend\nsync gpu=0\ncpu w y len=64KiB\n";
  for (const char* spec : {"driver:pin_threshold=1", "driver:response=pin", "driver:response=throttle",
                           "driver:response=map-remote", "driver:fast_links=true", "driver:cpu_maps_gpu=true"}) {
    Result r;
    EXPECT_NO_THROW(r = run(trace, "nvidia", {"tree", "fifo", "driver", spec})) << spec;
    EXPECT_GT(r.total.thrashing_events, 0u) << spec;
  }
}

// Eviction order through the engine with 4 MiB (two 2 MiB chunks): blocks A, B, A again,
// C, A. FIFO evicts A (oldest allocation) for C, so the last A faults again; LRU evicts
// B (least recently used), so the last A hits.
TEST(PolicyEngine, FifoEvictsByAllocationLruByUse) {
  const std::string trace =
      "umsim-trace 1\n"
      "alloc x 6MiB managed\n"
      "kernel ab gpu=0 compute=1us\n  r x len=4KiB\n  r x+2MiB len=4KiB\nend\nsync gpu=0\n"
      "kernel a gpu=0 compute=1us\n  r x len=4KiB\nend\nsync gpu=0\n"
      "kernel c gpu=0 compute=1us\n  r x+4MiB len=4KiB\nend\nsync gpu=0\n"
      "kernel a_again gpu=0 compute=1us\n  r x len=4KiB\nend\nsync gpu=0\n";
  const sim::Bytes mem = 4 * 1024 * 1024;
  const Result fifo = run(trace, "nvidia", {"none", "fifo", "driver", "none"}, mem);
  const Result lru = run(trace, "nvidia", {"none", "lru", "driver", "none"}, mem);
  ASSERT_EQ(fifo.kernels.size(), 4u);
  EXPECT_EQ(fifo.kernels[3].counters.gpu_faults, 1u);
  EXPECT_EQ(lru.kernels[3].counters.gpu_faults, 0u);
  EXPECT_EQ(fifo.total.evictions, 2u);  // A for C, then B for A
  EXPECT_EQ(lru.total.evictions, 1u);   // B for C
}

// The registered `fifo` is the driver's order, as the engine's built-in default:
// identical results on a trace with evictions, prefetching and thrashing.
TEST(PolicyEngine, FifoMatchesTheEnginesBuiltInDefault) {
  std::string trace = "umsim-trace 1\nalloc x 12MiB managed\ncpu w x len=12MiB\n";
  for (int pass = 0; pass < 3; ++pass) {
    trace += "kernel scan gpu=0 compute=5us\n  r x len=12MiB stride=16KiB\nend\nsync gpu=0\n";
    trace += "kernel back gpu=0 compute=5us\n  r x+8MiB len=4MiB\n  r x len=2MiB\nend\nsync gpu=0\n";
  }
  const sim::Bytes mem = 6 * 1024 * 1024;
  const Result builtin = run(trace, "nvidia", {"tree", "", "driver", "driver"}, mem);
  const Result fifo = run(trace, "nvidia", {"tree", "fifo", "driver", "driver"}, mem);
  EXPECT_GT(fifo.total.evictions, 0u);
  EXPECT_EQ(to_json(fifo.total), to_json(builtin.total));
}

// PreferredLocation gpu0 does not stop the prefetcher on CPU faults: the CPU
// cannot map GPU memory, so the pages must come back and the density tree
// grows the region per fault as for any CPU fault. Reading 2 MiB back: fault
// at page 0 -> its 64 KiB big page (pages 0-15; the 32-page node holds 16/32,
// not > 51%); page 16 -> 16-31 (64-page node 32/64 fails); page 32 -> 32-63
// (48/64 qualifies, 48/128 fails); page 64 -> 64-127 (80/128); page 128 ->
// 128-255 (144/256); page 256 -> 256-511 (272/512): 6 CPU faults, 2 MiB back,
// as the H200 did (382 faults for 64 such blocks). Without the prefetcher: 512.
TEST(PolicyEngine, CpuFaultsPrefetchDespiteAGpuPreferredLocation) {
  const std::string trace =
      "umsim-trace 1\n"
      "alloc g 2MiB managed\n"
      "cpu w g len=2MiB\n"
      "advise g len=2MiB preferred=gpu0\n"
      "kernel k gpu=0 compute=1us\n"
      "  r g len=2MiB\n"
      "end\n"
      "sync all\n"
      "cpu r g len=2MiB\n";
  const Result tree = run(trace, "nvidia", {"tree", "fifo", "driver", "none"});
  EXPECT_EQ(tree.total.cpu_faults, 6u);
  EXPECT_EQ(tree.total.bytes_d2h, 2u << 20);
  EXPECT_EQ(tree.total.bytes_prefetched, (2u << 20) - 6 * 4096);
  const Result none = run(trace, "nvidia", {"none", "fifo", "driver", "none"});
  EXPECT_EQ(none.total.cpu_faults, 512u);
  EXPECT_EQ(none.total.bytes_d2h, 2u << 20);
}

}  // namespace
}  // namespace umsim::policies
