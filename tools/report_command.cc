// `umsim report RESULTS... -o report.html`: one self-contained HTML page
// (tools/report_page) from sweep results: shards of one sweep are joined as
// `umsim sweep merge` joins them (none missing, none twice), several sweeps
// may be compared, and two points with equal labels but different
// configurations are an error, never drawn as one.
#include <iostream>
#include <map>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "io/atomic_output.h"
#include "io/same_file.h"
#include "tools/command.h"
#include "tools/report_page.h"
#include "tools/sweep_results.h"

namespace umsim::cli {
namespace {

struct Options {
  std::vector<std::string> inputs;
  std::string out;
  bool quiet = false;
};

void run(const Options& o) {
  io::refuse_output_naming_input(o.out, o.inputs);
  // Lines grouped by sweep (experiment and build); each sweep's shards joined.
  std::map<std::string, std::vector<SweepLine>> by_sweep;
  std::vector<std::string> order;
  for (auto& l : read_sweep_files(o.inputs)) {
    nlohmann::ordered_json key = l.json["sweep"];
    key.erase("shard");
    const std::string k = key.dump();
    if (!by_sweep.count(k)) order.push_back(k);
    by_sweep[k].push_back(std::move(l));
  }
  std::vector<SweepLine> lines;
  for (const auto& k : order)
    for (auto& l : merge_sweep_lines(std::move(by_sweep[k]))) lines.push_back(std::move(l));
  check_labels_distinct(lines);
  io::write_file_atomically(o.out, report_page(lines, o.inputs));
  if (!o.quiet)
    std::cerr << fmt::format("report: {} points from {} sweep(s), {} plots, written to {}\n", lines.size(),
                             order.size(), report_plot_count(lines), o.out);
}

void setup(CLI::App& app) {
  auto o = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand(
      "report", "One self-contained HTML page (plots, sortable tables) from sweep results (JSON Lines)");
  cmd->add_option("results", o->inputs, "`umsim sweep` outputs (shards of a sweep are joined)")->required();
  cmd->add_option("--out,-o", o->out, "the HTML page to write")->required();
  cmd->add_flag("--quiet,-q", o->quiet, "no summary on stderr");
  cmd->callback([o] { run(*o); });
}

}  // namespace

UMSIM_REGISTER_COMMAND("report", 26, setup);

}  // namespace umsim::cli
