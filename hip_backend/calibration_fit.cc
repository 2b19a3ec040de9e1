#include "hip_backend/calibration_fit.h"

#include "hip_backend/compute_overlap_fit.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>

#include "traces/page_touch.h"

namespace umsim::hip {

double LinkFit::transfer_ns(double bytes) const {
  if (bytes <= 0) return 0;
  const double bw = peak_gbps * 2.0 / M_PI * std::atan(atan_b_per_kib * bytes / 1024.0);
  return latency_ns + bytes / bw;
}

namespace {

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// Repeated calibration runs ({"test", "bytes", "time_ns"} records) grouped by
// test: every repetition's time, each test's bytes, and the last run's bytes
// (for run sets whose tests all move the same amount).
struct RunsByTest {
  std::map<std::string, std::vector<double>> times;
  std::map<std::string, double> bytes;
  double last_bytes = 0;
};

RunsByTest runs_by_test(const nlohmann::json& runs) {
  RunsByTest r;
  for (const auto& c : runs) {
    const std::string test = c.at("test").get<std::string>();
    r.times[test].push_back(c.at("time_ns").get<double>());
    r.last_bytes = r.bytes[test] = c.at("bytes").get<double>();
  }
  return r;
}

// For fixed latency and b, the best peak in relative least squares is closed form:
// t_i = L + s_i / (P g_i)  =>  (t_i - L) = (s_i/g_i) * (1/P); minimise sum((pred-t)/t)^2 over q = 1/P.
LinkFit best_peak(const std::vector<SizeSample>& s, double latency, double b) {
  double num = 0, den = 0;
  for (const auto& x : s) {
    const double g = 2.0 / M_PI * std::atan(b * x.bytes / 1024.0);
    const double u = x.bytes / g / x.time_ns;       // coefficient of q, scaled by 1/t
    const double r = (x.time_ns - latency) / x.time_ns;
    num += u * r;
    den += u * u;
  }
  LinkFit f;
  f.latency_ns = latency;
  f.atan_b_per_kib = b;
  f.peak_gbps = num > 0 && den > 0 ? den / num : 1.0;
  double err = 0;
  for (const auto& x : s) {
    const double e = (f.transfer_ns(x.bytes) - x.time_ns) / x.time_ns;
    err += e * e;
  }
  f.rms_rel_error = s.empty() ? 0 : std::sqrt(err / s.size());
  return f;
}

}  // namespace

LinkFit fit_link(const std::vector<SizeSample>& samples) {
  if (samples.empty()) throw std::runtime_error("link fit: no samples");
  double min_t = samples.front().time_ns;
  for (const auto& s : samples) min_t = std::min(min_t, s.time_ns);
  LinkFit best;
  best.rms_rel_error = INFINITY;
  for (int li = 0; li <= 60; ++li) {
    const double latency = min_t * li / 61.0;
    for (int bi = 0; bi <= 120; ++bi) {
      const double b = 1e-4 * std::pow(10.0, bi / 30.0);  // 1e-4 .. 1e0 per KiB
      const LinkFit f = best_peak(samples, latency, b);
      if (f.rms_rel_error < best.rms_rel_error) best = f;
    }
  }
  return best;
}

double MigrationFit::predict_ns(double bytes, double run_bytes, double start_ns) const {
  // As the simulator schedules a prefetch: the driver spends per_block_ns on each
  // VA block in turn, after the call (start_ns); each block's copy (latency +
  // run / bw(run)) queues on the one copy engine of that direction.
  double driver = start_ns, engine = 0;
  for (double left = bytes; left > 0; left -= run_bytes) {
    const double run = std::min(left, run_bytes);
    driver += per_block_ns;
    const double bw = peak_gbps * 2.0 / M_PI * std::atan(atan_b_per_kib * run / 1024.0);
    engine = std::max(engine, driver) + latency_ns + run / bw;
  }
  return engine;
}

FreshPrefetchFit fit_fresh_prefetch(const std::vector<FreshPrefetchSample>& samples, MigrationFit link) {
  if (samples.empty()) throw std::runtime_error("fresh prefetch fit: no samples");
  FreshPrefetchFit best;
  best.rms_rel_error = INFINITY;
  for (int bi = 0; bi <= 400; ++bi) {      // per block 0 .. 100 us
    link.per_block_ns = 250.0 * bi;
    for (int ci = 0; ci <= 600; ++ci) {    // per call 0 .. 150 us
      const double call = 250.0 * ci;
      double err = 0;
      for (const auto& s : samples) {
        const double e = (link.predict_ns(s.bytes, s.run_bytes, call) - s.time_ns) / s.time_ns;
        err += e * e;
      }
      const double rms = std::sqrt(err / samples.size());
      if (rms < best.rms_rel_error) best = {call, link.per_block_ns, rms};
    }
  }
  return best;
}

MigrationFit fit_migration(const std::vector<MigrationSample>& samples, double atan_b_per_kib, double latency_ns,
                           double fixed_per_block_ns, double max_peak_gbps) {
  if (samples.empty()) throw std::runtime_error("migration fit: no samples");
  // Median time per size (repetitions are noisy), then a grid over the per-block
  // cost and the peak, minimising the relative error.
  std::map<double, std::vector<double>> by_size;
  for (const auto& s : samples) by_size[s.bytes].push_back(s.time_ns);
  std::vector<MigrationSample> med;
  for (const auto& [bytes, times] : by_size) med.push_back({bytes, median(times)});
  MigrationFit best;
  best.rms_rel_error = INFINITY;
  const int c_steps = fixed_per_block_ns >= 0 ? 0 : 400;
  for (int ci = 0; ci <= c_steps; ++ci) {
    for (int pi = 0; pi <= 600; ++pi) {
      MigrationFit f;
      f.per_block_ns = fixed_per_block_ns >= 0 ? fixed_per_block_ns : 250.0 * ci;  // 0 .. 100 us
      f.peak_gbps = 1.0 + (max_peak_gbps - 1.0) * pi / 600.0;                         // 1 .. max_peak_gbps
      f.atan_b_per_kib = atan_b_per_kib;
      f.latency_ns = latency_ns;
      double err = 0;
      for (const auto& s : med) {
        const double e = (f.predict_ns(s.bytes) - s.time_ns) / s.time_ns;
        err += e * e;
      }
      f.rms_rel_error = std::sqrt(err / med.size());
      if (f.rms_rel_error < best.rms_rel_error) best = f;
    }
  }
  return best;
}

std::vector<double> nnls(const std::vector<std::vector<double>>& a, const std::vector<double>& y, int iterations) {
  const std::size_t rows = a.size(), cols = rows ? a[0].size() : 0;
  // Normal equations G x = h, solved with projected Gauss-Seidel (G is PSD).
  std::vector<std::vector<double>> g(cols, std::vector<double>(cols, 0));
  std::vector<double> h(cols, 0), x(cols, 0);
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t i = 0; i < cols; ++i) {
      h[i] += a[r][i] * y[r];
      for (std::size_t j = 0; j < cols; ++j) g[i][j] += a[r][i] * a[r][j];
    }
  for (int it = 0; it < iterations; ++it)
    for (std::size_t i = 0; i < cols; ++i) {
      if (g[i][i] <= 0) continue;
      double s = h[i];
      for (std::size_t j = 0; j < cols; ++j)
        if (j != i) s -= g[i][j] * x[j];
      x[i] = std::max(0.0, s / g[i][i]);
    }
  return x;
}

