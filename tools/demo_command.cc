// `umsim demo`: what the tool is for, in a few seconds. Replays built-in
// scenarios (made in-process with the TraceBuilder) under the default profile
// and prints a comparison: demand paging with and without the driver's
// prefetcher, an explicit prefetch hint, oversubscription, and zero-copy
// access through AccessedBy.
#include <iostream>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "sim/engine.h"
#include "sim/profile_lookup.h"
#include "sim/summary_table.h"
#include "tools/command.h"
#include "tools/replay_setup.h"
#include "traces/memory_trace_reader.h"
#include "traces/trace_builder.h"
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
  bool json = false;
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
  s.push_back({"demand paging, no prefetcher", "every page faults once; 256-fault batches bound the rate",
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

void run(const Options& o) {
  const auto size = trace::parse_bytes(o.size);
  if (!size.ok() || size.value < 64_MiB || size.value % 64_MiB)
    throw std::runtime_error("--size: expected a multiple of 64MiB, e.g. 1GiB");
  const sim::HardwareProfile profile = sim::load_profile(o.profile);
  nlohmann::ordered_json all = nlohmann::ordered_json::array();
  if (!o.json) {
    std::cout << fmt::format(
        "umsim demo: a {} buffer written by the CPU, then read by two kernels (1 ms of compute each) on gpu0,\n"
        "replayed on profile {} ({}). Kernel time includes fault stalls.\n\n",
        sim::format_size(size.value), profile.name, profile.description);
    std::cout << fmt::format("{:<46} {:>11} {:>11} {:>9} {:>8} {:>10} {:>10} {:>8} {:>9} {:>10}\n", "scenario",
                             "kernels", "total", "faults", "batches", "H2D", "D2H", "evicted", "remote", "GPU GB/s");
  }
  for (auto& sc : scenarios(size.value)) {
    sim::EngineOptions options;
    options.profile = profile;
    options.gpu_memory = sc.gpu_memory;
    options.trace_name = "demo: " + sc.name;
    sim::EnginePolicies policies = make_policies(sc.policy, &options.vendor);
    sim::Engine engine(std::move(options), std::move(policies));
    trace::MemoryTraceReader reader(std::move(sc.trace));
    const Result r = engine.run(reader);
    std::uint64_t kernel_ns = 0;
    for (const auto& k : r.kernels) kernel_ns += k.counters.time_ns;
    const double gbps = kernel_ns ? 2.0 * static_cast<double>(size.value) / static_cast<double>(kernel_ns) : 0;
    if (o.json) {
      nlohmann::ordered_json j;
      j["scenario"] = sc.name;
      j["result"] = to_json(r);
      all.push_back(std::move(j));
      continue;
    }
    const Counters& t = r.total;
    std::cout << fmt::format("{:<46} {:>11} {:>11} {:>9} {:>8} {:>10} {:>10} {:>8} {:>9} {:>10.1f}\n", sc.name,
                             sim::format_time_ns(kernel_ns), sim::format_time_ns(t.time_ns), t.gpu_faults,
                             t.fault_batches, sim::format_size(t.bytes_h2d), sim::format_size(t.bytes_d2h),
                             t.evictions, t.remote_accesses, gbps);
    std::cout << fmt::format("    {}\n", sc.explanation);
  }
  if (o.json) {
    std::cout << all.dump(2) << "\n";
    return;
  }
  std::cout << "\nReplay your own traces with `umsim replay TRACE --json out.json`; compare policies with\n"
               "--prefetch / --evict / --migrate / --thrashing (see `umsim policies`), memory sizes with --gpu-mem,\n"
               "and hardware with --profile (see `umsim profiles`).\n";
}

void setup(CLI::App& app) {
  auto o = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand("demo", "Compare demand paging, prefetch hints, oversubscription and zero-copy");
  cmd->add_option("--profile", o->profile, "hardware profile name or .toml file")->capture_default_str();
  cmd->add_option("--size", o->size, "buffer size")->capture_default_str();
  cmd->add_flag("--json", o->json, "print every scenario's full result as JSON");
  cmd->callback([o] { run(*o); });
}

}  // namespace

UMSIM_REGISTER_COMMAND("demo", 5, setup);

}  // namespace umsim::cli
