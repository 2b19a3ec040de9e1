// Cache-simulator request traces (libCacheSim's formats), replayed as page
// accesses so that cache-trace corpora run directly:
//   oraclegeneral  libCacheSim's binary oracleGeneral records: 24 bytes, little-endian
//                  {uint32 time, uint64 object id, uint32 object size, int64 next access}
//   cachesim-csv   one request per row, columns mapped with --columns obj=N[,size=N][,time=N]
//   cachesim-txt   one object id per line
// Each object becomes one 4 KiB page of a single managed allocation `objects`
// (or, with size-aware mapping, ceil(size / 4 KiB) consecutive pages, sized by
// the largest size the object is requested with), numbered in order of first
// request; every request is one GPU read of its object's pages, in trace order,
// inside one kernel on the chosen GPU. Two passes over the input (object ids,
// then requests); nothing but the id -> page map is held in memory.
#pragma once

#include <cstdint>
#include <string>

#include "traces/trace_writer.h"

namespace umsim::import {

struct CacheTraceOptions {
  bool size_aware = false;  // object size -> pages (default: every object one page)
  int gpu = 0;
  std::string columns;      // cachesim-csv: obj=N[,size=N][,time=N] (0-based)
  char delimiter = ',';
  bool header = false;      // cachesim-csv: skip the first line
};

struct CacheTraceResult {
  std::uint64_t requests = 0;
  std::uint64_t objects = 0;
  std::uint64_t pages = 0;
};

bool is_cache_trace_format(const std::string& format);

// Throws TraceError naming the byte offset (binary) or file:line (text) of a
// record it cannot map.
CacheTraceResult import_cache_trace(const std::string& format, const std::string& input,
                                    const CacheTraceOptions& options, trace::TraceWriter& out);

}  // namespace umsim::import