FaultFit fit_fault_costs(const std::vector<FaultSample>& samples) {
  if (samples.empty()) throw std::runtime_error("fault fit: no samples");
  // Relative weighting: each row divided by its residual so large runs do not dominate.
  std::vector<std::vector<double>> a;
  std::vector<double> y;
  for (const auto& s : samples) {
    const double w = 1.0 / std::max(1.0, s.residual_ns);
    a.push_back({s.batches * w, s.va_block_services * w, s.fault_pages * w});
    y.push_back(std::max(0.0, s.residual_ns) * w);
  }
  const auto x = nnls(a, y);
  FaultFit f{x[0], x[1], x[2], 0};
  double err = 0;
  for (const auto& s : samples) {
    const double pred = f.batch_ns * s.batches + f.va_block_ns * s.va_block_services + f.page_ns * s.fault_pages;
    const double e = (pred - s.residual_ns) / std::max(1.0, s.residual_ns);
    err += e * e;
  }
  f.rms_rel_error = std::sqrt(err / samples.size());
  return f;
}

std::string toml_duration(double ns) {
  const auto v = static_cast<std::uint64_t>(std::llround(std::max(0.0, ns)));
  return fmt::format("\"{}ns\"", v);
}

namespace {

// A per-touch cost, to the picosecond ("0.093ns"): whole nanoseconds would
// round an H200's 0.1 ns per resident page touch to nothing.
std::string toml_fine_duration(double ns) {
  const double ps = std::round(std::max(0.0, ns) * 1000);
  return fmt::format("\"{}ns\"", ps / 1000);
}

const nlohmann::json& need(const nlohmann::json& j, const char* key) {
  if (!j.contains(key)) throw std::runtime_error(std::string("calibration data: missing '") + key + "'");
  return j.at(key);
}

// Sum of modelled transfer times of a histogram {"bytes": count}.
double transfers_ns(const nlohmann::json& hist, const LinkFit& link) {
  double t = 0;
  for (auto it = hist.begin(); it != hist.end(); ++it)
    t += link.transfer_ns(std::stod(it.key())) * it.value().get<double>();
  return t;
}

LinkFit link_from_copies(const nlohmann::json& raw, const char* direction) {
  std::vector<SizeSample> s;
  for (const auto& c : need(raw, "copies"))
    if (c.at("memory") == "pinned" && c.at("direction") == direction)
      s.push_back({c.at("bytes").get<double>(), c.at("time_ns").get<double>()});
  return fit_link(s);
}

double best_bandwidth(const nlohmann::json& raw, const char* memory) {
  double best = 0;
  for (const auto& c : need(raw, "copies"))
    if (c.at("memory") == memory) best = std::max(best, c.at("bytes").get<double>() / c.at("time_ns").get<double>());
  return best;
}

std::string gbps(double v) { return fmt::format("{:.2f}", v); }

constexpr double kMinPrefetchFitBytes = 1024.0 * 1024;
constexpr double kCachedUploadBytes = 16.0 * 1024 * 1024;  // the largest "copies" upload taken as cached

// Touches of one sub-page run (a read of the whole buffer at its stride):
// page touches and transaction units of `unit` bytes, by the trace format's
// rule for the bytes an access touches (traces/page_touch.h).
struct TouchCounts {
  double touches = 0, units = 0;
};
TouchCounts subpage_counts(double bytes, double stride, double unit) {
  trace::Event read;
  read.kind = trace::EventKind::kGpuAccess;
  read.length = static_cast<trace::Bytes>(bytes);
  read.stride = static_cast<trace::Bytes>(stride);
  return {bytes / 4096, static_cast<double>(trace::touched_units_per_pass(read, static_cast<trace::Bytes>(unit)))};
}

struct TouchFit {
  double cost_ns = 0, gbps = 1, unit = 32, rms_rel_error = 0;
};

// Sub-page runs of one memory ("resident" or "pinned"): time beyond launch =
// touches * cost + units * unit / bandwidth, fitted non-negatively (relative
// errors) for each transaction unit from 32 B to 256 B; the unit that fits
// best is the memory's (HBM and PCIe reads both move more than a sector for
// a lone word). Nothing when the session has no such runs.
std::optional<TouchFit> fit_touches(const nlohmann::json& raw, const std::string& memory) {
  if (!raw.contains("subpage")) return std::nullopt;
  std::optional<TouchFit> best;
  for (double unit : {32.0, 64.0, 128.0, 256.0}) {
    std::vector<std::vector<double>> a;
    std::vector<double> y;
    for (const auto& r : raw.at("subpage")) {
      if (r.at("memory") != memory) continue;
      const TouchCounts c = subpage_counts(r.at("bytes").get<double>(), r.at("stride").get<double>(), unit);
      const double t = r.at("time_ns").get<double>() - r.at("launch_overhead_ns").get<double>();
      const double w = 1.0 / std::max(1.0, t);
      a.push_back({c.touches * w, c.units * unit * w});
      y.push_back(t * w);
    }
    if (a.size() < 2) return std::nullopt;
    const std::vector<double> x = nnls(a, y);
    double sq = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
      const double e = a[i][0] * x[0] + a[i][1] * x[1] - y[i];  // relative, since rows are scaled
      sq += e * e;
    }
    const TouchFit f{x[0], 1.0 / std::max(x[1], 1e-6), unit, std::sqrt(sq / static_cast<double>(a.size()))};
    if (!best || f.rms_rel_error < best->rms_rel_error) best = f;
  }
  return best;
}

