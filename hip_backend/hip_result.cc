#include "hip_backend/hip_result.h"

#include <stdexcept>

namespace umsim::hip {

std::uint64_t cpu_step_pages(const Step& s) {
  trace::Event e;
  e.offset = s.offset;
  e.length = s.length;
  e.stride = s.stride;
  std::uint64_t pages = 0;
  trace::for_each_page_once(e, [&](std::uint64_t) { ++pages; });
  return pages * s.count;
}

Result make_result(const Plan& plan, const Measurements& m, const nlohmann::ordered_json& config) {
  if (m.kernels.size() != plan.kernels.size() || m.phases.size() != plan.phases.size())
    throw std::logic_error("measurement shape does not match the plan (kernels " + std::to_string(m.kernels.size()) +
                           "/" + std::to_string(plan.kernels.size()) + ", phases " +
                           std::to_string(m.phases.size()) + "/" + std::to_string(plan.phases.size()) + ")");
  Result r;
  r.producer = "umsim-hip";
  r.trace = plan.trace;
  r.config = config;
  r.hardware = m.hardware;

  Attributed um;
  if (m.counters_available) {
    std::vector<Window> kw, pw;
    for (const auto& k : m.kernels) kw.push_back(k.counter_window);
    for (const auto& p : m.phases) pw.push_back(p.counter_window);
    um = attribute(m.records, kw, pw);
    r.hardware["um_records"] = fault_record_summary(m.records);
    r.hardware["remote_maps"] = um.remote_maps;
  } else {
    um.kernels.resize(plan.kernels.size());
    um.phases.resize(plan.phases.size());
  }

  // Kernels: time from hipEvents, stall = time beyond compute and launch overhead.
  std::vector<std::uint32_t> kernel_phase(plan.kernels.size(), 0);
  std::vector<std::uint64_t> phase_accesses(plan.phases.size(), 0);
  std::uint32_t phase = 0;
  for (const auto& s : plan.steps) {
    if (s.kind == StepKind::kPhase) phase = s.index;
    if (s.kind == StepKind::kKernel) {
      kernel_phase[s.index] = phase;
      phase_accesses[phase] += plan.kernels[s.index].entry_count;
    }
    if (s.kind == StepKind::kCpuAccess) phase_accesses[phase] += cpu_step_pages(s);
  }

  std::vector<std::uint64_t> phase_stall(plan.phases.size(), 0);
  for (std::size_t i = 0; i < plan.kernels.size(); ++i) {
    const auto& k = plan.kernels[i];
    ScopeResult s;
    s.name = k.name;
    s.gpu = k.gpu;
    s.start_ns = m.kernels[i].start_ns;
    s.counters = um.kernels[i];
    s.counters.time_ns = m.kernels[i].time_ns;
    const std::uint64_t floor = k.compute_ns + m.launch_overhead_ns;
    s.counters.stall_ns = s.counters.time_ns > floor ? s.counters.time_ns - floor : 0;
    s.counters.accesses = k.entry_count;
    phase_stall[kernel_phase[i]] += s.counters.stall_ns;
    r.total.stall_ns += s.counters.stall_ns;
    r.kernels.push_back(std::move(s));
  }
  for (std::size_t p = 0; p < plan.phases.size(); ++p) {
    ScopeResult s;
    s.name = plan.phases[p];
    s.start_ns = m.phases[p].start_ns;
    s.counters = um.phases[p];
    s.counters.time_ns = m.phases[p].time_ns;
    s.counters.stall_ns = phase_stall[p];
    s.counters.accesses = phase_accesses[p];
    r.phases.push_back(std::move(s));
  }
  const std::uint64_t stall = r.total.stall_ns;
  r.total = um.total;
  r.total.time_ns = m.total_ns;
  r.total.stall_ns = stall;
  r.total.accesses = plan.entries.size() + plan.cpu_page_touches;

  // What the hardware cannot tell us stays 0 and is listed.
  r.unmeasured = {"evictions", "remote_accesses"};
  if (!m.counters_available)
    r.unmeasured = {"gpu_faults", "gpu_fault_pages", "fault_batches", "cpu_faults",   "bytes_h2d",
                    "bytes_d2h",  "bytes_peer",      "bytes_prefetched", "evictions", "bytes_evicted",
                    "remote_accesses", "thrashing_events", "throttles"};
  if (!plan.warnings.empty()) r.hardware["skipped_steps"] = plan.warnings;
  return r;
}

}  // namespace umsim::hip
