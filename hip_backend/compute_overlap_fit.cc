#include "hip_backend/compute_overlap_fit.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace umsim::hip {

double fit_fault_compute_overlap(const std::vector<ComputeOverlapRun>& runs) {
  if (runs.empty()) throw std::invalid_argument("compute_overlap: no runs to fit");
  std::vector<double> f;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const ComputeOverlapRun& r = runs[i];
    auto bad = [&](const std::string& why) {
      return std::invalid_argument("compute_overlap run " + std::to_string(i) + ": " + why);
    };
    if (r.compute_ns == 0) throw bad("no compute");
    if (r.compute_only_ns < r.compute_ns) throw bad("compute_only took less than its compute");
    const double access = static_cast<double>(r.compute_only_ns - r.compute_ns);
    const double stall = static_cast<double>(r.faults_only_ns) - access;
    if (stall <= 0) throw bad("faults_only took no longer than the resident accesses: no stall to overlap");
    const double hidden = static_cast<double>(r.faults_only_ns) + static_cast<double>(r.compute_ns) -
                          static_cast<double>(r.both_ns);
    f.push_back(std::clamp(hidden / std::min(stall, static_cast<double>(r.compute_only_ns)), 0.0, 1.0));
  }
  std::sort(f.begin(), f.end());
  const std::size_t n = f.size();
  return n % 2 ? f[n / 2] : (f[n / 2 - 1] + f[n / 2]) / 2;
}

std::vector<ComputeOverlapRun> compute_overlap_runs(const nlohmann::json& raw) {
  if (!raw.is_array()) throw std::invalid_argument("compute_overlap: expected an array of runs");
  std::vector<ComputeOverlapRun> runs;
  for (std::size_t i = 0; i < raw.size(); ++i) {
    auto field = [&](const char* key) -> trace::Nanos {
      const auto it = raw[i].find(key);
      if (it == raw[i].end() || !it->is_number_unsigned())
        throw std::invalid_argument("compute_overlap run " + std::to_string(i) + ": '" + key +
                                    "' missing or not a non-negative integer");
      return it->get<trace::Nanos>();
    };
    runs.push_back({field("compute_ns"), field("compute_only_ns"), field("faults_only_ns"), field("both_ns")});
  }
  return runs;
}

}  // namespace umsim::hip