std::map<std::string, std::string> with_cpu_words(const nlohmann::json& raw, std::map<std::string, std::string> out);

// A kernel starting on an idle GPU: each resident run's first kernel after its
// prefetch (the GPU idle for milliseconds) against the median of the same
// kernel later in the run, back to back. The resident reads and the sub-page
// runs' whole-page reads of resident memory give one excess each; the median.
// Nothing when the session has neither.
std::optional<double> idle_start_excess(const nlohmann::json& raw) {
  std::vector<double> excess;
  auto add = [&](const std::vector<double>& times) {
    if (times.size() < 2) return;
    excess.push_back(times.front() - median(std::vector<double>(times.begin() + 1, times.end())));
  };
  std::vector<double> reads, pages;
  if (raw.contains("resident"))
    for (const auto& r : raw.at("resident"))
      if (r.at("access") == "read") reads.push_back(r.at("time_ns").get<double>());
  if (raw.contains("subpage"))
    for (const auto& r : raw.at("subpage"))
      if (r.at("memory") == "resident" && r.at("shape") == "page") pages.push_back(r.at("time_ns").get<double>());
  add(reads);
  add(pages);
  if (excess.empty()) return std::nullopt;
  return std::max(0.0, median(excess));
}

// The fault path's cold start, cost * (1 - exp(-idle / time)), and the share
// of it the next batch still pays (carry). A cold kernel's isolated fault is
// measured after each gap, and a warm one right after it. With the
// calibration's "isolated" runs (back-to-back kernels of one fault each: the
// steady fault), the cost is what the cold kernel takes beyond a steady one,
// less what the first kernel pays for finding its GPU idle
// (gpu.idle_start_cost, `idle_start`), and the carry is the warm kernel's
// excess over a steady one as a share of the cost. Without them (older
// calibrations) the warm kernel stands for the steady one and there is no
// carry. The "cpu" gap (tens of ms, several time constants) gives the cost;
// the "cpu_mid" gap (about one) the time constant, from its measured length
// or, in runs that did not record it, its 64 MiB of CPU writes at the "cpu"
// run's resident write speed. Nothing without a cold-fault run.
struct ColdStartFit {
  double cost_ns = 0;
  std::optional<double> time_ns;
  std::optional<double> carry;
};
std::optional<ColdStartFit> fit_cold_start(const nlohmann::json& raw, double idle_start) {
  if (!raw.contains("cold_faults")) return std::nullopt;
  std::map<std::string, std::vector<double>> cold, warm, gap;
  for (const auto& r : raw.at("cold_faults")) {
    const std::string g = r.at("gap").get<std::string>();
    (r.at("test") == "cold" ? cold : warm)[g].push_back(r.at("time_ns").get<double>());
    if (r.contains("gap_ns") && r.at("test") == "cold") gap[g].push_back(r.at("gap_ns").get<double>());
  }
  if (cold["cpu"].empty() || warm["cpu"].empty())
    throw std::runtime_error("calibration data: cold_faults needs cold and warm kernels after the \"cpu\" gap");
  std::optional<double> steady;
  if (raw.contains("isolated")) {
    std::vector<double> medians;
    for (const auto& r : raw.at("isolated")) medians.push_back(r.at("median_ns").get<double>());
    if (!medians.empty() && median(medians) < median(warm["cpu"])) steady = median(medians);
  }
  const double base = steady.value_or(median(warm["cpu"]));
  auto excess = [&](const std::string& g) -> std::optional<double> {
    if (cold[g].empty()) return std::nullopt;
    return median(cold[g]) - base - idle_start;
  };
  ColdStartFit f;
  f.cost_ns = std::max(0.0, *excess("cpu"));
  if (steady && f.cost_ns > 0) f.carry = std::clamp((median(warm["cpu"]) - *steady) / f.cost_ns, 0.0, 0.9);
  const auto mid = excess("cpu_mid");
  double mid_gap = gap["cpu_mid"].empty() ? 0 : median(gap["cpu_mid"]);
  if (mid_gap == 0 && raw.contains("cpu"))
    for (const auto& c : raw.at("cpu"))
      if (c.at("test") == "resident")
        mid_gap = c.at("time_ns").get<double>() / c.at("pages").get<double>() * (64.0 * 1024 * 1024 / 4096);
  if (mid && *mid > 0 && f.cost_ns > 0 && mid_gap > 0)
    f.time_ns = mid_gap / -std::log1p(-std::clamp(*mid / f.cost_ns, 0.01, 0.99));
  return f;
}

}  // namespace

