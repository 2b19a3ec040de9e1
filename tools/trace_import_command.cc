// `umsim trace import FORMAT IN -o OUT [--allocs FILE]`: recorded traces (NVBit
// mem_trace, Accel-Sim, column-mapped CSV) reduced to page-granular umsim traces.
#include <cstdio>
#include <iostream>
#include <string>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "io/same_file.h"
#include "tools/command.h"
#include "tools/trace_subcommand.h"
#include "traces/generators/trace_summary.h"
#include "traces/importers/cache_trace_importer.h"
#include "traces/importers/importer.h"
#include "traces/trace_writer.h"
#include "traces/units.h"

namespace umsim::cli {
namespace {

struct ImportCommandOptions {
  std::string format, input, output, gap = "1MiB", delimiter = ",", encoding = "auto";
  import::ImportOptions options;
  bool size_aware = false;
};

// Cache-simulator request traces: every object a page (or its size in pages).
int run_cache_import(ImportCommandOptions& o, trace::Encoding encoding) {
  import::CacheTraceOptions c;
  c.size_aware = o.size_aware;
  c.gpu = o.options.gpu;
  c.columns = o.options.columns;
  c.delimiter = o.options.delimiter;
  c.header = o.options.header;
  // Atomic: on any error nothing appears under o.output.
  auto writer = trace::create_trace_writer(o.output, encoding);
  gen::SummaryWriter counting(writer.get());
  const import::CacheTraceResult result = import::import_cache_trace(o.format, o.input, c, counting);
  counting.finish();
  const gen::TraceSummary summary = counting.summary();
  std::cout << fmt::format("{} {} -> {}: {} requests, {} objects as {} pages of 4KiB; {}\n", o.format, o.input,
                           o.output, result.requests, result.objects, result.pages, summary.to_string());
  return 0;
}

int run_import(ImportCommandOptions& o) {
  const auto gap = trace::parse_bytes(o.gap);
  if (!gap.ok()) throw std::runtime_error("trace import: --gap: " + gap.error);
  o.options.gap = gap.value;
  if (o.delimiter.size() != 1) throw std::runtime_error("trace import: --delimiter must be one character");
  o.options.delimiter = o.delimiter == "\\t" ? '\t' : o.delimiter[0];
  const trace::Encoding encoding = o.encoding == "auto"   ? trace::encoding_for_path(o.output)
                                   : o.encoding == "text" ? trace::Encoding::kText
                                                          : trace::Encoding::kBinary;
  io::refuse_output_naming_input(o.output, {o.input, o.options.allocs_file});
  if (import::is_cache_trace_format(o.format)) return run_cache_import(o, encoding);
  // Atomic: on any error nothing appears under o.output.
  auto writer = trace::create_trace_writer(o.output, encoding);
  gen::SummaryWriter counting(writer.get());
  const import::ImportResult result = import::import_trace(o.format, o.input, o.options, counting);
  counting.finish();
  const gen::TraceSummary summary = counting.summary();
  std::cout << fmt::format("{} {} -> {}: {} allocations ({}), {} kernels, {} accesses; {}\n", o.format, o.input,
                           o.output, result.allocations.size(), result.inferred ? "inferred" : "from side file",
                           result.stats.kernels, result.stats.accesses, summary.to_string());
  if (result.stats.outside)
    std::cerr << fmt::format("umsim: warning: ignored {} accesses outside every allocation (first at {}); "
                             "--strict makes this an error\n",
                             result.stats.outside, result.stats.first_outside);
  return 0;
}

void setup(CLI::App& app) {
  CLI::App& trace = trace_parent_command(app);
  auto o = std::make_shared<ImportCommandOptions>();
  CLI::App* cmd = trace.add_subcommand("import", "import a recorded trace (nvbit, accelsim, csv) as a page-granular umsim trace");
  cmd->add_option("format", o->format,
                  "input format: nvbit (mem_trace output), accelsim (kernelslist.g or .traceg), csv; cache request "
                  "traces (libCacheSim): oraclegeneral (binary), cachesim-csv, cachesim-txt")
      ->required()
      ->check(CLI::IsMember(import::import_formats()));
  cmd->add_option("input", o->input, "input file")->required();
  cmd->add_option("-o,--output", o->output, "output trace (.umtb: binary, otherwise text)")->required();
  cmd->add_option("--allocs", o->options.allocs_file,
                  "allocation side file: lines 'NAME BASE SIZE [managed|device|pinned|mapped]' (default: infer)");
  cmd->add_option("--gap", o->gap, "inference: address ranges closer than this join one allocation")->capture_default_str();
  cmd->add_flag("--strict", o->options.strict, "accesses outside every allocation are errors (default: ignored, counted)");
  cmd->add_option("--gpu", o->options.gpu, "GPU index the recorded kernels ran on")
      ->capture_default_str()
      ->check(CLI::Range(0, import::kMaxImportGpus - 1));
  cmd->add_option("--columns", o->options.columns,
                  "csv: column mapping, e.g. time=0,op=1,addr=2,size=3,kernel=4,proc=5,stream=6 (op and addr required); "
                  "cachesim-csv: obj=N[,size=N][,time=N] (obj required)");
  cmd->add_option("--delimiter", o->delimiter, "csv: field delimiter (one character, \\t for tab)")->capture_default_str();
  cmd->add_flag("--header", o->options.header, "csv, cachesim-csv: skip the first line");
  cmd->add_flag("--size-aware", o->size_aware,
                "cache traces: an object takes ceil(size / 4KiB) pages (default: one page per object)");
  cmd->add_option("--encoding", o->encoding, "output encoding: auto (by extension), text or binary")->capture_default_str()
      ->check(CLI::IsMember({"auto", "text", "binary"}));
  cmd->callback([o] { exit_status() = run_import(*o); });
}

UMSIM_REGISTER_COMMAND("trace import", 901, setup);

}  // namespace
}  // namespace umsim::cli
