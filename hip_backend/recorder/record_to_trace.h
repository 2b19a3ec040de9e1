// Turns a recorder log into a umsim trace of what the program faulted on:
// allocations, frees, prefetches, advice and syncs in program order; each
// kernel at its launch, holding the pages its GPU faulted on (CUPTI GPU page
// fault records, attributed to the kernel running on that GPU at the fault's
// time), and CPU page faults as CPU accesses between kernels. Accesses to
// pages that were already resident raise no fault and are not in the trace.
// Explicit copies, memsets and peer enables (cudaMemcpy[Async], cudaMemset[Async],
// cudaDeviceEnablePeerAccess) become trace format version 2 statements: a copy
// pointer inside a recorded allocation is that allocation, any other host
// pointer a pageable host buffer (pinned host memory the program allocated
// through CUDA is a recorded allocation).
#pragma once

#include <cstdint>
#include <string>

#include "hip_backend/recorder/record_log.h"
#include "traces/trace_writer.h"

namespace umsim::recorder {

struct ConvertStats {
  std::uint64_t allocations = 0, kernels = 0;
  std::uint64_t gpu_faults = 0, cpu_faults = 0;  // fault records turned into page touches
  std::uint64_t unattributed = 0;   // GPU faults outside every kernel's time on their GPU
  std::uint64_t outside = 0;        // faults, prefetches or advice outside every live allocation
  std::uint64_t unknown_frees = 0;  // frees of pointers never recorded as allocated (e.g. free(0))
  std::uint64_t copies = 0, memsets = 0, peer_enables = 0;
};

// The trace format version a log needs: 2 when it holds copies, memsets or peer enables.
int trace_version_for(const RecordLog& log);

struct ConvertOptions {
  // Kernel compute time: false = 0 (the simulator adds its own fault stalls),
  // true = the measured GPU duration, which already includes the fault stalls.
  bool measured_compute = false;
};

ConvertStats convert_record_log(const RecordLog& log, trace::TraceWriter& out, const ConvertOptions& options = {});

}  // namespace umsim::recorder
