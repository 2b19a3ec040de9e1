// `umsim compare SIM.json HW.json [--json OUT] [--metrics a,b]`: puts a
// simulator result (`umsim replay --json`) next to a hardware result
// (`umsim-hip replay --json`) of the same trace: per kernel, per phase and in
// total, each metric side by side with its relative error (sim - hw) / hw.
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>

#include <CLI/CLI.hpp>

#include "hip_backend/result_compare.h"
#include "io/atomic_output.h"
#include "io/same_file.h"
#include "sim/result.h"
#include "tools/command.h"
#include "tools/output_file.h"

namespace umsim::cli {
namespace {

struct Options {
  std::string sim, hw, json;
  std::vector<std::string> metrics;
};

Result load(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(path + ": cannot open: " + std::strerror(errno));
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(in);
  } catch (const nlohmann::json::parse_error& e) {
    throw std::runtime_error(path + ": not valid JSON (byte " + std::to_string(e.byte) + "): " + e.what());
  }
  try {
    return result_from_json(j);
  } catch (const std::exception& e) {
    throw std::runtime_error(path + ": " + e.what());
  }
}

void run(const Options& o) {
  io::refuse_output_naming_input(o.json, {o.sim, o.hw});
  // Started before anything is printed: an unwritable --json (a directory, a
  // missing directory) fails the command before the table appears.
  std::unique_ptr<io::AtomicOutput> json_file;
  if (!o.json.empty() && o.json != "-") json_file = std::make_unique<io::AtomicOutput>(o.json);
  const Result sim = load(o.sim);
  const Result hw = load(o.hw);
  const hip::Comparison c = hip::compare_results(sim, hw, o.metrics);
  if (const std::string note = hip::phase_semantics_note(sim, hw); !note.empty()) std::cerr << "umsim compare: " << note << "\n";
  std::cout << "sim: " << o.sim << " (" << sim.producer << ")\nhw:  " << o.hw << " (" << hw.producer << ")\n"
            << hip::format_table(c);
  if (!o.json.empty()) {
    nlohmann::ordered_json j;
    j["sim"] = o.sim;
    j["hw"] = o.hw;
    j["trace"] = hw.trace;
    const auto body = hip::to_json(c);
    j["rows"] = body["rows"];
    j["skipped_metrics"] = body["skipped_metrics"];
    const std::string text = j.dump(2) + "\n";
    if (json_file) {
      json_file->write(text);
      json_file->commit();
    } else {
      write_output(o.json, text, {o.sim, o.hw});
    }
  }
}

void setup(CLI::App& app) {
  auto o = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand(
      "compare", "Compare a simulator result with a hardware result of the same trace (per kernel, phase, total)");
  cmd->add_option("sim", o->sim, "result of `umsim replay --json` (the prediction)")->required();
  cmd->add_option("hw", o->hw, "result of `umsim-hip replay --json` (the measurement)")->required();
  cmd->add_option("--json", o->json, "also write the comparison as JSON to this file ('-': standard output)");
  cmd->add_option("--metrics", o->metrics, "only these counters (comma-separated), e.g. time_ns,bytes_h2d")
      ->delimiter(',');
  cmd->callback([o] { run(*o); });
}

}  // namespace

UMSIM_REGISTER_COMMAND("compare", 60, setup);

}  // namespace umsim::cli
