// The safety check that runs before the backend allocates anything: a trace
// whose managed footprint exceeds a fraction (default one half) of the GPU's
// free memory is refused. Oversubscription is studied in the simulator, never
// on a real card (an oversubscribed managed working set can hang the GPU).
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

#include "hip_backend/plan.h"

namespace umsim::hip {

inline constexpr double kDefaultSafeFraction = 0.5;

class UnsafeTraceError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct MemoryInfo {
  std::uint64_t free_bytes = 0;
  std::uint64_t total_bytes = 0;
};

// Device memory the backend itself takes on every GPU it uses: the access list
// (8 bytes per entry, all kernels' entries are uploaded), the table of
// allocation bases and the result sink.
std::uint64_t backend_device_bytes(const Plan& plan);

// Throws UnsafeTraceError with a message that names the trace, the sizes and the
// limit when the plan's peak managed bytes, plus its device allocations and the
// backend's own buffers (which also take GPU memory), exceed fraction * free,
// or when that sum does not fit in 64 bits. `fraction` must be in (0, 0.5].
void check_footprint(const Plan& plan, const MemoryInfo& gpu, double fraction = kDefaultSafeFraction);

// The largest managed footprint allowed for the given free memory.
std::uint64_t safe_managed_limit(std::uint64_t free_bytes, double fraction = kDefaultSafeFraction);

}  // namespace umsim::hip