std::map<std::string, std::string> fit_profile(const nlohmann::json& raw) {
  std::map<std::string, std::string> out;
  const double launch = need(raw, "launch_overhead_ns").get<double>();

  // The link's latency comes from explicit pinned copies (one DMA, no driver work).
  const LinkFit copy_h2d = link_from_copies(raw, "h2d");
  const LinkFit copy_d2h = link_from_copies(raw, "d2h");

  // UVM migrations: bandwidth curve and per-VA-block cost from explicit prefetches.
  // The curve's shape (b) is the DMA engine's, from the copies; prefetches smaller
  // than 1 MiB are left out (their times vary several-fold between repetitions).
  std::map<std::string, std::vector<MigrationSample>> prefetch;
  for (const auto& p : need(raw, "prefetch"))
    if (p.at("bytes").get<double>() >= kMinPrefetchFitBytes)
      prefetch[p.at("direction").get<std::string>()].push_back({p.at("bytes").get<double>(), p.at("time_ns").get<double>()});
  if (!prefetch.count("h2d") || !prefetch.count("d2h")) throw std::runtime_error("calibration data: prefetch needs h2d and d2h samples of at least 1 MiB");
  const MigrationFit mig_h2d = fit_migration(prefetch["h2d"], copy_h2d.atan_b_per_kib, copy_h2d.latency_ns);
  // One per-block cost for both directions (one profile key): the host-to-device fit's.
  const MigrationFit mig_d2h =
      fit_migration(prefetch["d2h"], copy_d2h.atan_b_per_kib, copy_d2h.latency_ns, mig_h2d.per_block_ns);
  // The host-to-device peak from the largest moves alone, whose copies hide
  // the driver's per-block work and the call's. Fitted with the smaller ones,
  // the per-block cost takes their slowness (42-62 us a block over the stored
  // calibrations, about a 2 MiB copy's 42 or more, so that fit is driver-bound) and the peak only what is
  // left; once the profile's per-block cost (the fresh-prefetch fit's, a few
  // us) replaced it, the stored calibrations' own 256 MiB prefetches replayed
  // 2-39% longer than they took (docs/validation.md, "The link's peak from the
  // largest prefetches").
  double largest = 0;
  for (const auto& s : prefetch["h2d"]) largest = std::max(largest, s.bytes);
  std::vector<MigrationSample> largest_h2d;
  for (const auto& s : prefetch["h2d"])
    if (s.bytes == largest) largest_h2d.push_back(s);
  MigrationFit link_h2d = mig_h2d;
  link_h2d.peak_gbps = fit_migration(largest_h2d, copy_h2d.atan_b_per_kib, copy_h2d.latency_ns, 0).peak_gbps;
  LinkFit h2d{copy_h2d.latency_ns, link_h2d.peak_gbps, mig_h2d.atan_b_per_kib, mig_h2d.rms_rel_error};
  LinkFit d2h{copy_d2h.latency_ns, mig_d2h.peak_gbps, mig_d2h.atan_b_per_kib, mig_d2h.rms_rel_error};
  for (const auto& [key, f] : {std::pair{"link.host_to_gpu", h2d}, std::pair{"link.gpu_to_host", d2h}}) {
    out[std::string(key) + ".latency"] = toml_duration(f.latency_ns);
    out[std::string(key) + ".curve"] = "\"atan\"";
    out[std::string(key) + ".peak_gbps"] = gbps(f.peak_gbps);
    out[std::string(key) + ".atan_b_per_kib"] = fmt::format("{:.5f}", f.atan_b_per_kib);
  }
  out["prefetch.va_block_cost"] = toml_duration(mig_h2d.per_block_ns);
  // Each prefetch call's fixed cost: what small host-to-device prefetches
  // (one VA block, under 1 MiB) take beyond the block fit above.
  std::vector<double> call_residuals;
  for (const auto& p : need(raw, "prefetch"))
    if (p.at("direction") == "h2d" && p.at("bytes").get<double>() < kMinPrefetchFitBytes)
      call_residuals.push_back(p.at("time_ns").get<double>() - mig_h2d.predict_ns(p.at("bytes").get<double>()));
  if (!call_residuals.empty()) out["prefetch.call_cost"] = toml_duration(std::max(0.0, median(call_residuals)));
  // Calibrations with the fresh-prefetch run: per-call and per-block costs from
  // prefetches of never-migrated memory, as programs prefetch their inputs (the
  // runs above move one buffer back and forth and take about twice as long
  // under 4 MiB), on the link fitted above.
  if (raw.contains("prefetch_fresh")) {
    std::map<std::string, std::vector<double>> times;
    std::map<std::string, FreshPrefetchSample> shape;
    std::vector<double> first;
    for (const auto& p : raw.at("prefetch_fresh")) {
      const std::string test = p.at("test").get<std::string>();
      if (test == "first") {  // the replay's first prefetch, after the CPU's first touch: a cold call
        first.push_back(p.at("time_ns").get<double>());
        continue;
      }
      times[test].push_back(p.at("time_ns").get<double>());
      // "sparse" moves back the pages the CPU wrote, 64 KiB of each block.
      constexpr double kSparseRun = 64.0 * 1024;
      shape[test] = test == "sparse" ? FreshPrefetchSample{p.at("blocks").get<double>() * kSparseRun, kSparseRun, 0}
                                     : FreshPrefetchSample{p.at("bytes").get<double>(), 2.0 * 1024 * 1024, 0};
    }
    std::vector<FreshPrefetchSample> samples;
    for (auto& [test, t] : times) {
      FreshPrefetchSample s = shape[test];
      s.time_ns = median(t);
      samples.push_back(s);
    }
    if (!samples.empty()) {
      const FreshPrefetchFit f = fit_fresh_prefetch(samples, link_h2d);
      out["prefetch.call_cost"] = toml_duration(f.call_ns);
      out["prefetch.va_block_cost"] = toml_duration(f.per_block_ns);
      // Blocks bound for the CPU keep the work the back-and-forth runs give
      // them (the device-to-host link above was fitted with it).
      out["prefetch.to_cpu_va_block_cost"] = toml_duration(mig_h2d.per_block_ns);
    }
    // The cold call: the first 64 KiB prefetch beyond the same prefetch later on.
    if (!first.empty() && times.count("p64KiB"))
      out["prefetch.cold_call_cost"] = toml_duration(std::max(0.0, median(first) - median(times["p64KiB"])));
  }
  // Kernel launch: what an empty kernel's hipEvents add to every kernel.
  out["gpu.launch_cost"] = toml_duration(launch);

  // Demand faults: time beyond launch and the modelled copies, over batches,
  // VA-block services and pages (each block service pays one link latency).
  std::vector<FaultSample> faults;
  double concurrency = 1;
  for (const auto& r : need(raw, "faults")) {
    FaultSample s;
    s.batches = r.at("batches").get<double>();
    s.va_block_services = r.at("va_block_services").get<double>();
    s.fault_pages = r.at("fault_pages").get<double>();
    LinkFit no_latency = h2d;
    no_latency.latency_ns = 0;
    s.residual_ns = r.at("time_ns").get<double>() - launch - transfers_ns(r.at("transfers"), no_latency) -
                    s.va_block_services * h2d.latency_ns;
    if (s.batches > 0) {
      faults.push_back(s);
      concurrency = std::max(concurrency, s.fault_pages / s.batches);
    }
  }
  if (!faults.empty()) {
    const FaultFit ff = fit_fault_costs(faults);
    out["faults.batch_cost"] = toml_duration(ff.batch_ns);
    out["faults.va_block_cost"] = toml_duration(ff.va_block_ns);
    out["faults.page_cost"] = toml_duration(ff.page_ns);
    out["faults.concurrency"] = fmt::format("{}", static_cast<int>(std::lround(std::min(concurrency, 256.0))));
  }

  // CPU: resident access, first touch and faults on GPU-resident pages (each
  // fault's page comes back over the device-to-host migration link).
  // Sessions before the read runs have neither "resident_read" nor "fault_read".
  std::optional<double> resident_read, read_fault;
  double resident = 0, first = 0, fault = 0;
  for (const auto& c : need(raw, "cpu")) {
    const double pages = std::max(1.0, c.at("pages").get<double>());
    const double per_page = c.at("time_ns").get<double>() / pages;
    const std::string test = c.at("test");
    if (test == "resident") resident = per_page;
    if (test == "resident_read") resident_read = per_page;
    if (test == "first_touch") first = per_page;
    if (test == "fault" || test == "fault_read") {
      const double n = c.at("cpu_faults").get<double>() > 0 ? c.at("cpu_faults").get<double>() : pages;
      const double copies = c.at("transfers").empty() ? pages * d2h.transfer_ns(4096) : transfers_ns(c.at("transfers"), d2h);
      const double access = pages * (test == "fault" ? resident : resident_read.value_or(resident));
      (test == "fault" ? fault : read_fault.emplace()) = (c.at("time_ns").get<double>() - copies - access) / n;
    }
  }
  out["cpu.page_access_cost"] = toml_duration(resident);
  if (resident_read) out["cpu.page_read_cost"] = toml_duration(*resident_read);
  out["cpu.first_touch_cost"] = toml_duration(std::max(0.0, first - resident));
  out["cpu.fault_cost"] = toml_duration(std::max(0.0, fault));
  if (read_fault) out["cpu.read_fault_cost"] = toml_duration(std::max(0.0, *read_fault));

  // Two GPUs ("peer", when the calibration ran with two): the peer link from
  // explicit peer copies, the peak and the per-block driver cost of peer
  // migrations from peer prefetches, remote peer reads from AccessedBy kernels.
  if (raw.contains("peer")) {
    const nlohmann::json& peer = raw.at("peer");
    std::vector<SizeSample> copies;
    for (const auto& c : need(peer, "copies")) copies.push_back({c.at("bytes").get<double>(), c.at("time_ns").get<double>()});
    const LinkFit link = fit_link(copies);
    std::vector<MigrationSample> prefetches;
    for (const auto& p : need(peer, "prefetch"))
      if (p.at("bytes").get<double>() >= kMinPrefetchFitBytes)
        prefetches.push_back({p.at("bytes").get<double>(), p.at("time_ns").get<double>()});
    if (prefetches.empty()) throw std::runtime_error("calibration data: peer prefetch needs samples of at least 1 MiB");
    const MigrationFit mig = fit_migration(prefetches, link.atan_b_per_kib, link.latency_ns, -1, 901);
    out["link.gpu_to_gpu.latency"] = toml_duration(link.latency_ns);
    out["link.gpu_to_gpu.curve"] = "\"atan\"";
    out["link.gpu_to_gpu.peak_gbps"] = gbps(mig.peak_gbps);
    out["link.gpu_to_gpu.atan_b_per_kib"] = fmt::format("{:.5f}", link.atan_b_per_kib);
    out["prefetch.peer_va_block_cost"] = toml_duration(mig.per_block_ns);
    std::vector<double> reads;
    for (const auto& r : need(peer, "remote"))
      reads.push_back(r.at("bytes").get<double>() /
                      std::max(1.0, r.at("time_ns").get<double>() - r.at("launch_overhead_ns").get<double>()));
    out["remote.gpu_to_gpu_gbps"] = gbps(median(reads));
  }

  // Sub-page touches: per-touch cost and bandwidth in 32-byte sectors, for
  // resident pages and over the link to pinned memory.
  if (const auto res = fit_touches(raw, "resident")) {
    out["gpu.access_unit"] = fmt::format("\"{}B\"", res->unit);
    out["gpu.access_cost"] = toml_fine_duration(res->cost_ns);
    out["gpu.access_gbps"] = fmt::format("{}", std::lround(res->gbps));
  }
  const std::optional<double> idle = idle_start_excess(raw);
  if (idle) out["gpu.idle_start_cost"] = toml_duration(*idle);
  if (const auto cold = fit_cold_start(raw, idle.value_or(0.0))) {
    out["faults.cold_start_cost"] = toml_duration(cold->cost_ns);
    if (cold->time_ns) out["faults.cold_start_time"] = toml_duration(*cold->time_ns);
    if (cold->carry) out["faults.cold_start_carry"] = fmt::format("{:.3f}", *cold->carry);
  }
  if (const auto rem = fit_touches(raw, "pinned")) {
    out["remote.access_unit"] = fmt::format("\"{}B\"", rem->unit);
    out["remote.access_cost"] = toml_fine_duration(rem->cost_ns);
  }
  // The link's read bandwidth from whole-buffer reads of host memory (pinned,
  // mapped, AccessedBy), not from the sub-page fit: that fit trades bandwidth
  // against its touch cost to follow the sparse shapes, which are bound by
  // their requests (remote.request_cost) instead, and on the H200
  // calibrations came out 13% below to 16% above the whole reads, below on
  // most (docs/validation.md, "Whole reads of host memory").
  std::vector<double> remote;
  for (const auto& r : need(raw, "remote"))
    remote.push_back(r.at("bytes").get<double>() / std::max(1.0, r.at("time_ns").get<double>() - launch));
  if (remote.empty()) throw std::runtime_error("calibration data: 'remote' holds no runs");
  out["remote.gpu_to_host_gbps"] = gbps(median(remote));
  return with_cpu_words(raw, std::move(out));
}

