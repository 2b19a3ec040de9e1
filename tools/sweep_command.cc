// `umsim sweep`: replays every combination of traces x vendors x policies x
// GPU memory sizes, on every core, and writes one JSON line per combination
// (in a fixed order, whatever the thread count) for plotting and analysis.
// `--shard K/N` runs every N-th combination, for Slurm array jobs
// (tools/slurm/sweep.sbatch); concatenated shards sorted by "index" equal
// the unsharded output.
#include <unistd.h>

#include <atomic>
#include <fstream>
#include <iostream>
#include <mutex>
#include <thread>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "sim/engine.h"
#include "sim/profile_lookup.h"
#include "tools/command.h"
#include "tools/replay_setup.h"
#include "tools/sweep_plan.h"
#include "traces/trace_reader.h"
#include "traces/trace_stats.h"

namespace umsim::cli {
namespace {

struct Options {
  SweepAxes axes;
  std::string profile = sim::kDefaultProfile;
  std::string out;
  std::string shard = "0/1";
  unsigned jobs = 0;
  bool quiet = false;
};

nlohmann::ordered_json run_point(const SweepPoint& p, const sim::HardwareProfile& profile,
                                 std::uint64_t managed_footprint) {
  sim::EngineOptions options;
  options.profile = profile;
  options.gpu_memory = resolve_gpu_memory(p.gpu_mem, managed_footprint);
  options.trace_name = p.trace;
  const std::string path = p.trace;
  options.reopen = [path] { return trace::open_trace(path); };
  PolicyChoice choice{p.vendor, p.prefetch, p.evict, p.migrate, p.thrashing};
  sim::EnginePolicies policies = make_policies(choice, &options.vendor);
  const std::uint64_t gpu_memory = options.gpu_memory ? options.gpu_memory : profile.gpu_memory;
  sim::Engine engine(std::move(options), std::move(policies));
  auto reader = trace::open_trace(p.trace);
  const Result result = engine.run(*reader);

  nlohmann::ordered_json line;
  line["index"] = p.index;
  line["trace"] = p.trace;
  line["vendor"] = p.vendor;
  line["prefetch"] = result.config["policies"]["prefetch"]["name"];
  line["evict"] = result.config["policies"]["evict"]["name"];
  line["migrate"] = result.config["policies"]["migrate"]["name"];
  line["thrashing"] = result.config["policies"]["thrashing"]["name"];
  line["gpu_mem_spec"] = p.gpu_mem;
  line["gpu_mem_bytes"] = gpu_memory;
  line["managed_footprint_bytes"] = managed_footprint;
  // Footprint as a percentage of GPU memory (100 = fits exactly).
  line["oversubscription_pct"] =
      gpu_memory ? static_cast<double>(managed_footprint) * 100.0 / static_cast<double>(gpu_memory) : 0.0;
  line["result"] = to_json(result);
  return line;
}

void run(const Options& o) {
  const std::vector<SweepPoint> all = expand_sweep(o.axes);
  const Shard shard = parse_shard(o.shard);
  std::vector<const SweepPoint*> mine;
  for (const auto& p : all)
    if (shard.contains(p.index)) mine.push_back(&p);

  const sim::HardwareProfile profile = sim::load_profile(o.profile);
  // One streaming statistics pass per trace gives the footprint for "P%" sizes
  // (and rejects a malformed trace before any thread starts).
  std::vector<std::uint64_t> footprint(o.axes.traces.size());
  for (std::size_t t = 0; t < o.axes.traces.size(); ++t) {
    auto reader = trace::open_trace(o.axes.traces[t]);
    footprint[t] = trace::collect_stats(*reader).peak_live_managed_bytes;
  }
  auto footprint_of = [&](const std::string& trace) {
    for (std::size_t t = 0; t < o.axes.traces.size(); ++t)
      if (o.axes.traces[t] == trace) return footprint[t];
    return std::uint64_t{0};
  };

  std::ofstream out_file;
  if (!o.out.empty()) {
    out_file.open(o.out, std::ios::binary);
    if (!out_file) throw std::runtime_error(o.out + ": cannot open for writing");
  }
  std::ostream& out = o.out.empty() ? std::cout : out_file;

  const bool show_progress = !o.quiet && ::isatty(STDERR_FILENO);
  const unsigned jobs = o.jobs ? o.jobs : std::max(1u, std::thread::hardware_concurrency());
  std::vector<std::string> lines(mine.size());
  std::atomic<std::size_t> next{0}, done{0};
  std::atomic<bool> failed{false};
  std::mutex error_mutex;
  std::string first_error;
  auto worker = [&] {
    for (std::size_t i; !failed && (i = next.fetch_add(1)) < mine.size();) {
      const SweepPoint& p = *mine[i];
      try {
        lines[i] = run_point(p, profile, footprint_of(p.trace)).dump();
      } catch (const std::exception& e) {
        std::lock_guard lock(error_mutex);
        if (!failed.exchange(true))
          first_error = fmt::format("point {} (trace {}, vendor {}, prefetch '{}', evict '{}', migrate '{}', "
                                    "thrashing '{}', gpu-mem '{}'): {}",
                                    p.index, p.trace, p.vendor, p.prefetch, p.evict, p.migrate, p.thrashing,
                                    p.gpu_mem, e.what());
      }
      const std::size_t n = ++done;
      if (show_progress) {
        std::lock_guard lock(error_mutex);
        std::cerr << fmt::format("\rsweep: {}/{} done", n, mine.size()) << std::flush;
      }
    }
  };
  std::vector<std::thread> threads;
  for (unsigned t = 0; t < std::min<std::size_t>(jobs, mine.size()); ++t) threads.emplace_back(worker);
  for (auto& t : threads) t.join();
  if (show_progress && !mine.empty()) std::cerr << "\n";
  if (failed) throw std::runtime_error("sweep: " + first_error);

  for (const auto& line : lines) out << line << "\n";
  out.flush();
  if (!out) throw std::runtime_error((o.out.empty() ? std::string("stdout") : o.out) + ": cannot write");
  if (!o.quiet)
    std::cerr << fmt::format("sweep: {} of {} combinations (shard {}) on {} threads{}\n", mine.size(), all.size(),
                             o.shard, std::min<std::size_t>(jobs, mine.size()),
                             o.out.empty() ? "" : ", written to " + o.out);
}

void setup(CLI::App& app) {
  auto o = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand(
      "sweep", "Replay traces x vendors x policies x GPU memory sizes on every core; one JSON line per combination");
  cmd->add_option("traces", o->axes.traces, "trace files (.umt / .umtb)")->required();
  auto each = [&](const char* flag, std::vector<std::string>& values, const char* what) {
    cmd->add_option(flag, values, what)->allow_extra_args(false)->delimiter('\0');
  };
  each("--vendor", o->axes.vendors, "vendor preset (repeatable; default nvidia)");
  each("--prefetch", o->axes.prefetch, "prefetch policy spec (repeatable; default: the vendor's)");
  each("--evict", o->axes.evict, "eviction policy spec (repeatable)");
  each("--migrate", o->axes.migrate, "migration policy spec (repeatable)");
  each("--thrashing", o->axes.thrashing, "thrashing policy spec (repeatable)");
  each("--gpu-mem", o->axes.gpu_mem,
       "GPU memory: a size (16GiB) or an oversubscription of the trace's managed footprint (150%) (repeatable)");
  cmd->add_option("--profile", o->profile, "hardware profile name or .toml file")->capture_default_str();
  cmd->add_option("--out,-o", o->out, "output file (JSON Lines); default stdout");
  cmd->add_option("--jobs,-j", o->jobs, "worker threads (default: every core)");
  cmd->add_option("--shard", o->shard, "run only combinations with index % N == K (K/N)")->capture_default_str();
  cmd->add_flag("--quiet,-q", o->quiet, "no progress on stderr");
  // A repeatable axis given on the command line replaces its default.
  cmd->callback([o] {
    run(*o);
  });
}

}  // namespace

UMSIM_REGISTER_COMMAND("sweep", 25, setup);

}  // namespace umsim::cli
