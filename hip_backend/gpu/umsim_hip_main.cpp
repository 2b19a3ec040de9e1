// umsim-hip: replays umsim traces on a real GPU and calibrates hardware profiles.
//
//   umsim-hip replay TRACE [--json OUT] [--safe-fraction F] [--no-counters]
//                    [--host-probe PROBE.umt --host-probe-json PROBE_OUT] [--um-records CSV]
//   umsim-hip calibrate --out profiles/NAME.toml [--raw FILE] [--quick]
//   umsim-hip fit --raw FILE --out profiles/NAME.toml
//   umsim-hip record -o OUT.umt -- PROGRAM ARGS...   (hip_backend/recorder/)
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "hip_backend/calibration_fit.h"
#include "io/atomic_output.h"
#include "io/standard_output.h"
#include "hip_backend/gpu/calibrate.h"
#include "hip_backend/recorder/record_main.h"
#include "hip_backend/gpu/gpu_api.h"
#include "hip_backend/gpu/replay_runtime.h"
#include "hip_backend/hip_result.h"
#include "hip_backend/plan.h"
#include "hip_backend/safety.h"
#include "traces/trace_error.h"
#include "traces/trace_reader.h"

namespace {

using namespace umsim;
using namespace umsim::hip;

const char* kUsage =
    "usage:\n"
    "  umsim-hip replay TRACE [--json OUT] [--safe-fraction F] [--no-counters]\n"
    "                  [--host-probe PROBE.umt --host-probe-json PROBE_OUT] [--um-records CSV]\n"
    "      Replays TRACE on GPU 0.. with the real runtime API and writes the same JSON\n"
    "      schema as `umsim replay` (producer \"umsim-hip\"). Refuses traces whose managed\n"
    "      footprint exceeds F (default 0.5, at most 0.5) of the GPU's free memory.\n"
    "      --host-probe replays PROBE.umt in the same process right after TRACE's timed\n"
    "      pass (one pass, no counters) and writes its result to PROBE_OUT: the host's\n"
    "      speed differs from one process to the next; this measures the one TRACE ran in.\n"
    "      --um-records writes every UM counter record of the counting pass to CSV, one\n"
    "      line each with the kernel it is counted in (the fault service's structure).\n"
    "  umsim-hip calibrate --out PROFILE.toml [--raw RAW.json] [--quick]\n"
    "      Measures the profile's parameters, writes the raw measurements (default\n"
    "      profiles/raw/NAME/calibration.json) and updates PROFILE.toml's values in place.\n"
    "  umsim-hip probe\n"
    "      Checks that unified-memory counters work (UMSIM_CUPTI_LIB selects the CUPTI).\n"
    "  umsim-hip fit --raw RAW.json --out PROFILE.toml\n"
    "      Re-fits PROFILE.toml's values from stored raw measurements (no GPU needed).\n";

struct Args {
  std::vector<std::string> positional;
  std::string json, out, raw, host_probe, host_probe_json, um_records;
  double safe_fraction = kDefaultSafeFraction;
  bool counters = true, quick = false, help = false;
};

Args parse(int argc, char** argv) {
  Args a;
  for (int i = 2; i < argc; ++i) {
    const std::string s = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw std::runtime_error("option " + s + " needs a value");
      return argv[++i];
    };
    if (s == "--json") a.json = value();
    else if (s == "--out") a.out = value();
    else if (s == "--raw") a.raw = value();
    else if (s == "--host-probe") a.host_probe = value();
    else if (s == "--host-probe-json") a.host_probe_json = value();
    else if (s == "--um-records") a.um_records = value();
    else if (s == "--safe-fraction") a.safe_fraction = std::stod(value());
    else if (s == "--no-counters") a.counters = false;
    else if (s == "--quick") a.quick = true;
    else if (s == "-h" || s == "--help") a.help = true;
    else if (!s.empty() && s[0] == '-') throw std::runtime_error("unknown option " + s + "\n" + kUsage);
    else a.positional.push_back(s);
  }
  return a;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void write_file(const std::string& path, const std::string& text) {
  const auto dir = std::filesystem::path(path).parent_path();
  if (!dir.empty()) std::filesystem::create_directories(dir);
  umsim::io::write_file_atomically(path, text);
}

void print_summary(const Result& r) {
  std::cout << fmt::format("{:<24} {:>12} {:>12} {:>10} {:>8} {:>14} {:>14}\n", "scope", "time_us", "stall_us",
                           "faults", "batches", "bytes_h2d", "bytes_d2h");
  auto row = [](const std::string& name, const Counters& c) {
    std::cout << fmt::format("{:<24} {:>12.1f} {:>12.1f} {:>10} {:>8} {:>14} {:>14}\n", name, c.time_ns / 1e3,
                             c.stall_ns / 1e3, c.gpu_faults, c.fault_batches, c.bytes_h2d, c.bytes_d2h);
  };
  for (const auto& k : r.kernels) row("kernel " + k.name, k.counters);
  for (const auto& p : r.phases) row("phase " + p.name, p.counters);
  row("total", r.total);
}

nlohmann::ordered_json replay_config(const Args& a, bool counters) {
  nlohmann::ordered_json config;
  config["backend"] = "umsim-hip";
  config["safe_fraction"] = a.safe_fraction;
  config["page_access"] = "one warp per 4 KiB page, whole page read or written";
  config["streams"] = "one non-blocking stream per trace stream id, all created before the timed replay";
  config["phase_boundaries"] = "device synchronized at each phase marker";
  config["passes"] = counters ? "times from a pass without UM counters, counters from a second pass" : "one pass, no UM counters";
  config["excluded_from_times"] = "host time inside allocation and free calls";
  return config;
}

Plan read_plan(const std::string& path) {
  auto reader = trace::open_trace(path);
  Plan plan = build_plan(*reader);
  for (const auto& w : plan.warnings) std::fprintf(stderr, "umsim-hip: warning: %s (%s)\n", w.c_str(), path.c_str());
  return plan;
}

// The outputs must differ from each other and from the traces read: a result
// written over an input would destroy it.
void check_outputs(const Args& a) {
  std::vector<std::string> inputs = {a.positional[0]};
  if (!a.host_probe.empty()) inputs.push_back(a.host_probe);
  std::vector<std::string> outputs;
  for (const auto& o : {a.json, a.host_probe_json, a.um_records})
    if (!o.empty()) outputs.push_back(o);
  namespace fs = std::filesystem;
  auto same = [](const std::string& x, const std::string& y) {
    std::error_code ec;
    return fs::weakly_canonical(fs::absolute(x), ec) == fs::weakly_canonical(fs::absolute(y), ec);
  };
  for (const auto& o : outputs)
    for (const auto& i : inputs)
      if (same(o, i)) throw std::runtime_error("output " + o + " is the input " + i + " (refused: it would be overwritten)");
  for (std::size_t i = 0; i < outputs.size(); ++i)
    for (std::size_t j = i + 1; j < outputs.size(); ++j)
      if (same(outputs[i], outputs[j])) throw std::runtime_error("two outputs name the same file " + outputs[i]);
}

int replay(const Args& a) {
  if (a.positional.size() != 1) throw std::runtime_error("replay needs exactly one TRACE\n" + std::string(kUsage));
  if (a.host_probe.empty() != a.host_probe_json.empty())
    throw std::runtime_error("--host-probe and --host-probe-json go together (the probe trace and where its result goes)");
  if (!a.um_records.empty() && !a.counters)
    throw std::runtime_error("--um-records needs the counting pass (drop --no-counters)");
  check_outputs(a);
  const Plan plan = read_plan(a.positional[0]);
  // Read (and check) the probe before the GPU work, so a bad probe costs nothing.
  const std::optional<Plan> probe = a.host_probe.empty() ? std::nullopt : std::optional<Plan>(read_plan(a.host_probe));
  ReplayOptions opt;
  opt.safe_fraction = a.safe_fraction;
  opt.counters = a.counters;
  // The probe runs right after the timed pass: closest in time to what it
  // describes, and before the counting pass turns on UM counters, which stay on
  // for the rest of the process and slow the host's page faults.
  std::optional<Result> probe_result;
  const auto run_probe = [&] {
    ReplayOptions once = opt;
    once.counters = false;
    const Measurements pm = replay_plan(*probe, once);
    nlohmann::ordered_json config = replay_config(a, false);
    config["host_probe_after"] = a.positional[0] + " (after its timed pass, before its counting pass)";
    probe_result = make_result(*probe, pm, config);
  };
  const Measurements m = probe ? replay_plan_two_pass(plan, opt, run_probe) : replay_plan_two_pass(plan, opt);
  const Result r = make_result(plan, m, replay_config(a, a.counters));
  print_summary(r);
  if (!a.json.empty()) write_file(a.json, to_json(r).dump(2) + "\n");
  if (probe_result) write_file(a.host_probe_json, to_json(*probe_result).dump(2) + "\n");
  if (!a.um_records.empty()) {
    if (!m.counters_available)
      std::fprintf(stderr, "umsim-hip: warning: no UM counter records on this machine; %s holds kernel windows only\n",
                   a.um_records.c_str());
    std::vector<Window> windows;
    for (const auto& k : m.kernels) windows.push_back(k.counter_window);
    write_file(a.um_records, um_records_csv(m.records, windows));
  }
  return 0;
}

std::string default_raw_path(const std::string& profile) {
  const auto p = std::filesystem::path(profile);
  return (p.parent_path() / "raw" / p.stem() / "calibration.json").string();
}

int fit(const std::string& raw_path, const std::string& out) {
  const auto raw = nlohmann::json::parse(read_file(raw_path));
  const auto values = fit_profile(raw);
  write_file(out, update_toml_values(read_file(out), values));
  for (const auto& [k, v] : values) std::cout << fmt::format("{:<32} = {}\n", k, v);
  return 0;
}

int calibrate(const Args& a) {
  if (a.out.empty()) throw std::runtime_error("calibrate needs --out PROFILE.toml (an existing profile to update)");
  if (!std::filesystem::exists(a.out)) throw std::runtime_error(a.out + ": no such profile (calibration updates an existing profile's values)");
  CalibrateOptions o;
  o.quick = a.quick;
  const auto raw = run_calibration(o);
  const std::string raw_path = a.raw.empty() ? default_raw_path(a.out) : a.raw;
  write_file(raw_path, raw.dump(2) + "\n");
  std::cout << "raw measurements: " << raw_path << "\n";
  return fit(raw_path, a.out);
}

}  // namespace

