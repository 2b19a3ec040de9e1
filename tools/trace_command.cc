// `umsim trace convert|stat|check`: convert between the text and binary
// encodings, print statistics, validate semantics (traces/FORMAT.md).
#include <cstdio>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "io/same_file.h"
#include "tools/command.h"
#include "tools/output_file.h"
#include "tools/trace_subcommand.h"
#include "traces/trace_checker.h"
#include "traces/trace_copy.h"
#include "traces/trace_reader.h"
#include "traces/trace_stats.h"
#include "traces/trace_writer.h"

namespace umsim::cli {
namespace {

struct ConvertOptions {
  std::string input, output, to = "auto";
};

void run_convert(const ConvertOptions& o) {
  io::refuse_output_naming_input(o.output, {o.input});
  const trace::Encoding encoding = o.to == "auto"   ? trace::encoding_for_path(o.output)
                                   : o.to == "text" ? trace::Encoding::kText
                                                    : trace::Encoding::kBinary;
  auto reader = trace::open_trace(o.input);
  // Atomic: on any error (or a kill) nothing appears under o.output.
  auto writer = trace::create_trace_writer(o.output, encoding, reader->version());
  const std::uint64_t events = trace::copy_trace(*reader, *writer);
  writer->finish();
  std::cout << o.input << " -> " << o.output << " (" << (encoding == trace::Encoding::kBinary ? "binary" : "text")
            << "): " << events << " events\n";
}

struct StatOptions {
  std::string input;
  std::string json;  // path; "-": standard output instead of the text
};

void run_stat(const StatOptions& o) {
  auto reader = trace::open_trace(o.input);
  const trace::TraceStats stats = trace::collect_stats(*reader);
  if (!o.json.empty()) write_output(o.json, trace::stats_to_json(stats).dump(2) + "\n", {o.input});
  if (o.json != "-") {
    std::cout << trace::format_stats_text(stats);
  }
}

struct CheckOptions {
  std::string input;
  std::uint64_t limit = 0;
};

void run_check(const CheckOptions& o) {
  auto reader = trace::open_trace(o.input);
  std::uint64_t shown = 0, hidden = 0;
  const trace::CheckSummary s = trace::check_trace(*reader, [&](const trace::TraceProblem& p) {
    if (o.limit != 0 && shown >= o.limit) {
      ++hidden;
      return;
    }
    ++shown;
    std::cout << trace::to_string(p) << "\n";
  });
  if (hidden > 0) std::cout << "(" << hidden << " more problems not shown; raise --limit)\n";
  std::cout << o.input << ": " << s.events << " events, " << s.errors << " errors, " << s.warnings << " warnings\n";
  if (s.errors > 0) exit_status() = 1;
}

void setup(CLI::App& app) {
  CLI::App& trace = trace_parent_command(app);

  auto convert_opts = std::make_shared<ConvertOptions>();
  CLI::App* convert = trace.add_subcommand(
      "convert", "convert a trace between the text (.umt) and binary (.umtb) encodings; comments are kept");
  convert->add_option("IN", convert_opts->input, "input trace (encoding detected from its content)")->required();
  convert->add_option("OUT", convert_opts->output, "output trace")->required();
  convert
      ->add_option("--to", convert_opts->to,
                   "output encoding: text, binary, or auto = from OUT's extension (.umtb binary, otherwise text)")
      ->check(CLI::IsMember({"auto", "text", "binary"}))
      ->capture_default_str();
  convert->callback([convert_opts] { run_convert(*convert_opts); });

  auto stat_opts = std::make_shared<StatOptions>();
  CLI::App* stat = trace.add_subcommand(
      "stat", "print a trace's footprint, events by kind, pages touched and per-allocation summaries");
  stat->add_option("TRACE", stat_opts->input, "trace file (text or binary)")->required();
  stat->add_option("--json", stat_opts->json, "write the statistics as JSON to this file ('-': standard output)");
  stat->callback([stat_opts] { run_stat(*stat_opts); });

  auto check_opts = std::make_shared<CheckOptions>();
  CLI::App* check = trace.add_subcommand(
      "check",
      "validate a trace: decoding, then semantics (use after free, unknown allocation, out-of-range access, kernel "
      "without end, ...); prints every problem with file:line or byte offset; exit status 1 if there are errors");
  check->add_option("TRACE", check_opts->input, "trace file (text or binary)")->required();
  check->add_option("--limit", check_opts->limit, "print at most N problems (0 = all; all are counted)")
      ->capture_default_str();
  check->callback([check_opts] { run_check(*check_opts); });
}

}  // namespace

UMSIM_REGISTER_COMMAND("trace", 10, setup);

}  // namespace umsim::cli
