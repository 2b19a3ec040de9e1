// `--gpu-mem` values, resolved the same way by `umsim replay`, `umsim sweep`
// and `umsim demo`: an absolute size ("16GiB") or an oversubscription ("150%")
// of the trace's GPU footprint.
//
// The footprint is what the trace can hold in GPU memory at once: the peak,
// over the trace, of its live managed and device allocations, each rounded up
// to whole 2 MiB root chunks (the model allocates GPU memory in chunks of at
// most 2 MiB, so no eviction granularity needs more). "P%" gives the multiple
// of 2 MiB nearest to footprint * 100 / P (at least one chunk), so "100%" is
// exactly the footprint and never evicts.
#pragma once

#include <cstdint>
#include <string>

#include "traces/trace_reader.h"

namespace umsim::cli {

struct TraceFootprint {
  std::uint64_t managed_bytes = 0;  // peak of live managed allocations, as allocated
  std::uint64_t gpu_bytes = 0;      // peak of live managed + device allocations in 2 MiB chunks
};

// One streaming pass over the trace (allocations and frees only matter).
TraceFootprint trace_footprint(trace::TraceReader& reader);

// GPU memory in bytes for a --gpu-mem spec; 0 for "" (the profile's value).
// Throws std::runtime_error naming the spec for a malformed value, a size below
// 2 MiB, or a percentage of a trace that allocates nothing the GPU holds.
std::uint64_t resolve_gpu_memory(const std::string& spec, std::uint64_t gpu_footprint);

// True for "P%" specs (which need the trace's footprint).
bool is_oversubscription(const std::string& spec);

}  // namespace umsim::cli
