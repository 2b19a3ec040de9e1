// `umsim profiles [FILE...]`: lists the hardware profiles (profiles/*.toml,
// found as docs/profiles.md describes) or the given files, with their key
// parameters; --json prints every value.
#include <filesystem>
#include <iostream>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "sim/profile_lookup.h"
#include "sim/summary_table.h"
#include "tools/command.h"
#include "tools/output_file.h"

namespace umsim::cli {
namespace {

struct Options {
  std::vector<std::string> files;
  std::string json;  // path; "-": standard output instead of the table
};

void run(const Options& o) {
  std::vector<std::string> files;
  for (const auto& f : o.files) files.push_back(sim::find_profile(f));
  if (files.empty()) files = sim::list_profile_files();
  if (files.empty())
    throw sim::ProfileError("no profiles found (searched the runfiles, ./profiles and $UMSIM_PROFILE_DIR)");
  nlohmann::ordered_json all = nlohmann::ordered_json::array();
  const bool text = o.json != "-";
  if (text)
    std::cout << fmt::format("{:<16} {:>4} {:>11} {:>10} {:>9} {:>6} {:>6} {:>9} {:>9} {:>9} {:>9}  {}\n", "profile",
                             "gpus", "memory", "H2D GB/s", "latency", "batch", "concur", "batch", "VA block",
                             "page", "CPU flt", "description");
  for (const auto& f : files) {
    const sim::HardwareProfile p = sim::load_profile_file(f);
    auto j = sim::to_json(p);
    j["file"] = f;
    all.push_back(j);
    if (!text) continue;
    std::cout << fmt::format("{:<16} {:>4} {:>11} {:>10.1f} {:>9} {:>6} {:>6} {:>9} {:>9} {:>9} {:>9}  {}\n", p.name,
                             p.gpus, sim::format_size(p.gpu_memory), p.h2d.curve.peak_gbps,
                             sim::format_time_ns(p.h2d.latency_ns), p.fault_batch_size, p.fault_concurrency,
                             sim::format_time_ns(p.fault_batch_ns), sim::format_time_ns(p.fault_va_block_ns),
                             sim::format_time_ns(p.fault_page_ns), sim::format_time_ns(p.cpu_fault_ns), p.description);
    std::cout << fmt::format("{:<16} {}\n", "", f);
  }
  if (!o.json.empty()) write_output(o.json, all.dump(2) + "\n", files);
}

void setup(CLI::App& app) {
  auto o = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand("profiles", "List hardware profiles and their key parameters");
  cmd->add_option("profiles", o->files, "profile names or .toml files (default: every profile found)");
  cmd->add_option("--json", o->json, "write every value as JSON to this file ('-': standard output)");
  cmd->callback([o] { run(*o); });
}

}  // namespace

UMSIM_REGISTER_COMMAND("profiles", 50, setup);

}  // namespace umsim::cli