int run_command(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << kUsage;
    return 2;
  }
  const std::string cmd = argv[1];
  // `record` runs another program under the recorder; its arguments are that program's.
  if (cmd == "record") return umsim::recorder::record_main(argc - 1, argv + 1);
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  std::cout << std::unitbuf;  // keep what was printed if the GPU runtime aborts
  try {
    const Args a = parse(argc, argv);
    if (a.help) {
      std::cout << kUsage;
      return 0;
    }
    if (cmd == "replay") return replay(a);
    if (cmd == "calibrate") return calibrate(a);
    if (cmd == "probe") return probe_counters();
    if (cmd == "fit") {
      if (a.raw.empty() || a.out.empty()) throw std::runtime_error("fit needs --raw RAW.json and --out PROFILE.toml");
      return fit(a.raw, a.out);
    }
    if (cmd == "-h" || cmd == "--help") {
      std::cout << kUsage;
      return 0;
    }
    std::cerr << "umsim-hip: unknown command '" << cmd << "'\n" << kUsage;
    return 2;
  } catch (const umsim::trace::TraceError& e) {
    std::cerr << "umsim-hip: " << e.what() << "\n";
    return 1;
  } catch (const UnsafeTraceError& e) {
    std::cerr << "umsim-hip: " << e.what() << "\n";
    return 3;
  } catch (const std::exception& e) {
    std::cerr << "umsim-hip: " << e.what() << "\n";
    return 1;
  }
}

int main(int argc, char** argv) {
  umsim::io::keep_standard_output_errors();  // stdout's write errors keep their reason (all output goes through std::cout)
  const int status = run_command(argc, argv);
  if (const std::string error = umsim::io::flush_standard_output(); !error.empty()) {
    std::cerr << "umsim-hip: cannot write the standard output: " << error << "\n";
    return 1;
  }
  return status;
}
