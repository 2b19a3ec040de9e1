// Executes a Plan on the GPU(s) with the real runtime API and measures it.
#pragma once

#include <functional>
#include <string>

#include "hip_backend/hip_result.h"
#include "hip_backend/plan.h"
#include "hip_backend/safety.h"

namespace umsim::hip {

struct ReplayOptions {
  double safe_fraction = kDefaultSafeFraction;  // of free GPU memory the managed footprint may use
  bool counters = true;                         // collect UM counters where the platform offers them
  bool verbose = false;
};

// Throws UnsafeTraceError (before allocating anything) when the footprint is
// unsafe, GpuError on a runtime failure.
Measurements replay_plan(const Plan& plan, const ReplayOptions& options);

// Two passes of the plan in one process: times from a pass without UM counters,
// counters (and their attribution windows) from a second pass with them.
// between_passes, if given, runs after the timed pass and before counters are
// enabled (they stay on for the rest of the process and slow its CPU faults).
Measurements replay_plan_two_pass(const Plan& plan, const ReplayOptions& options,
                                  const std::function<void()>& between_passes = {});

// The machine, for the result's hardware section.
nlohmann::ordered_json describe_gpu(int device);

}  // namespace umsim::hip