namespace {
// A duration this file wrote with toml_duration ("\"123ns\""), in ns.
double duration_ns(const std::string& toml) {
  return std::stod(toml.substr(toml.find_first_of("0123456789")));
}

// The CPU's one-word touches of resident pages (sessions with "cpu_words"),
// and the explicit copies, which every session has.
std::map<std::string, std::string> with_cpu_words(const nlohmann::json& raw, std::map<std::string, std::string> out) {
  out["host.pinned_copy_gbps"] = gbps(best_bandwidth(raw, "pinned"));
  out["host.pageable_copy_gbps"] = gbps(best_bandwidth(raw, "pageable"));
  // Uploads whose host bytes are in the CPU's cache: the "copies" runs repeat
  // each copy from one buffer, and those up to 16 MiB stay cached (on the H200
  // hosts 10-17 GB/s, against 5-10 from 64 MiB up; profiles set
  // host.pageable_cache_bytes between the two, docs/model.md).
  std::vector<double> cached;
  for (const auto& c : need(raw, "copies"))
    if (c.at("memory") == "pageable" && c.at("direction") == "h2d" && c.at("bytes").get<double>() <= kCachedUploadBytes)
      cached.push_back(c.at("bytes").get<double>() / c.at("time_ns").get<double>());
  if (!cached.empty()) out["host.pageable_cached_copy_gbps"] = gbps(median(cached));
  // Sessions with the "copy_trace" group time copies as a replay does (host
  // wall time of the runtime call): pageable bandwidth per direction from the
  // largest copies (uploads and downloads stage differently), and the call's
  // own cost from the smallest pinned copies, beyond the link latency and the
  // bytes at the pinned bandwidth.
  if (raw.contains("copy_trace")) {
    auto [t, bytes, last_bytes] = runs_by_test(raw.at("copy_trace"));
    auto largest = [&](const std::string& prefix) {
      std::string best;
      for (const auto& [test, b] : bytes)
        if (test.rfind(prefix, 0) == 0 && test.find("managed") == std::string::npos &&
            (best.empty() || b > bytes[best]))
          best = test;
      return best;
    };
    const std::string up = largest("copy_pageable_h2d_"), down = largest("copy_pageable_d2h_");
    if (!up.empty()) out["host.pageable_copy_gbps"] = gbps(bytes[up] / median(t[up]));
    if (!down.empty()) out["host.pageable_to_host_copy_gbps"] = gbps(bytes[down] / median(t[down]));
    const double pinned = best_bandwidth(raw, "pinned");
    // Per call: what pinned copies of up to 16 MiB take beyond latency and bytes
    // (the larger ones are the bandwidth's). The smallest copies alone carry
    // more (64 KiB: 13-15 us on the H200 against 5-7 at 1-16 MiB), and the
    // validation's 256 KiB - 4 MiB copies sit between: the median of all.
    std::vector<double> call;
    for (const char* dir : {"h2d", "d2h"}) {
      const std::string prefix = std::string("copy_pinned_") + dir + "_";
      const std::string latency_key = std::string("link.") + (dir[0] == 'h' ? "host_to_gpu" : "gpu_to_host") + ".latency";
      const double latency = out.count(latency_key) ? duration_ns(out.at(latency_key)) : 0;
      for (const auto& [test, b] : bytes)
        if (test.rfind(prefix, 0) == 0 && test.find("managed") == std::string::npos && b <= 16.0 * 1024 * 1024 &&
            pinned > 0)
          for (double ns : t[test]) call.push_back(ns - latency - b / pinned);
    }
    if (!call.empty()) out["host.copy_call_cost"] = toml_duration(std::max(0.0, median(call)));
  }
  // Compute beside faults: gpu.fault_compute_overlap (hip_backend/compute_overlap_fit.h).
  if (raw.contains("compute_overlap")) {
    try {
      out["gpu.fault_compute_overlap"] = fmt::format("{:.2f}", fit_fault_compute_overlap(compute_overlap_runs(raw.at("compute_overlap"))));
    } catch (const std::invalid_argument&) {
      // Runs the fit cannot use (no stall, times out of order) leave the key unset.
    }
  }
  // ReadMostly collapse: a CPU write to a read-duplicated page (per page, less
  // the write itself), and a prefetch that duplicates again, per VA block,
  // beyond a plain prefetch of the same size (blocks of 2 MiB).
  if (raw.contains("read_mostly_collapse")) {
    auto [t, by_test, bytes] = runs_by_test(raw.at("read_mostly_collapse"));
    const double pages = bytes / 4096, blocks = std::ceil(bytes / (2 << 20));
    double write_ns = 0;
    for (const auto& c : need(raw, "cpu"))
      if (c.at("test") == "resident") write_ns = c.at("time_ns").get<double>() / std::max(1.0, c.at("pages").get<double>());
    if (t.count("collapse") && pages > 0)
      out["cpu.collapse_fault_cost"] = toml_duration(std::max(0.0, median(t["collapse"]) / pages - write_ns));
    if (t.count("reprefetch") && t.count("plain_prefetch") && out.count("prefetch.va_block_cost")) {
      // Beyond a plain prefetch's block as the back-and-forth runs time it (the
      // fresh-prefetch fit, where present, keeps that in to_cpu_va_block_cost).
      const std::string plain_block =
          out.count("prefetch.to_cpu_va_block_cost") ? "prefetch.to_cpu_va_block_cost" : "prefetch.va_block_cost";
      const double extra = (median(t["reprefetch"]) - median(t["plain_prefetch"])) / blocks;
      out["prefetch.duplicate_va_block_cost"] =
          toml_duration(std::max(0.0, duration_ns(out.at(plain_block)) + extra));
    }
  }
  // GPU writes ending read duplication: the rmw kernel duplicates the pages as
  // the read kernel does, then each store revokes the CPU's copy. Per page, the
  // difference (the stores' own service is a few percent of it on an H200).
  if (raw.contains("read_mostly_rmw")) {
    auto [t, by_test, bytes] = runs_by_test(raw.at("read_mostly_rmw"));
    if (t.count("read") && t.count("rmw") && bytes >= 4096)
      out["faults.revoke_duplicate_page_cost"] =
          toml_duration(std::max(0.0, (median(t["rmw"]) - median(t["read"])) / (bytes / 4096)));
  }
  if (!raw.contains("cpu_words")) return out;
  for (const auto& c : raw.at("cpu_words")) {
    const double per_page = c.at("time_ns").get<double>() / std::max(1.0, c.at("pages").get<double>());
    if (c.at("test") == "word_write") out["cpu.word_access_cost"] = toml_duration(per_page);
    if (c.at("test") == "word_read") out["cpu.word_read_cost"] = toml_duration(per_page);
  }
  return out;
}
}  // namespace

