// Helpers for the model's tests: a profile with round numbers (so timings can
// be computed by hand), the checked-in h200-pcie5-published profile, and a replay of
// an in-memory trace with the invariant checker on.
#pragma once

#include <memory>
#include <string>

#include "sim/engine.h"
#include "traces/memory_trace_reader.h"

namespace umsim::sim::testing {

// Flat links: host links 4 GB/s (4096 B = 1024 ns) + 1000 ns latency; peer
// 8 GB/s (512 ns per page) + 1000 ns. Faults: batch 10000 ns, VA block 2000 ns,
// page 100 ns. CPU: fault 5000, first touch 100, access 10. Remote: host 2 GB/s,
// peer 1 GB/s. Prefetch block 500 ns, eviction chunk 3000 ns. 1 GiB per GPU.
inline HardwareProfile round_profile(int gpus = 1) {
  HardwareProfile p;
  p.name = "round";
  p.description = "round numbers for hand-computed tests";
  p.gpus = gpus;
  p.gpu_memory = Bytes{1} << 30;
  p.h2d.latency_ns = p.d2h.latency_ns = p.peer.latency_ns = 1000;
  p.h2d.curve.peak_gbps = p.d2h.curve.peak_gbps = 4.0;
  p.peer.curve.peak_gbps = 8.0;
  p.fault_batch_size = 256;
  p.fault_concurrency = 256;
  p.fault_batch_ns = 10000;
  p.fault_va_block_ns = 2000;
  p.fault_page_ns = 100;
  p.cpu_fault_ns = 5000;
  p.cpu_first_touch_ns = 100;
  p.cpu_access_ns = 10;
  p.remote_gpu_to_host_gbps = 2.0;
  p.remote_gpu_to_peer_gbps = 1.0;
  p.prefetch_va_block_ns = 500;
  p.eviction_chunk_ns = 3000;
  return p;
}

// The checked-in profile (a data dependency of the test).
inline HardwareProfile h200_profile() { return load_profile_file("profiles/h200-pcie5-published.toml"); }

inline EngineOptions options_for(HardwareProfile p, Bytes gpu_memory = 0) {
  EngineOptions o;
  o.profile = std::move(p);
  o.gpu_memory = gpu_memory;
  o.check_invariants = true;
  return o;
}

inline Result replay(const trace::BuiltTrace& t, EngineOptions options, EnginePolicies policies = {}) {
  auto shared = std::make_shared<const trace::BuiltTrace>(t);
  options.check_invariants = true;
  options.reopen = [shared] { return std::make_unique<trace::MemoryTraceReader>(shared); };
  Engine engine(std::move(options), std::move(policies));
  trace::MemoryTraceReader reader(shared);
  return engine.run(reader);
}

}  // namespace umsim::sim::testing
