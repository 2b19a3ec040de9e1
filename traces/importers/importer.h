// `umsim trace import FORMAT IN -o OUT`: recorded traces of real programs,
// reduced to page-granular umsim traces. Formats:
//   nvbit     NVBit's mem_trace tool output (LAUNCH lines + per-warp address lines)
//   accelsim  Accel-Sim SASS traces: a kernelslist.g or a single kernel-N.traceg
//   csv       one access per row, columns mapped with --columns
// Allocations come from a side file (--allocs) or are inferred by clustering
// the touched addresses (two passes over the input; nothing is held in memory
// but one bit per page of the allocations).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "traces/importers/import_visitor.h"
#include "traces/importers/page_reducer.h"
#include "traces/trace_writer.h"

namespace umsim::import {

// GPU indices a trace can name (processor codes are 1 + g in 15 bits of a mask with the CPU).
inline constexpr int kMaxImportGpus = 15;

struct ImportOptions {
  std::string allocs_file;             // side file of allocations; empty: infer
  std::uint64_t gap = 1024 * 1024;     // inference: ranges closer than this join one allocation
  bool strict = false;                 // accesses outside every allocation are errors
  int gpu = 0;                         // GPU the recorded kernels ran on (0 to kMaxImportGpus - 1)
  // csv only
  std::string columns;                 // e.g. "time=0,op=1,addr=2,size=3"
  char delimiter = ',';
  bool header = false;                 // skip the first line
};

struct ImportResult {
  ReduceStats stats;
  std::vector<Allocation> allocations;
  bool inferred = false;
};

// Parses `input` in `format`, reporting accesses to `visitor`. Throws TraceError
// with file:line on malformed input.
void parse_nvbit(const std::string& input, const ImportOptions& options, ImportVisitor& visitor);
void parse_accelsim(const std::string& input, const ImportOptions& options, ImportVisitor& visitor);
void parse_csv(const std::string& input, const ImportOptions& options, ImportVisitor& visitor);

const std::vector<std::string>& import_formats();

// Runs the whole import into `out` (does not call finish()). Throws TraceError.
ImportResult import_trace(const std::string& format, const std::string& input, const ImportOptions& options,
                          trace::TraceWriter& out);

}  // namespace umsim::import
