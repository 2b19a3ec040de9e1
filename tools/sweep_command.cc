// `umsim sweep`: replays every combination of traces x vendors x profiles x
// policies x GPU memory sizes (x seeds), on every core, and writes one JSON
// line per combination in a fixed order, whatever the thread count.
//
// With -o OUT, each finished point is first appended to the journal
// OUT.partial (whole lines, fsync'd), so that a kill, a Slurm time-out or a
// full disk loses at most the points running at the time; `--resume` reads
// the journal (and a previous OUT of the same sweep) and runs only what is
// missing. OUT itself is replaced only when the sweep ends, atomically, so a
// previous complete result is never truncated. `--shard K/N` runs every N-th
// combination for Slurm array jobs (tools/slurm/sweep.sbatch);
// `umsim sweep merge` joins the shards, checking that none is missing.
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <iostream>
#include <map>
#include <thread>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "io/atomic_output.h"
#include "io/same_file.h"
#include "io/standard_output.h"
#include "sim/engine.h"
#include "sim/profile_lookup.h"
#include "sim/progress_meter.h"
#include "tools/build_info.h"
#include "tools/command.h"
#include "tools/experiment_file.h"
#include "tools/line_journal.h"
#include "tools/gpu_memory_spec.h"
#include "tools/replay_setup.h"
#include "tools/resolved_policy_spec.h"
#include "tools/sweep_plan.h"
#include "tools/sweep_results.h"
#include "tools/sweep_runner.h"
#include "tools/sweep_threads.h"
#include "traces/trace_reader.h"

