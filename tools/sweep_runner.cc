#include "tools/sweep_runner.h"

#include <fmt/format.h>

#include "sim/engine.h"
#include "sim/profile_lookup.h"
#include "tools/replay_setup.h"
#include "tools/resolved_policy_spec.h"
#include "traces/trace_reader.h"

namespace umsim::cli {

// The experiment as run: every axis after the experiment file and the command
// line were combined. Stored in every line, so that any result names its sweep.
nlohmann::ordered_json experiment_json(const SweepAxes& a) {
  nlohmann::ordered_json e;
  e["traces"] = a.traces;
  e["vendors"] = a.vendors;
  e["profiles"] = a.profiles;
  e["prefetch"] = a.prefetch;
  e["evict"] = a.evict;
  e["migrate"] = a.migrate;
  e["thrashing"] = a.thrashing;
  e["gpu_mem"] = a.gpu_mem;
  e["seeds"] = a.seeds;
  return e;
}

// Fields every line starts with, finished or failed.
nlohmann::ordered_json point_fields(const SweepPoint& p) {
  nlohmann::ordered_json line;
  line["index"] = p.index;
  line["trace"] = p.trace;
  line["vendor"] = p.vendor;
  line["profile"] = p.profile.empty() ? std::string(sim::kDefaultProfile) : p.profile;
  line["prefetch"] = p.prefetch;
  line["evict"] = p.evict;
  line["migrate"] = p.migrate;
  line["thrashing"] = p.thrashing;
  if (p.seed) line["seed"] = *p.seed;
  line["gpu_mem_spec"] = p.gpu_mem;
  return line;
}

nlohmann::ordered_json run_sweep_point(const SweepPoint& p, const sim::HardwareProfile& profile,
                                       const TraceFootprint& footprint) {
  sim::EngineOptions options;
  options.profile = profile;
  options.gpu_memory = resolve_gpu_memory(p.gpu_mem, footprint.gpu_bytes);
  options.trace_name = p.trace;
  const std::string path = p.trace;
  options.reopen = [path] { return trace::open_trace(path); };
  PolicyChoice choice{p.vendor, p.prefetch, p.evict, p.migrate, p.thrashing};
  sim::EnginePolicies policies = make_policies(choice, &options.vendor);
  const std::uint64_t gpu_memory = options.gpu_memory ? options.gpu_memory : profile.gpu_memory;
  sim::Engine engine(std::move(options), std::move(policies));
  auto reader = trace::open_trace(p.trace);
  const Result result = engine.run(*reader);

  nlohmann::ordered_json line = point_fields(p);
  // The full resolved specs (every parameter), never the bare names: two
  // configurations of one policy are two lines in every plot and table.
  for (const char* kind : {"prefetch", "evict", "migrate", "thrashing"})
    line[kind] = resolved_policy_spec(kind, result.config["policies"][kind]);
  line["gpu_mem_bytes"] = gpu_memory;
  line["managed_footprint_bytes"] = footprint.managed_bytes;
  line["gpu_footprint_bytes"] = footprint.gpu_bytes;
  // GPU footprint (in 2 MiB chunks) as a percentage of GPU memory (100 = fits exactly).
  line["oversubscription_pct"] =
      gpu_memory ? static_cast<double>(footprint.gpu_bytes) * 100.0 / static_cast<double>(gpu_memory) : 0.0;
  line["result"] = to_json(result);
  return line;
}

std::string describe_point(const SweepPoint& p) {
  return fmt::format("point {} (trace {}, vendor {}, profile '{}', prefetch '{}', evict '{}', migrate '{}', "
                     "thrashing '{}', gpu-mem '{}'{})",
                     p.index, p.trace, p.vendor, p.profile, p.prefetch, p.evict, p.migrate, p.thrashing, p.gpu_mem,
                     p.seed ? fmt::format(", seed {}", *p.seed) : "");
}

}  // namespace umsim::cli
