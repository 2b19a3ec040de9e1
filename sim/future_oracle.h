// The FutureOracle for offline policies (Belady MIN): a pre-pass over the
// trace records, per GPU and chunk-sized region, the runs of access sequence
// numbers that touch it (seq k = the k-th GPU page access, as the engine
// numbers them). Memory is proportional to the number of runs, not accesses.
#pragma once

#include <memory>

#include "sim/eviction_policy.h"
#include "traces/trace_reader.h"

namespace umsim::sim {

std::unique_ptr<FutureOracle> build_future_oracle(trace::TraceReader& reader, int gpus,
                                                  std::uint32_t pages_per_chunk);

}  // namespace umsim::sim
