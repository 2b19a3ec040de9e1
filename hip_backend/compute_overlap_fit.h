// gpu.fault_compute_overlap from the calibration's "compute_overlap" runs
// (hip_backend/calibration_traces.h, compute_overlap_trace): how much of a
// kernel's work proceeds while its faults are serviced.
#pragma once

#include <vector>

#include <nlohmann/json.hpp>

#include "traces/event.h"

namespace umsim::hip {

// One repetition: the three kernels' measured times and the compute they were given.
struct ComputeOverlapRun {
  trace::Nanos compute_ns = 0;       // the compute of "compute_only" and "both"
  trace::Nanos compute_only_ns = 0;  // resident pages + compute: work W = a + C
  trace::Nanos faults_only_ns = 0;   // fresh pages, no compute: stall S + a
  trace::Nanos both_ns = 0;          // fresh pages + compute
};

// The model: both = S + a + C - f x min(S, a + C), so
// f = (faults_only + C - both) / min(faults_only - a, compute_only) with
// a = compute_only - C; the median over the runs, clamped to [0, 1].
// Throws std::invalid_argument when there is no run or a run cannot be used
// (no compute, no stall, times out of order), naming the run.
double fit_fault_compute_overlap(const std::vector<ComputeOverlapRun>& runs);

// The runs of a calibration's raw "compute_overlap" array (umsim-hip
// calibrate); throws std::invalid_argument naming a missing field.
std::vector<ComputeOverlapRun> compute_overlap_runs(const nlohmann::json& raw);

}  // namespace umsim::hip
