// Fitting the hardware profile's parameters from calibration measurements
// (what `umsim-hip calibrate` measured, stored as raw JSON under
// profiles/raw/<profile>/), and writing them into a profile TOML in place.
// Plain C++ so fits are unit-tested and re-run without a GPU.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace umsim::hip {

// A link as the simulator models it: latency + bytes / (peak * 2/pi * atan(b * KiB)).
struct LinkFit {
  double latency_ns = 0;
  double peak_gbps = 1;
  double atan_b_per_kib = 1;
  double transfer_ns(double bytes) const;
  double rms_rel_error = 0;  // of the fitted times
};

struct SizeSample {
  double bytes = 0;
  double time_ns = 0;
};

// Least-squares (relative error) fit of latency, peak and b over a grid of b and latency.
LinkFit fit_link(const std::vector<SizeSample>& samples);

// UVM migrations (explicit prefetches) modelled as the simulator schedules them:
// serial driver work per 2 MiB VA block, each block's copy (latency + bytes over
// the link curve) queued on one copy engine. With the curve's shape b and the
// latency given (from explicit copies), fits the peak and the per-block cost on
// per-size medians.
struct MigrationSample {
  double bytes = 0;    // prefetched bytes (contiguous from offset 0)
  double time_ns = 0;
};
struct MigrationFit {
  double per_block_ns = 0;  // driver work per VA block (serial; copies overlap it)
  double latency_ns = 0;    // per copy, on the copy engine
  double peak_gbps = 1;
  double atan_b_per_kib = 1;
  double rms_rel_error = 0;
  // A prefetch of `bytes` starting at start_ns, in runs of run_bytes (one per
  // VA block; the last may hold less).
  double predict_ns(double bytes, double run_bytes = 2.0 * 1024 * 1024, double start_ns = 0) const;
};
// fixed_per_block_ns >= 0 fixes the per-block cost and fits the peak only; the
// peak is searched from 1 GB/s to max_peak_gbps (NVLink reaches hundreds).
MigrationFit fit_migration(const std::vector<MigrationSample>& samples, double atan_b_per_kib, double latency_ns,
                           double fixed_per_block_ns = -1, double max_peak_gbps = 151);

// One fresh prefetch of the calibration's fresh-prefetch run (a phase time):
// `bytes` moved in runs of `run_bytes`, one per VA block (the last may hold less).
struct FreshPrefetchSample {
  double bytes = 0;
  double run_bytes = 0;
  double time_ns = 0;
};
// The per-call and per-block costs of prefetches of never-migrated memory,
// with the link (latency, curve) fixed: a grid minimising the relative error,
// the blocks scheduled by MigrationFit::predict_ns after the call cost.
struct FreshPrefetchFit {
  double call_ns = 0;
  double per_block_ns = 0;
  double rms_rel_error = 0;
};
FreshPrefetchFit fit_fresh_prefetch(const std::vector<FreshPrefetchSample>& samples, MigrationFit link);

// Non-negative least squares for small systems (rows x cols, cols <= 8):
// minimises |A x - y|^2 with x >= 0 by projected coordinate descent.
std::vector<double> nnls(const std::vector<std::vector<double>>& a, const std::vector<double>& y, int iterations = 20000);

// One demand-fault run: the kernel's time minus launch overhead and minus the
// modelled transfer time of its migrations, against its fault-servicing counts.
struct FaultSample {
  double residual_ns = 0;     // time not explained by transfers
  double batches = 0;
  double va_block_services = 0;  // distinct (batch, 2 MiB block) pairs
  double fault_pages = 0;        // distinct (batch, page) pairs
};
struct FaultFit {
  double batch_ns = 0, va_block_ns = 0, page_ns = 0;
  double rms_rel_error = 0;
};
FaultFit fit_fault_costs(const std::vector<FaultSample>& samples);

// Computes every fitted profile value from the raw calibration JSON. Keys are
// the profile's TOML paths ("faults.batch_cost"); values are TOML literals
// ("31us", "55.2", "\"atan\"").
std::map<std::string, std::string> fit_profile(const nlohmann::json& raw);

// Replaces the values of `values`' keys in a TOML document, keeping every other
// line, comment and key order. Throws std::runtime_error naming the key when a
// key is not present in the document (calibration never invents keys).
std::string update_toml_values(const std::string& toml, const std::map<std::string, std::string>& values);

// "1234ns" / "12us" / "3ms" with 3 significant digits, integer nanoseconds.
std::string toml_duration(double ns);

}  // namespace umsim::hip
