#include "hip_backend/result_compare.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

namespace umsim::hip {

double relative_error(std::uint64_t predicted, std::uint64_t measured) {
  if (measured == 0) return predicted == 0 ? 0.0 : std::numeric_limits<double>::infinity();
  return (static_cast<double>(predicted) - static_cast<double>(measured)) / static_cast<double>(measured);
}

namespace {

bool listed(const std::vector<std::string>& v, const std::string& s) { return std::find(v.begin(), v.end(), s) != v.end(); }

void check_same_scopes(const std::vector<ScopeResult>& a, const std::vector<ScopeResult>& b, const char* what) {
  if (a.size() != b.size())
    throw std::runtime_error(fmt::format("the results have different numbers of {} ({} vs {}): not the same trace?", what,
                                         a.size(), b.size()));
  for (std::size_t i = 0; i < a.size(); ++i)
    if (a[i].name != b[i].name)
      throw std::runtime_error(fmt::format("{} {} is '{}' in the first result but '{}' in the second: not the same trace?",
                                           what, i, a[i].name, b[i].name));
}

}  // namespace

Comparison compare_results(const Result& sim, const Result& hw, const std::vector<std::string>& metrics) {
  check_same_scopes(sim.kernels, hw.kernels, "kernels");
  check_same_scopes(sim.phases, hw.phases, "phases");
  Comparison c;
  std::vector<const CounterField*> fields;
  for (const auto& f : counter_fields()) {
    if (!metrics.empty() && !listed(metrics, f.name)) continue;
    if (listed(sim.unmeasured, f.name) || listed(hw.unmeasured, f.name)) {
      c.skipped_metrics.push_back(f.name);
      continue;
    }
    fields.push_back(&f);
  }
  for (const auto& m : metrics) {
    bool known = false;
    for (const auto& f : counter_fields()) known |= m == f.name;
    if (!known) throw std::runtime_error("unknown metric '" + m + "'");
  }
  auto add = [&](const std::string& scope, const Counters& s, const Counters& h) {
    for (const CounterField* f : fields)
      c.rows.push_back({scope, f->name, s.*(f->member), h.*(f->member), relative_error(s.*(f->member), h.*(f->member))});
  };
  for (std::size_t i = 0; i < sim.kernels.size(); ++i)
    add(fmt::format("kernel {} {}", i, sim.kernels[i].name), sim.kernels[i].counters, hw.kernels[i].counters);
  for (std::size_t i = 0; i < sim.phases.size(); ++i)
    add("phase " + sim.phases[i].name, sim.phases[i].counters, hw.phases[i].counters);
  add("total", sim.total, hw.total);
  return c;
}

std::string phase_semantics_note(const Result& sim, const Result& hw) {
  const auto& boundaries = hw.config.is_object() ? hw.config.value("phase_boundaries", nlohmann::ordered_json()) : nlohmann::ordered_json();
  if (!boundaries.is_string() || boundaries.get<std::string>().find("synchronized") == std::string::npos) return "";
  const bool synced = sim.config.is_object() && sim.config.contains("options") && sim.config["options"].is_object() &&
                      sim.config["options"].value("sync_at_phases", false);
  if (synced) return "";
  return "note: the hardware run synchronised every device at each phase marker; the simulator result was replayed "
         "without --sync-at-phases, so work still running at a marker ran on in it (replay with --sync-at-phases to "
         "compare the same program)";
}

nlohmann::ordered_json to_json(const Comparison& c) {
  nlohmann::ordered_json j;
  j["rows"] = nlohmann::ordered_json::array();
  for (const auto& r : c.rows) {
    nlohmann::ordered_json row;
    row["scope"] = r.scope;
    row["metric"] = r.metric;
    row["sim"] = r.sim;
    row["hw"] = r.hw;
    if (std::isfinite(r.rel_error)) row["rel_error"] = r.rel_error;
    else row["rel_error"] = nullptr;  // measured 0, predicted not
    j["rows"].push_back(row);
  }
  j["skipped_metrics"] = c.skipped_metrics;
  return j;
}

std::string format_table(const Comparison& c) {
  std::size_t w = 5;
  for (const auto& r : c.rows) w = std::max(w, r.scope.size());
  std::string out = fmt::format("{:<{}}  {:<18} {:>16} {:>16} {:>10}\n", "scope", w, "metric", "sim", "hw", "error");
  for (const auto& r : c.rows) {
    const std::string err = std::isfinite(r.rel_error) ? fmt::format("{:+.1f}%", r.rel_error * 100) : "hw 0";
    out += fmt::format("{:<{}}  {:<18} {:>16} {:>16} {:>10}\n", r.scope, w, r.metric, r.sim, r.hw, err);
  }
  if (!c.skipped_metrics.empty()) {
    out += "not compared (unmeasured by one side):";
    for (const auto& m : c.skipped_metrics) out += " " + m;
    out += "\n";
  }
  return out;
}

}  // namespace umsim::hip
