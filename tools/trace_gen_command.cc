// `umsim trace gen NAME [--param k=v ...] -o OUT` and `umsim trace gen --list`:
// synthesise a workload trace with one of the registered generators.
#include <optional>
#include <iostream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "tools/command.h"
#include "tools/trace_subcommand.h"
#include "traces/generators/generator_registry.h"
#include "traces/generators/trace_summary.h"
#include "traces/trace_writer.h"

namespace umsim::cli {
namespace {

struct GenOptions {
  bool list = false;
  std::string name;
  std::vector<std::string> params;
  std::string output;
  std::string encoding = "auto";
};

std::string join_params(const std::vector<std::string>& params) {
  std::string joined;
  for (const auto& p : params) joined += (joined.empty() ? "" : ",") + p;
  return joined;
}

int run_gen(const GenOptions& o) {
  if (o.list) {
    std::cout << gen::list_generators();
    return 0;
  }
  if (o.name.empty()) throw std::runtime_error("trace gen: a generator NAME is required (see --list)");
  if (o.output.empty()) throw std::runtime_error("trace gen: an output file is required (-o OUT)");
  const std::string overrides = join_params(o.params);
  std::optional<trace::Encoding> encoding;  // auto: by extension
  if (o.encoding == "text") encoding = trace::Encoding::kText;
  if (o.encoding == "binary") encoding = trace::Encoding::kBinary;
  const gen::TraceSummary summary = gen::generate_file(o.name, overrides, o.output, encoding);
  std::cout << o.name << " -> " << o.output << ": " << summary.to_string() << "\n";
  return 0;
}

void setup(CLI::App& app) {
  CLI::App& trace = trace_parent_command(app);
  auto opts = std::make_shared<GenOptions>();
  CLI::App* cmd = trace.add_subcommand("gen", "generate a synthetic workload trace (see --list)");
  cmd->add_flag("--list", opts->list, "list the generators with their parameters and defaults");
  cmd->add_option("name", opts->name, "generator name");
  cmd->add_option("-p,--param", opts->params, "generator parameter key=value (repeatable, or k=v,k=v)");
  cmd->add_option("-o,--output", opts->output, "output trace (.umtb: binary, otherwise text)");
  cmd->add_option("--encoding", opts->encoding, "output encoding: auto (by extension), text or binary")
      ->check(CLI::IsMember({"auto", "text", "binary"}));
  cmd->callback([opts] { exit_status() = run_gen(*opts); });
}

UMSIM_REGISTER_COMMAND("trace gen", 900, setup);

}  // namespace
}  // namespace umsim::cli
