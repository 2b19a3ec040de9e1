// Side-by-side comparison of two results of the shared schema (sim/result.h):
// the simulator's prediction and the hardware's measurement of one trace, per
// kernel, per phase and in total, each metric with its relative error.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/result.h"

namespace umsim::hip {

struct MetricRow {
  std::string scope;   // "kernel 2 read_all", "phase gpu", "total"
  std::string metric;  // counter name
  std::uint64_t sim = 0;
  std::uint64_t hw = 0;
  // (sim - hw) / hw; 0 when both are 0; +inf when hw is 0 and sim is not.
  double rel_error = 0;
};

struct Comparison {
  std::vector<MetricRow> rows;
  std::vector<std::string> skipped_metrics;  // unmeasured by either side
};

// Signed relative error of a prediction against a measurement.
double relative_error(std::uint64_t predicted, std::uint64_t measured);

// Matches kernels and phases by position and name; throws std::runtime_error
// naming the first mismatch (the two results must come from the same trace).
// `metrics` empty = every counter both sides measured.
Comparison compare_results(const Result& sim, const Result& hw, const std::vector<std::string>& metrics = {});

// A warning when the two results ran different programs: the HIP backend
// synchronises every device at each phase marker (its config says so), and a
// simulator result replayed without --sync-at-phases lets work run on across
// markers. Empty when they agree or the hardware result does not say.
std::string phase_semantics_note(const Result& sim, const Result& hw);

nlohmann::ordered_json to_json(const Comparison& c);

// A fixed-width table, one row per scope and metric.
std::string format_table(const Comparison& c);

}  // namespace umsim::hip
