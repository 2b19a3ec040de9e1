#include "traces/importers/importer.h"

#include <memory>

#include "traces/trace_error.h"

namespace umsim::import {

const std::vector<std::string>& import_formats() {
  // The last three are cache-simulator request traces (cache_trace_importer.h).
  static const std::vector<std::string> formats = {"nvbit",         "accelsim",     "csv",
                                                   "oraclegeneral", "cachesim-csv", "cachesim-txt"};
  return formats;
}

namespace {

void parse(const std::string& format, const std::string& input, const ImportOptions& options, ImportVisitor& v) {
  if (format == "nvbit") return parse_nvbit(input, options, v);
  if (format == "accelsim") return parse_accelsim(input, options, v);
  if (format == "csv") return parse_csv(input, options, v);
  std::string known;
  for (const auto& f : import_formats()) known += (known.empty() ? "" : ", ") + f;
  throw trace::TraceError("unknown import format '" + format + "' (known: " + known + ")");
}

}  // namespace

ImportResult import_trace(const std::string& format, const std::string& input, const ImportOptions& options,
                          trace::TraceWriter& out) {
  // A negative GPU would turn every GPU access into a CPU access (importers mark CPU rows with -1).
  if (options.gpu < 0 || options.gpu >= kMaxImportGpus)
    throw trace::TraceError("--gpu: expected a GPU index from 0 to " + std::to_string(kMaxImportGpus - 1) + ", got " +
                            std::to_string(options.gpu));
  ImportResult result;
  AddressMap map;
  if (!options.allocs_file.empty()) {
    map = read_allocation_file(options.allocs_file);
  } else {
    AllocationInference inference(options.gap);
    AddressCollector collector(inference);
    parse(format, input, options, collector);
    if (inference.empty()) throw trace::TraceError(input + ": no unified-memory accesses found in the input");
    map = inference.result();
    result.inferred = true;
  }
  result.allocations = map.allocations();
  out.comment("imported from " + format + " trace " + input +
              (result.inferred ? " (allocations inferred from address ranges)" : " (allocations from " +
                                                                                      options.allocs_file + ")"));
  gen::TraceEmitter emitter(out);
  // Too much memory to collect pages: named after the allocations' source.
  const std::string source = options.allocs_file.empty() ? input : options.allocs_file;
  std::unique_ptr<PageReducer> reducer;
  try {
    reducer = std::make_unique<PageReducer>(emitter, map, options.strict, options.gpu);
  } catch (const PageSetTooLarge& e) {
    throw trace::TraceError(source + ": " + e.what());
  }
  parse(format, input, options, *reducer);
  reducer->finish();
  result.stats = reducer->stats();
  return result;
}

}  // namespace umsim::import
