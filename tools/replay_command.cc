// `umsim replay TRACE`: replays a trace through the model and prints a summary;
// --json writes the full result (with the resolved configuration), --events a
// CSV series of kernels and phases.
#include <sys/stat.h>

#include <fstream>
#include <iostream>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "io/atomic_output.h"
#include "io/same_file.h"
#include "sim/engine.h"
#include "sim/profile_lookup.h"
#include "sim/progress_meter.h"
#include "sim/stream_creation.h"
#include "sim/summary_table.h"
#include "tools/command.h"
#include "tools/gpu_memory_spec.h"
#include "tools/output_file.h"
#include "tools/replay_setup.h"
#include "traces/trace_reader.h"
#include "traces/units.h"
#include "traces/work_estimate.h"

namespace umsim::cli {
namespace {

struct Options {
  std::string trace;
  std::string profile = sim::kDefaultProfile;
  std::string gpu_mem;
  int gpus = 0;
  PolicyChoice policy;
  std::string json;
  std::string events;
  bool check_invariants = false;
  bool warm_fault_service = false;
  bool sync_at_phases = false;
  bool streams_created_at_first_use = false;
  bool quiet = false;
  std::uint64_t work_limit = trace::kDefaultWorkLimit;
};

// Bytes this process has read so far (Linux /proc/self/io), for progress.
double bytes_read_so_far() {
  std::ifstream io("/proc/self/io");
  std::string key;
  double value = -1;
  while (io >> key >> value)
    if (key == "rchar:") return value;
  return -1;
}

void run(const Options& o) {
  sim::EngineOptions options;
  options.profile = sim::load_profile(o.profile);
  if (o.gpus) options.profile.gpus = o.gpus;  // range checked by CLI11
  if (!o.gpu_mem.empty()) {
    // A percentage needs the trace's footprint: one extra pass over allocations and frees.
    const std::uint64_t footprint =
        is_oversubscription(o.gpu_mem) ? trace_footprint(*trace::open_trace(o.trace)).gpu_bytes : 0;
    options.gpu_memory = resolve_gpu_memory(o.gpu_mem, footprint);
  }
  sim::EnginePolicies policies = make_policies(o.policy, &options.vendor);
  options.check_invariants = o.check_invariants;
  options.warm_fault_service = o.warm_fault_service;
  options.sync_at_phases = o.sync_at_phases;
  // The backend created its lowest-numbered stream before the timing: one extra pass finds it.
  if (o.streams_created_at_first_use)
    options.streams_created_at_first_use = sim::lowest_stream(*trace::open_trace(o.trace)).value_or(0);
  options.trace_name = o.trace;
  const std::string path = o.trace;
  options.reopen = [path] { return trace::open_trace(path); };

  // Outputs are checked before anything is opened, and appear only when the replay succeeded.
  io::refuse_output_naming_input(o.json, {o.trace});
  io::refuse_output_naming_input(o.events, {o.trace});
  if (!o.json.empty() && (o.json == o.events || io::same_file(o.json, o.events)))
    throw std::runtime_error("--json and --events name the same file: " + o.json);
  std::unique_ptr<io::AtomicOutput> events;
  if (!o.events.empty()) {
    events = std::make_unique<io::AtomicOutput>(o.events);
    options.events_csv = &events->stream();
  }
  // The work estimate reads the trace once before the replay: a single line can
  // ask for more page touches than the model makes in a day.
  if (o.work_limit != 0) {
    auto estimate_reader = trace::open_trace(o.trace);
    const std::string refusal =
        trace::work_limit_problem(o.trace, trace::estimate_page_touches(*estimate_reader), o.work_limit);
    if (!refusal.empty()) throw std::runtime_error(refusal);
  }
  auto reader = trace::open_trace(o.trace);

  std::unique_ptr<sim::ProgressMeter> progress;
  if (!o.quiet && sim::ProgressMeter::stderr_is_terminal()) {
    struct stat st {};
    const double size = ::stat(o.trace.c_str(), &st) == 0 ? static_cast<double>(st.st_size) : -1;
    const double start = bytes_read_so_far();
    progress = std::make_unique<sim::ProgressMeter>([size, start] {
      const double now = bytes_read_so_far();
      return size > 0 && start >= 0 && now >= 0 ? (now - start) / size : -1.0;
    });
    options.progress = [p = progress.get()](std::uint64_t n) { p->update(n); };
  }
  sim::Engine engine(std::move(options), std::move(policies));
  const Result result = engine.run(*reader);
  if (progress) progress->finish();

  if (!o.json.empty()) write_output(o.json, to_json(result).dump(2) + "\n", {o.trace});
  if (events) events->commit();
  if (!o.quiet && o.json != "-") {
    const auto& cfg = result.config;
    std::cout << fmt::format("{}: profile {}, vendor {}, GPU memory {}, prefetch {}, evict {}, migrate {}, thrashing {}\n",
                             o.trace, cfg["profile"]["name"].get<std::string>(), cfg["vendor"]["name"].get<std::string>(),
                             sim::format_size(cfg["options"]["gpu_memory_bytes"].get<std::uint64_t>()),
                             cfg["policies"]["prefetch"]["name"].get<std::string>(),
                             cfg["policies"]["evict"]["name"].get<std::string>(),
                             cfg["policies"]["migrate"]["name"].get<std::string>(),
                             cfg["policies"]["thrashing"]["name"].get<std::string>());
    std::cout << sim::summary_table(result);
  }
}

void setup(CLI::App& app) {
  auto o = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand("replay", "Replay a trace through the unified-memory model");
  cmd->add_option("trace", o->trace, "trace file (.umt text or .umtb binary)")->required();
  cmd->add_option("--profile", o->profile, "hardware profile name or .toml file (see `umsim profiles`)")
      ->capture_default_str();
  cmd->add_option("--gpu-mem", o->gpu_mem, "GPU memory per GPU, overriding the profile: a size (16GiB) or an oversubscription of the trace's footprint (150%)");
  cmd->add_option("--gpus", o->gpus, "number of GPUs, overriding the profile")->check(CLI::Range(1, 15));
  cmd->add_option("--vendor", o->policy.vendor, "driver semantics and default policies: nvidia, amd-xnack-on, amd-xnack-off, amd-apu-xnack-on, amd-apu-xnack-off")
      ->capture_default_str();
  cmd->add_option("--prefetch", o->policy.prefetch, "prefetch policy spec, e.g. tree:threshold=51 (see `umsim policies`)");
  cmd->add_option("--evict", o->policy.evict, "eviction policy spec, e.g. lru");
  cmd->add_option("--migrate", o->policy.migrate, "migration policy spec");
  cmd->add_option("--thrashing", o->policy.thrashing, "thrashing policy spec");
  cmd->add_option("--json", o->json, "write the result (counters, per kernel / phase, resolved configuration) as JSON to this file ('-': standard output)");
  cmd->add_option("--events", o->events, "write a CSV series: one row per kernel and per phase");
  cmd->add_flag("--check-invariants", o->check_invariants, "check the model's invariants after every event (slow)");
  cmd->add_flag("--warm-fault-service", o->warm_fault_service,
                "start each GPU's fault servicing as if a batch had just ended at time 0 (its first batch pays "
                "faults.cold_start_cost for the idle time since, not in full) and so not as the process's first managed-memory "
                "work on a GPU (a prefetch call does not hold to its migration's end for it): for a run that followed others "
                "in one process, as "
                "`umsim-hip calibrate`'s runs do");
  cmd->add_flag("--sync-at-phases", o->sync_at_phases,
                "let each phase marker wait for every stream's work, as the HIP backend's replays do (it synchronises "
                "every device at a marker so that a phase's time is its own): for comparisons with its results");
  cmd->add_flag("--streams-created-at-first-use", o->streams_created_at_first_use,
                "create each (GPU, stream) pair but gpu0's lowest-numbered stream at the statement that first uses it, "
                "costing host.stream_create_cost of host time there, as umsim-hip did before session 103: for "
                "comparisons with results recorded then");
  cmd->add_flag("--quiet,-q", o->quiet, "print nothing on success");
  // CLI11 reads "-1" into an unsigned option as 2^64 - 1 (no limit at all): only digits are a count.
  const CLI::Validator whole_number(
      [](std::string& value) -> std::string {
        if (value.empty() || value.find_first_not_of("0123456789") != std::string::npos)
          return "expected a whole number of page touches (0: no limit), got '" + value + "'";
        return "";
      },
      "N");
  cmd->add_option("--work-limit", o->work_limit,
                  "refuse a trace whose accesses make more page touches than this (pages per access times its "
                  "count, estimated before the replay); 0 = no limit")
      ->check(whole_number)
      ->capture_default_str();
  cmd->callback([o] { run(*o); });
}

}  // namespace

UMSIM_REGISTER_COMMAND("replay", 20, setup);

}  // namespace umsim::cli
