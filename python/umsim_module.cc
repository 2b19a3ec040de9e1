// The `umsim` Python module: replays and sweeps from Python, results as dicts
// (the JSON schema of `umsim replay --json` and `umsim sweep`) or pandas
// DataFrames, and eviction / prefetch policies written in Python
// (python/python_policies.h). docs/python.md shows it in use;
// python/example.py is a notebook-style walk through.
#include <dlfcn.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdlib>
#include <filesystem>
#include <map>

#include "python/python_policies.h"
#include "sim/engine.h"
#include "sim/profile_lookup.h"
#include "tools/build_info.h"
#include "tools/gpu_memory_spec.h"
#include "tools/replay_setup.h"
#include "tools/resolved_policy_spec.h"
#include "tools/sweep_plan.h"
#include "tools/sweep_runner.h"
#include "traces/trace_reader.h"

namespace umsim::python {
namespace py = pybind11;
namespace {

// A JSON value as Python objects (through the json module: exact and simple).
py::object to_python(const nlohmann::ordered_json& j) {
  return py::module_::import("json").attr("loads")(j.dump());
}

cli::TraceFootprint footprint_of(const std::string& trace) {
  auto reader = trace::open_trace(trace);
  return cli::trace_footprint(*reader);
}

std::string python_name(const py::object& policy) {
  return "python:" + py::str(py::type::of(policy).attr("__name__")).cast<std::string>();
}

// One replay; a policy argument is a spec string ("lru:granularity=4KiB") or,
// for prefetch and evict, a Python policy object.
py::object replay(const std::string& trace, const std::string& vendor, const py::object& prefetch,
                  const py::object& evict, const std::string& migrate, const std::string& thrashing,
                  const std::string& gpu_mem, const std::string& profile_name) {
  const bool python_prefetch = !prefetch.is_none() && !py::isinstance<py::str>(prefetch);
  const bool python_evict = !evict.is_none() && !py::isinstance<py::str>(evict);
  cli::PolicyChoice choice{vendor, python_prefetch || prefetch.is_none() ? "" : prefetch.cast<std::string>(),
                           python_evict || evict.is_none() ? "" : evict.cast<std::string>(), migrate, thrashing};
  sim::EngineOptions options;
  options.profile = sim::load_profile(profile_name.empty() ? std::string(sim::kDefaultProfile) : profile_name);
  options.gpu_memory = cli::resolve_gpu_memory(gpu_mem, cli::is_oversubscription(gpu_mem) ? footprint_of(trace).gpu_bytes : 0);
  options.trace_name = trace;
  options.reopen = [trace] { return trace::open_trace(trace); };
  sim::EnginePolicies policies = cli::make_policies(choice, &options.vendor);
  const nlohmann::ordered_json no_params = nlohmann::ordered_json::object();
  if (python_prefetch) {
    policies.prefetch = make_python_prefetch(prefetch);
    policies.resolved["prefetch"] = {{"name", python_name(prefetch)}, {"params", no_params}};
  }
  if (python_evict) {
    policies.eviction = make_python_eviction(evict);
    policies.resolved["evict"] = {{"name", python_name(evict)}, {"params", no_params}};
  }
  sim::Engine engine(std::move(options), std::move(policies));
  auto reader = trace::open_trace(trace);
  Result result;
  if (python_prefetch || python_evict) {
    result = engine.run(*reader);  // the policies call into Python: keep the interpreter's lock
  } else {
    py::gil_scoped_release unlocked;
    result = engine.run(*reader);
  }
  return to_python(to_json(result));
}

// A sweep's lines (the `umsim sweep` format, with "sweep" objects), in index order.
py::list sweep(const std::vector<std::string>& traces, const std::vector<std::string>& vendors,
               const std::vector<std::string>& profiles, const std::vector<std::string>& prefetch,
               const std::vector<std::string>& evict, const std::vector<std::string>& migrate,
               const std::vector<std::string>& thrashing, const std::vector<std::string>& gpu_mem,
               const std::vector<std::int64_t>& seeds) {
  cli::SweepAxes axes;
  axes.traces = traces;
  auto set = [](std::vector<std::string>& axis, const std::vector<std::string>& values) {
    if (!values.empty()) axis = values;
  };
  set(axes.vendors, vendors);
  set(axes.profiles, profiles);
  set(axes.prefetch, prefetch);
  set(axes.evict, evict);
  set(axes.migrate, migrate);
  set(axes.thrashing, thrashing);
  set(axes.gpu_mem, gpu_mem);
  axes.seeds = seeds;
  const auto points = cli::expand_sweep(axes, cli::takes_unset_seed);
  nlohmann::ordered_json info;
  info["points"] = points.size();
  info["shard"] = "0/1";
  info["experiment"] = cli::experiment_json(axes);
  info["umsim"] = {{"version", cli::kUmsimVersion}, {"commit", cli::umsim_git_commit()}};
  std::map<std::string, sim::HardwareProfile> loaded;
  std::map<std::string, cli::TraceFootprint> footprint;
  for (const auto& p : axes.profiles)
    loaded.emplace(p, sim::load_profile(p.empty() ? std::string(sim::kDefaultProfile) : p));
  for (const auto& t : axes.traces) footprint[t] = footprint_of(t);
  std::vector<nlohmann::ordered_json> lines;
  {
    py::gil_scoped_release unlocked;
    for (const auto& p : points) {
      nlohmann::ordered_json line = cli::run_sweep_point(p, loaded.at(p.profile), footprint.at(p.trace));
      line["sweep"] = info;
      lines.push_back(std::move(line));
    }
  }
  py::list out;
  for (const auto& l : lines) out.append(to_python(l));
  return out;
}

// One row per sweep line, nested fields flattened ("result.total.time_ns").
py::object frame(const py::list& lines) {
  return py::module_::import("pandas").attr("json_normalize")(lines);
}

// The profiles beside the module (its Bazel runfiles), unless UMSIM_PROFILE_DIR
// names others: the module then finds them from any working directory.
void find_profiles_beside_module() {
  Dl_info info{};
  if (std::getenv("UMSIM_PROFILE_DIR") || !dladdr(reinterpret_cast<void*>(&footprint_of), &info) || !info.dli_fname)
    return;
  const std::filesystem::path dir = std::string(info.dli_fname) + ".runfiles/umsim/profiles";
  std::error_code ec;
  if (std::filesystem::is_directory(dir, ec)) ::setenv("UMSIM_PROFILE_DIR", dir.c_str(), 0);
}

}  // namespace
}  // namespace umsim::python

