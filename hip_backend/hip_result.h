// Turns what the runtime measured on the GPU into the shared result schema
// (sim/result.h), with producer "umsim-hip", so `umsim compare` can put it next
// to `umsim replay`'s prediction.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "hip_backend/plan.h"
#include "hip_backend/um_counters.h"
#include "sim/result.h"

namespace umsim::hip {

struct ScopeTiming {
  std::uint64_t start_ns = 0;  // since the replay started
  std::uint64_t time_ns = 0;   // hipEvent time (kernels) or wall time (phases)
  Window counter_window;       // the same scope in the UM-counter clock
};

struct Measurements {
  std::uint64_t total_ns = 0;
  std::vector<ScopeTiming> kernels;  // one per Plan::kernels entry
  std::vector<ScopeTiming> phases;   // one per Plan::phases entry
  bool counters_available = false;   // UM counter records were collected
  std::vector<UmRecord> records;
  std::uint64_t launch_overhead_ns = 0;  // an empty touch kernel's time, subtracted to estimate stall
  nlohmann::ordered_json hardware = nlohmann::ordered_json::object();
};

// Page accesses one CPU step makes (all passes).
std::uint64_t cpu_step_pages(const Step& s);

// Throws std::logic_error if the measurement does not match the plan's shape.
Result make_result(const Plan& plan, const Measurements& m, const nlohmann::ordered_json& config);

}  // namespace umsim::hip
