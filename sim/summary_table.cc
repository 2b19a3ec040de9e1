#include "sim/summary_table.h"

#include <fmt/format.h>

#include "traces/demangle.h"

namespace umsim::sim {

std::string format_time_ns(std::uint64_t ns) {
  if (ns >= 1000000000ull) return fmt::format("{:.3f} s", static_cast<double>(ns) / 1e9);
  if (ns >= 1000000ull) return fmt::format("{:.3f} ms", static_cast<double>(ns) / 1e6);
  if (ns >= 1000ull) return fmt::format("{:.1f} us", static_cast<double>(ns) / 1e3);
  return fmt::format("{} ns", ns);
}

std::string format_size(std::uint64_t bytes) {
  if (bytes >= (1ull << 30)) return fmt::format("{:.2f} GiB", static_cast<double>(bytes) / (1ull << 30));
  if (bytes >= (1ull << 20)) return fmt::format("{:.1f} MiB", static_cast<double>(bytes) / (1ull << 20));
  if (bytes >= (1ull << 10)) return fmt::format("{:.1f} KiB", static_cast<double>(bytes) / (1ull << 10));
  return fmt::format("{} B", bytes);
}

namespace {
std::string row(const std::string& name, const Counters& c) {
  return fmt::format("{:<24} {:>12} {:>12} {:>10} {:>8} {:>8} {:>11} {:>11} {:>11} {:>11} {:>7} {:>9}\n",
                     name.size() > 24 ? name.substr(0, 23) + "~" : name, format_time_ns(c.time_ns),
                     format_time_ns(c.stall_ns), c.gpu_faults, c.fault_batches, c.cpu_faults, format_size(c.bytes_h2d),
                     format_size(c.bytes_d2h), format_size(c.bytes_peer), format_size(c.bytes_prefetched), c.evictions,
                     c.remote_accesses);
}
std::string header() {
  return fmt::format("{:<24} {:>12} {:>12} {:>10} {:>8} {:>8} {:>11} {:>11} {:>11} {:>11} {:>7} {:>9}\n", "scope",
                     "time", "stall", "gpu_faults", "batches", "cpu_flt", "H2D", "D2H", "peer", "prefetched",
                     "evicted", "remote");
}
}  // namespace

std::string summary_table(const Result& r, std::size_t max_kernels) {
  std::string out = header();
  out += row("total", r.total);
  if (r.phases.size() > 1 || (r.phases.size() == 1 && r.phases[0].name != "main"))
    for (const auto& p : r.phases) out += row("phase " + p.name, p.counters);
  const std::size_t shown = std::min(max_kernels, r.kernels.size());
  for (std::size_t i = 0; i < shown; ++i)
    out += row(fmt::format("{} (gpu{})", trace::demangled_name(r.kernels[i].name), r.kernels[i].gpu),
               r.kernels[i].counters);
  if (shown < r.kernels.size())
    out += fmt::format("... {} more kernels (see --json / --events)\n", r.kernels.size() - shown);
  if (r.total.thrashing_events || r.total.throttles)
    out += fmt::format("thrashing: {} pages detected, {} throttles\n", r.total.thrashing_events, r.total.throttles);
  return out;
}

}  // namespace umsim::sim