PYBIND11_MODULE(umsim, m) {
  namespace py = pybind11;
  using namespace umsim::python;
  m.doc() = "umsim: unified-memory simulator. replay() and sweep() return the JSON results as dicts; "
            "frame() makes a pandas DataFrame of sweep lines. Prefetch and eviction policies may be Python "
            "objects (slow: for prototyping).";
  find_profiles_beside_module();
  m.attr("__version__") = umsim::cli::kUmsimVersion;
  m.attr("git_commit") = umsim::cli::umsim_git_commit();
  m.def("replay", &replay, py::arg("trace"), py::kw_only(), py::arg("vendor") = "nvidia",
        py::arg("prefetch") = py::none(), py::arg("evict") = py::none(), py::arg("migrate") = "",
        py::arg("thrashing") = "", py::arg("gpu_mem") = "", py::arg("profile") = "",
        "Replays a trace; returns the result (schema umsim-result-1) as a dict. prefetch / evict: a policy spec "
        "string or a Python policy object; gpu_mem: '16GiB' or '150%'.");
  m.def("sweep", &sweep, py::arg("traces"), py::kw_only(), py::arg("vendors") = std::vector<std::string>{},
        py::arg("profiles") = std::vector<std::string>{}, py::arg("prefetch") = std::vector<std::string>{},
        py::arg("evict") = std::vector<std::string>{}, py::arg("migrate") = std::vector<std::string>{},
        py::arg("thrashing") = std::vector<std::string>{}, py::arg("gpu_mem") = std::vector<std::string>{},
        py::arg("seeds") = std::vector<std::int64_t>{},
        "Runs every combination (as `umsim sweep`); returns its lines as a list of dicts in index order.");
  m.def("frame", &frame, py::arg("lines"), "A pandas DataFrame of sweep lines (needs python3-pandas).");
}