namespace umsim::cli {
namespace {

struct Options {
  SweepAxes axes;
  std::string config;
  std::string out;
  std::string shard = "0/1";
  unsigned jobs = 0;
  bool quiet = false;
  bool resume = false;
  bool keep_going = false;
};

// Finished points of an earlier run of this same sweep (journal, then a
// previous complete output), by index. A failed point is not finished: it runs again.
std::map<std::size_t, std::string> finished_points(const std::string& out, const std::string& journal,
                                                   const nlohmann::ordered_json& sweep) {
  std::map<std::size_t, std::string> done;
  for (const std::string& path : {out, journal}) {
    if (!std::filesystem::exists(path)) continue;
    std::size_t number = 0;
    for (const std::string& text : read_complete_lines(path)) {
      ++number;
      if (text.empty()) continue;
      const SweepLine l = parse_sweep_line(text, path, number);
      if (l.json["sweep"] != sweep)
        throw std::runtime_error(l.where() + ": written by a different sweep (" +
                                 (l.json["sweep"].value("umsim", nlohmann::ordered_json()) != sweep["umsim"]
                                      ? std::string("another umsim build")
                                      : std::string("other axes, shard or experiment file")) +
                                 "); remove it or run without --resume");
      if (!l.failed()) done[l.index()] = text;
    }
  }
  return done;
}

void run(const Options& o) {
  SweepAxes axes = o.axes;
  if (!o.config.empty()) {
    SweepAxes from_file;
    read_experiment_file(o.config, &from_file);
    // An axis given on the command line replaces the file's.
    const SweepAxes defaults;
    auto pick = [](auto& file, const auto& cli, const auto& dflt) {
      if (cli != dflt) file = cli;
    };
    pick(from_file.traces, axes.traces, defaults.traces);
    pick(from_file.vendors, axes.vendors, defaults.vendors);
    pick(from_file.profiles, axes.profiles, defaults.profiles);
    pick(from_file.prefetch, axes.prefetch, defaults.prefetch);
    pick(from_file.evict, axes.evict, defaults.evict);
    pick(from_file.migrate, axes.migrate, defaults.migrate);
    pick(from_file.thrashing, axes.thrashing, defaults.thrashing);
    pick(from_file.gpu_mem, axes.gpu_mem, defaults.gpu_mem);
    pick(from_file.seeds, axes.seeds, defaults.seeds);
    axes = from_file;
  }
  if (axes.traces.empty()) throw std::runtime_error("sweep: no traces (give trace files or `traces` in --config)");
  // A device or a pipe (/dev/stdout, a FIFO) is written in place: no journal
  // beside it (it would be /dev/stdout.partial), so nothing to resume.
  const std::string journal_path = o.out.empty() || io::writes_in_place(o.out) ? "" : o.out + ".partial";
  if (o.resume && journal_path.empty())
    throw std::runtime_error("sweep: --resume needs -o naming a file (the output to resume)");
  if (!o.out.empty()) {
    // Before anything is opened: the output (or its journal) must not be an input.
    std::vector<std::string> inputs = axes.traces;
    if (!o.config.empty()) inputs.push_back(o.config);
    for (const auto& p : axes.profiles)
      if (std::filesystem::exists(p)) inputs.push_back(p);
    io::refuse_output_naming_input(o.out, inputs);
    if (!journal_path.empty()) io::refuse_output_naming_input(journal_path, inputs);
    if (!o.resume && !journal_path.empty() && std::filesystem::exists(journal_path))
      throw std::runtime_error(journal_path + ": the finished points of an interrupted sweep; --resume continues it, "
                                              "or remove the file to start over");
  }

  const std::vector<SweepPoint> all = expand_sweep(axes, takes_unset_seed);
  const Shard shard = parse_shard(o.shard);
  std::vector<const SweepPoint*> mine;
  for (const auto& p : all)
    if (shard.contains(p.index)) mine.push_back(&p);

  nlohmann::ordered_json sweep;
  sweep["points"] = all.size();
  sweep["shard"] = o.shard;
  sweep["experiment"] = experiment_json(axes);
  sweep["umsim"] = {{"version", kUmsimVersion}, {"commit", umsim_git_commit()}};

  std::map<std::string, sim::HardwareProfile> profiles;
  for (const auto& name : axes.profiles)
    profiles.emplace(name, sim::load_profile(name.empty() ? std::string(sim::kDefaultProfile) : name));
  // One streaming statistics pass per trace gives the footprint for "P%" sizes
  // (and rejects a malformed trace before any thread starts).
  std::map<std::string, TraceFootprint> footprint;
  for (const auto& t : axes.traces) {
    auto reader = trace::open_trace(t);
    footprint[t] = trace_footprint(*reader);
  }

  std::map<std::size_t, std::string> finished;
  if (o.resume) finished = finished_points(o.out, journal_path, sweep);
  std::vector<const SweepPoint*> todo;
  for (const SweepPoint* p : mine)
    if (!finished.count(p->index)) todo.push_back(p);
  std::unique_ptr<LineJournal> journal;
  if (!journal_path.empty() && !todo.empty()) journal = std::make_unique<LineJournal>(journal_path);

  const bool terminal = !o.quiet && sim::ProgressMeter::stderr_is_terminal();
  const unsigned jobs = o.jobs ? o.jobs : std::max(1u, std::thread::hardware_concurrency());
  std::vector<std::string> lines(todo.size());
  std::size_t done = 0, failures = 0;
  bool stop = false;
  std::string first_error;
  const auto start = std::chrono::steady_clock::now();
  auto last_report = start;
  auto run_point = [&](std::size_t i) {
    const SweepPoint& p = *todo[i];
    return run_sweep_point(p, profiles.at(p.profile), footprint.at(p.trace)).dump();
  };
  // Called under the threads' lock: the journal, the counters, the errors and stderr are one thread's at a time.
  auto finish_point = [&](std::size_t i, PointOutcome& outcome) {
    const SweepPoint& p = *todo[i];
    std::string line = std::move(outcome.line);
    if (!outcome.error.empty()) {
      ++failures;
      if (first_error.empty()) first_error = describe_point(p) + ": " + outcome.error;
      if (!o.keep_going) {
        stop = true;
        return false;
      }
      nlohmann::ordered_json failed = point_fields(p);
      failed["error"] = outcome.error;
      failed["sweep"] = sweep;
      line = failed.dump();
    } else {
      // Appended last so that every line (finished or failed) reads the same way.
      line.pop_back();
      line += ",\"sweep\":" + sweep.dump() + "}";
    }
    try {
      if (journal) journal->append(line);
    } catch (const std::exception& e) {
      if (first_error.empty()) first_error = e.what();
      ++failures;
      stop = true;
      return false;
    }
    lines[i] = std::move(line);
    ++done;
    const auto now = std::chrono::steady_clock::now();
    // On a terminal, every point; in a log (Slurm), a line every 10 s.
    if (!o.quiet && (terminal || now - last_report > std::chrono::seconds(10))) {
      last_report = now;
      const double elapsed = std::chrono::duration<double>(now - start).count();
      std::cerr << (terminal ? "\r" : "") << sim::progress_text("sweep", done, todo.size(), "points", elapsed)
                << (terminal ? "   " : "\n") << std::flush;
    }
    return true;
  };
  const unsigned threads = run_points_on_threads(todo.size(), jobs, run_point, finish_point);
  if (terminal && !todo.empty()) std::cerr << "\r\033[K" << std::flush;
  if (stop && journal && done == 0 && std::filesystem::is_empty(journal_path)) {
    journal.reset();
    std::filesystem::remove(journal_path);  // nothing finished: leave no empty journal behind
  }
  if (stop)
    throw std::runtime_error("sweep: " + first_error +
                             (journal ? fmt::format(" ({} finished points kept in {}; --resume continues)",
                                                    done + finished.size(), journal_path)
                                      : std::string()));

  // Index order, whatever order the points finished in.
  std::map<std::size_t, const std::string*> ordered;
  for (const auto& [index, text] : finished) ordered[index] = &text;
  for (std::size_t i = 0; i < todo.size(); ++i) ordered[todo[i]->index] = &lines[i];
  std::string text;
  for (const auto& [index, line] : ordered) text += *line + "\n";
  if (o.out.empty()) {
    std::cout << text;
    io::check_standard_output();
  } else {
    io::write_file_atomically(o.out, text);
    if (!journal_path.empty()) std::filesystem::remove(journal_path);
  }
  if (!o.quiet)
    std::cerr << fmt::format("sweep: {} of {} combinations (shard {}{}) on {} threads in {:.1f} s{}\n", mine.size(),
                             all.size(), o.shard,
                             finished.empty() ? "" : fmt::format(", {} resumed", finished.size()),
                             threads,
                             std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(),
                             o.out.empty() ? "" : ", written to " + o.out);
  if (failures) {
    std::cerr << fmt::format("sweep: {} of {} points failed (recorded with their errors{}); first: {}\n", failures,
                             mine.size(), o.out.empty() ? "" : " in " + o.out + "; --resume runs them again",
                             first_error);
    exit_status() = 1;
  }
}

void merge(const std::vector<std::string>& inputs, const std::string& out, bool quiet) {
  // Before anything is opened: the merged output must not be one of the shards.
  if (!out.empty()) io::refuse_output_naming_input(out, inputs);
  const std::vector<SweepLine> merged = merge_sweep_lines(read_sweep_files(inputs));
  check_labels_distinct(merged);
  std::string text;
  std::size_t failed = 0;
  for (auto l : merged) {
    l.json["sweep"]["shard"] = "0/1";  // the merged lines are the whole sweep's
    text += l.json.dump() + "\n";
    failed += l.failed();
  }
  if (out.empty()) {
    std::cout << text;
    io::check_standard_output();
  } else {
    io::write_file_atomically(out, text);
  }
  if (!quiet)
    std::cerr << fmt::format("sweep merge: {} points from {} files{}{}\n", merged.size(), inputs.size(),
                             out.empty() ? "" : ", written to " + out,
                             failed ? fmt::format("; {} failed points (with their errors)", failed) : "");
}

void setup(CLI::App& app) {
  auto o = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand(
      "sweep", "Replay traces x vendors x profiles x policies x GPU memory sizes on every core; one JSON line per "
               "combination");
  cmd->add_option("traces", o->axes.traces, "trace files (.umt / .umtb)");
  auto each = [&](const char* flag, std::vector<std::string>& values, const char* what) {
    cmd->add_option(flag, values, what)->allow_extra_args(false)->delimiter('\0');
  };
  each("--vendor", o->axes.vendors, "vendor preset (repeatable; default nvidia)");
  each("--profile", o->axes.profiles, "hardware profile name or .toml file (repeatable; default: the default profile)");
  each("--prefetch", o->axes.prefetch, "prefetch policy spec (repeatable; default: the vendor's)");
  each("--evict", o->axes.evict, "eviction policy spec (repeatable)");
  each("--migrate", o->axes.migrate, "migration policy spec (repeatable)");
  each("--thrashing", o->axes.thrashing, "thrashing policy spec (repeatable)");
  each("--gpu-mem", o->axes.gpu_mem,
       "GPU memory: a size (16GiB) or an oversubscription of the trace's managed footprint (150%) (repeatable)");
  cmd->add_option("--seed", o->axes.seeds, "seed for policies with a seed parameter (repeatable)")
      ->allow_extra_args(false);
  cmd->add_option("--config", o->config, "experiment file (TOML: traces, policy specs, memory sizes, profiles, seeds)");
  cmd->add_option("--out,-o", o->out, "output file (JSON Lines); default stdout");
  cmd->add_option("--jobs,-j", o->jobs, "worker threads (default: every core)");
  cmd->add_option("--shard", o->shard, "run only combinations with index % N == K (K/N)")->capture_default_str();
  cmd->add_flag("--resume", o->resume, "skip the points an interrupted run of this sweep finished (OUT.partial)");
  cmd->add_flag("--keep-going", o->keep_going, "record a failed point with its error and go on (exit status 1)");
  cmd->add_flag("--quiet,-q", o->quiet, "no progress on stderr");

  auto merge_inputs = std::make_shared<std::vector<std::string>>();
  auto merge_out = std::make_shared<std::string>();
  auto merge_quiet = std::make_shared<bool>(false);
  CLI::App* merge_cmd = cmd->add_subcommand("merge", "Join a sharded sweep's outputs, checking that none is missing");
  merge_cmd->add_option("shards", *merge_inputs, "sweep outputs (sweep-*.jsonl)")->required();
  merge_cmd->add_option("--out,-o", *merge_out, "merged output (JSON Lines); default stdout");
  merge_cmd->add_flag("--quiet,-q", *merge_quiet, "no summary on stderr");
  merge_cmd->callback([merge_inputs, merge_out, merge_quiet] { merge(*merge_inputs, *merge_out, *merge_quiet); });
  cmd->callback([o, merge_cmd] {
    if (!merge_cmd->parsed()) run(*o);
  });
}

}  // namespace

UMSIM_REGISTER_COMMAND("sweep", 25, setup);

}  // namespace umsim::cli
