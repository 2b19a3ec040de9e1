// `umsim demo`: what the tool is for, in a few seconds. Replays built-in
// scenarios (made in-process with the TraceBuilder) under the default profile
// and prints a comparison: demand paging with and without the driver's
// prefetcher, an explicit prefetch hint, oversubscription, and zero-copy
// access through AccessedBy. Then the seed articles' training loop (the
// `training` generator): what each hint buys, and what oversubscription costs
// under the driver's FIFO eviction versus LRU.
#include <iostream>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "sim/engine.h"
#include "sim/profile_lookup.h"
#include "sim/summary_table.h"
#include "tools/command.h"
#include "tools/replay_setup.h"
#include "tools/gpu_memory_spec.h"
#include "tools/output_file.h"
#include "traces/generators/generator_registry.h"
#include "traces/memory_trace_reader.h"
#include "traces/trace_builder.h"
#include "traces/trace_writer.h"
#include "traces/units.h"

namespace umsim::cli {
namespace {

using namespace trace::literals;
using trace::Advice;
using trace::Bytes;
using trace::Processor;
using trace::TraceBuilder;

struct Scenario {
  std::string name;
  std::string explanation;
  trace::BuiltTrace trace;
  PolicyChoice policy;
  Bytes gpu_memory = 0;  // 0: the profile's
};

struct Options {
  std::string profile = sim::kDefaultProfile;
  std::string size = "1GiB";
  std::string json;  // path; "-": standard output instead of the tables
};

// A kernel sweep as a GPU performs it: many thread blocks, each streaming its
// own slice, so the fault buffer sees a few pages of many VA blocks at a time
// (one strided access per "wave" touches the same page of every slice).
void sweep(TraceBuilder& b, Bytes size, const char* kernel) {
  const Bytes slice = size / 64;
  b.kernel(kernel, 0, 1_ms);
  for (Bytes off = 0; off < slice; off += 4_KiB) b.read("data", off, size - off, slice);
  b.end();
}

std::vector<Scenario> scenarios(Bytes size) {
  // The CPU initialises the buffer, then a kernel sweeps it twice (e.g. two epochs).
  auto base = [size](bool prefetch) {
    TraceBuilder b;
    b.alloc("data", size).cpu_write("data");
    if (prefetch) b.prefetch("data", Processor::gpu(0));
    sweep(b, size, "epoch1");
    sweep(b, size, "epoch2");
    return b.sync().build();
  };
  PolicyChoice no_prefetch;
  no_prefetch.prefetch = "none";
  std::vector<Scenario> s;
  s.push_back({"demand paging, no prefetcher", "every page faults once; fault-batch service time bounds the rate",
               base(false), no_prefetch});
  s.push_back({"demand paging, driver prefetcher", "tree prefetcher (51% density) moves whole 2 MiB blocks",
               base(false), {}});
  s.push_back({"prefetch hint before kernels", "cudaMemPrefetchAsync: bulk copy at link speed, no faults",
               base(true), {}});
  s.push_back({"oversubscribed 2x (GPU memory = size/2)", "FIFO eviction: every epoch faults and evicts again",
               base(false), {}, size / 2});
  TraceBuilder zc;
  zc.alloc("data", size)
      .cpu_write("data")
      .advise("data", Advice::kSetPreferredLocation, Processor::cpu())
      .advise("data", Advice::kSetAccessedBy, Processor::gpu(0));
  sweep(zc, size, "epoch1");
  sweep(zc, size, "epoch2");
  zc.sync();
  s.push_back({"zero-copy: AccessedBy + PreferredLocation=cpu", "no migration: every access crosses the link",
               zc.build(), {}});
  return s;
}

Result replay(const sim::HardwareProfile& profile, const PolicyChoice& policy, Bytes gpu_memory,
              const std::string& name, trace::TraceReader& reader) {
  sim::EngineOptions options;
  options.profile = profile;
  options.gpu_memory = gpu_memory;
  options.trace_name = "demo: " + name;
  sim::EnginePolicies policies = make_policies(policy, &options.vendor);
  sim::Engine engine(std::move(options), std::move(policies));
  return engine.run(reader);
}

std::uint64_t kernel_time(const Result& r) {
  std::uint64_t ns = 0;
  for (const auto& k : r.kernels) ns += k.counters.time_ns;
  return ns;
}

// The seed articles' training loop, generated in memory (binary encoding).
constexpr const char* kTrainingParams = "footprint=512MiB,iterations=3,layers=8";
constexpr Bytes kTrainingFootprint = 512_MiB;

std::string training_trace(const std::string& hints) {
  std::string data;
  auto writer = trace::create_trace_writer_to_string(&data, trace::Encoding::kBinary);
  gen::generate_trace("training", std::string(kTrainingParams) + ",hints=" + hints, *writer);
  writer->finish();
  return data;
}

struct TrainingCase {
  std::string name, hints;
  PolicyChoice policy;
  std::string oversubscription;  // "" = fits; "125%" = footprint is 125% of GPU memory
};

void training_section(const sim::HardwareProfile& profile, bool text, nlohmann::ordered_json& all) {
  PolicyChoice lru;
  lru.evict = "lru";
  const std::vector<TrainingCase> cases = {
      {"no hints", "none", {}, ""},
      {"prefetch batch + weights before forward", "prefetch", {}, ""},
      {"AccessedBy gpu0 during backward", "accessed_by", {}, ""},
      {"weights ReadMostly", "read_mostly", {}, ""},
      {"125% oversubscribed, driver FIFO eviction", "none", {}, "125%"},
      {"125% oversubscribed, LRU eviction", "none", lru, "125%"},
      {"150% oversubscribed, driver FIFO eviction", "none", {}, "150%"},
      {"150% oversubscribed, LRU eviction", "none", lru, "150%"},
  };
  if (text) {
    std::cout << fmt::format(
        "\nThe seed articles' training loop (`umsim trace gen training -p {}`): CPU preprocessing,\n"
        "forward, backward and optimizer kernels on gpu0; 3 iterations, 100 us of compute per kernel.\n\n",
        kTrainingParams);
    std::cout << fmt::format("{:<46} {:>11} {:>11} {:>9} {:>8} {:>10} {:>10} {:>8} {:>9}\n", "training loop",
                             "kernels", "total", "faults", "batches", "H2D", "D2H", "evicted", "remote");
  }
  std::string cached_hints, data;
  for (const auto& c : cases) {
    if (c.hints != cached_hints) data = training_trace(cached_hints = c.hints);
    auto reader = trace::open_trace_from_memory(data, "training hints=" + c.hints);
    const Bytes gpu_memory = resolve_gpu_memory(c.oversubscription, kTrainingFootprint);
    const Result r = replay(profile, c.policy, gpu_memory, c.name, *reader);
    all.push_back({{"scenario", "training: " + c.name}, {"result", to_json(r)}});
    if (!text) continue;
    const Counters& t = r.total;
    std::cout << fmt::format("{:<46} {:>11} {:>11} {:>9} {:>8} {:>10} {:>10} {:>8} {:>9}\n", c.name,
                             sim::format_time_ns(kernel_time(r)), sim::format_time_ns(t.time_ns), t.gpu_faults,
                             t.fault_batches, sim::format_size(t.bytes_h2d), sim::format_size(t.bytes_d2h),
                             t.evictions, t.remote_accesses);
  }
  if (text)
    std::cout << "    ReadMostly weights cost more than they save here: the optimizer rewrites the weights every\n"
                 "    step, which collapses the read-only copies. Under oversubscription the driver's FIFO order\n"
                 "    (by allocation, not by use) and LRU differ; sweep it with `umsim sweep`.\n";
}

void run(const Options& o) {
  const auto size = trace::parse_bytes(o.size);
  if (!size.ok() || size.value < 64_MiB || size.value % 64_MiB)
    throw std::runtime_error("--size: expected a multiple of 64MiB, e.g. 1GiB");
  const sim::HardwareProfile profile = sim::load_profile(o.profile);
  nlohmann::ordered_json all = nlohmann::ordered_json::array();
  const bool text = o.json != "-";
  if (text) {
    std::cout << fmt::format(
        "umsim demo: a {} buffer written by the CPU, then read by two kernels (1 ms of compute each) on gpu0,\n"
        "replayed on profile {} ({}). Kernel time includes fault stalls.\n\n",
        sim::format_size(size.value), profile.name, profile.description);
    std::cout << fmt::format("{:<46} {:>11} {:>11} {:>9} {:>8} {:>10} {:>10} {:>8} {:>9} {:>10}\n", "scenario",
                             "kernels", "total", "faults", "batches", "H2D", "D2H", "evicted", "remote", "GPU GB/s");
  }
  for (auto& sc : scenarios(size.value)) {
    trace::MemoryTraceReader reader(std::move(sc.trace));
    const Result r = replay(profile, sc.policy, sc.gpu_memory, sc.name, reader);
    const std::uint64_t kernel_ns = kernel_time(r);
    const double gbps = kernel_ns ? 2.0 * static_cast<double>(size.value) / static_cast<double>(kernel_ns) : 0;
    all.push_back({{"scenario", sc.name}, {"result", to_json(r)}});
    if (!text) continue;
    const Counters& t = r.total;
    std::cout << fmt::format("{:<46} {:>11} {:>11} {:>9} {:>8} {:>10} {:>10} {:>8} {:>9} {:>10.1f}\n", sc.name,
                             sim::format_time_ns(kernel_ns), sim::format_time_ns(t.time_ns), t.gpu_faults,
                             t.fault_batches, sim::format_size(t.bytes_h2d), sim::format_size(t.bytes_d2h),
                             t.evictions, t.remote_accesses, gbps);
    std::cout << fmt::format("    {}\n", sc.explanation);
  }
  training_section(profile, text, all);
  if (!o.json.empty()) write_output(o.json, all.dump(2) + "\n");
  if (!text) return;
  std::cout << "\nReplay your own traces with `umsim replay TRACE --json out.json`; compare policies with\n"
               "--prefetch / --evict / --migrate / --thrashing (see `umsim policies`), memory sizes with --gpu-mem,\n"
               "and hardware with --profile (see `umsim profiles`); generate workloads with `umsim trace gen`.\n";
}

void setup(CLI::App& app) {
  auto o = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand("demo", "Compare demand paging, prefetch hints, oversubscription and zero-copy");
  cmd->add_option("--profile", o->profile, "hardware profile name or .toml file")->capture_default_str();
  cmd->add_option("--size", o->size, "buffer size")->capture_default_str();
  cmd->add_option("--json", o->json, "write every scenario's full result as JSON to this file ('-': standard output)");
  cmd->callback([o] { run(*o); });
}

}  // namespace

UMSIM_REGISTER_COMMAND("demo", 5, setup);

}  // namespace umsim::cli
