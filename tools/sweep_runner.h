// One point of a sweep, run: the engine on the point's trace, vendor,
// profile, policies and GPU memory, and the point's JSON line (docs/sweeps.md,
// "Output"). Shared by `umsim sweep` and the Python bindings.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "sim/profile.h"
#include "tools/gpu_memory_spec.h"
#include "tools/sweep_plan.h"

namespace umsim::cli {

// Every axis of the sweep, stored in each line's "sweep.experiment".
nlohmann::ordered_json experiment_json(const SweepAxes& axes);

// The fields a line has whether the point finished or failed (as requested).
nlohmann::ordered_json point_fields(const SweepPoint& p);

// Runs the point; the line has the resolved policy specs and "result" (no
// "sweep" object: the caller adds it). Throws on any error.
nlohmann::ordered_json run_sweep_point(const SweepPoint& p, const sim::HardwareProfile& profile,
                                       const TraceFootprint& footprint);

// "point 3 (trace t.umtb, vendor nvidia, ...)" for error messages.
std::string describe_point(const SweepPoint& p);

}  // namespace umsim::cli
