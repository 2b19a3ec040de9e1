// The touch kernel's host interface: replay and calibration launch it through
// launch_touch_kernel (device code lives in touch_kernels.cpp only).
#pragma once

#include <cstdint>

#include "hip_backend/gpu/gpu_api.h"

namespace umsim::hip {

struct TouchArgs {
  const std::uint64_t* entries = nullptr;  // packed AccessEntry values (plain device memory)
  const std::uint64_t* shapes = nullptr;   // TouchShape of each entry (plan.h)
  std::uint64_t count = 0;
  char* const* bases = nullptr;            // device-visible base pointer per allocation slot
  std::uint64_t compute_ns = 0;            // emulated compute time, spun after the accesses
  std::uint64_t wall_clock_khz = 0;        // AMD: wall_clock64 rate; NVIDIA: unused (globaltimer is ns)
  unsigned* sink = nullptr;                // keeps reads alive
};

// One warp per access entry; `blocks` should not exceed what is resident at once,
// so the compute spin after the accesses adds its time once.
hipError_t launch_touch_kernel(const TouchArgs& args, int blocks, int threads, hipStream_t stream);

// Blocks of `threads` threads one multiprocessor holds at once (occupancy API):
// the grid must not exceed SMs x this, or a second wave would spin again.
int touch_kernel_blocks_per_sm(int threads);

}  // namespace umsim::hip
