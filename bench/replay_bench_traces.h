// Shared by the replay benchmarks: the profile they run on and traces of one
// Event per page access (replayed from memory, so decoding is not measured).
#pragma once

#include <cstdint>
#include <memory>

#include "sim/profile.h"
#include "sim/types.h"
#include "traces/trace_builder.h"

namespace umsim::bench {

using namespace trace::literals;

inline constexpr std::uint64_t kAccesses = 1u << 22;  // 4 M single-page events

// Round published-scale costs: a fixed profile keeps the benchmarks comparable
// across profile recalibrations.
inline sim::HardwareProfile bench_profile() {
  sim::HardwareProfile p;
  p.name = "bench";
  p.gpus = 1;
  p.gpu_memory = 80_GiB;
  p.h2d.latency_ns = p.d2h.latency_ns = p.peer.latency_ns = 1500;
  p.h2d.curve = p.d2h.curve = p.peer.curve = {sim::BandwidthCurve::Kind::kAtan, 55.0, 0.0215, {}};
  p.fault_batch_ns = 30000;
  p.fault_va_block_ns = 20000;
  p.fault_page_ns = 200;
  p.cpu_fault_ns = 20000;
  p.remote_gpu_to_host_gbps = p.remote_gpu_to_peer_gbps = 45;
  p.eviction_chunk_ns = 20000;
  return p;
}

// A CPU-written allocation of `size` (optionally prefetched to gpu0), then one
// kernel making kAccesses single-page accesses at pages next_page(0), next_page(1), ...
template <typename NextPage>
std::shared_ptr<const trace::BuiltTrace> page_trace(sim::Bytes size, bool prefetch, NextPage next_page) {
  trace::TraceBuilder b;
  b.alloc("A", size).cpu_write("A");
  if (prefetch) b.prefetch("A", trace::Processor::gpu(0)).sync();
  b.kernel("k", 0, 1000);
  trace::Event e;
  e.kind = trace::EventKind::kGpuAccess;
  e.length = sim::kPageSize;
  for (std::uint64_t i = 0; i < kAccesses; ++i) {
    e.offset = next_page(i) * sim::kPageSize;
    b.raw(e, "A");
  }
  b.end();
  return std::make_shared<const trace::BuiltTrace>(b.build());
}

}  // namespace umsim::bench