std::string update_toml_values(const std::string& toml, const std::map<std::string, std::string>& values) {
  std::istringstream in(toml);
  std::ostringstream out;
  std::string line, section;
  std::map<std::string, bool> done;
  auto trim = [](std::string s) {
    const auto b = s.find_first_not_of(" \t");
    const auto e = s.find_last_not_of(" \t\r");
    return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
  };
  while (std::getline(in, line)) {
    const std::string t = trim(line);
    if (!t.empty() && t[0] == '[') {
      const auto close = t.find(']');
      section = close == std::string::npos ? "" : trim(t.substr(1, close - 1));
    } else if (!t.empty() && t[0] != '#') {
      const auto eq = line.find('=');
      if (eq != std::string::npos) {
        const std::string key = trim(line.substr(0, eq));
        const std::string path = section.empty() ? key : section + "." + key;
        auto it = values.find(path);
        if (it != values.end()) {
          // Keep the comment after the value, if any, in its column (values never contain '#').
          std::string comment;
          const auto hash = line.find('#', eq);
          const std::size_t value_end = eq + 2 + it->second.size();
          if (hash != std::string::npos)
            comment = std::string(hash > value_end ? hash - value_end : 1, ' ') + line.substr(hash);
          line = line.substr(0, eq + 1) + " " + it->second + comment;
          done[path] = true;
        }
      }
    }
    out << line << "\n";
  }
  for (const auto& [k, v] : values)
    if (!done.count(k)) throw std::runtime_error("profile has no key '" + k + "' (calibration keeps the profile's keys)");
  return out.str();
}

}  // namespace umsim::hip
