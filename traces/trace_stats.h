// Trace statistics (`umsim trace stat`): footprint, events by kind, pages
// touched (flat bitmaps per allocation), per-allocation summaries.
// Computed in one streaming pass; memory is one bit per page of each allocation.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "traces/page_bitmap.h"
#include "traces/trace_reader.h"

namespace umsim::trace {

struct AllocationSummary {
  std::string name;
  AllocKind kind = AllocKind::kManaged;
  Processor placement;
  Bytes size = 0;
  std::string allocated_at;
  bool freed = false;
  std::array<std::uint64_t, 4> gpu_accesses{};  // access events by AccessType (r, w, a, rmw)
  std::array<std::uint64_t, 4> cpu_accesses{};
  std::uint64_t page_touches = 0;  // pages per pass x passes, summed over accesses
  std::uint64_t pages_touched = 0;  // distinct pages, by anyone
  std::uint64_t gpu_pages = 0, cpu_pages = 0;
  std::uint64_t prefetches = 0;
  Bytes prefetch_bytes = 0;
  std::uint64_t advises = 0;
};

// Explicit copies and memsets (format version 2).
struct TransferStats {
  std::uint64_t count = 0;
  Bytes bytes = 0;
};

struct TraceStats {
  std::string source;
  int version = 1;  // format version: version-2 sections are shown only for version-2 traces
  std::uint64_t events = 0;
  std::array<std::uint64_t, kEventKindCount> by_kind{};
  std::array<std::uint64_t, 4> gpu_accesses{}, cpu_accesses{};
  Bytes peak_live_bytes = 0, peak_live_managed_bytes = 0, total_allocated_bytes = 0;
  std::uint64_t kernels = 0;
  Nanos compute_ns = 0;
  int gpus = 0;  // highest GPU index seen + 1
  std::uint64_t streams = 0;  // distinct stream ids used
  std::uint64_t page_touches = 0, pages_touched = 0;
  std::array<TransferStats, 5> copies{};  // by CopyKind
  TransferStats memsets;
  std::uint64_t peer_enables = 0;
  std::uint64_t unresolved = 0;  // events naming no live allocation or leaving it (see `trace check`)
  std::vector<AllocationSummary> allocations;
};

class StatsCollector {
 public:
  explicit StatsCollector(std::string source);
  ~StatsCollector();
  void add(std::span<const Event> batch, const TraceReader& reader);
  TraceStats finish();

  // Allocations larger than this are refused (the bitmaps would not fit).
  static constexpr Bytes kMaxTrackedBytes = 64ull << 40;

 private:
  struct Live;
  void on_event(const Event& e, std::size_t index, const TraceReader& reader);
  Live* resolve(const Event& e);

  TraceStats stats_;
  std::vector<std::unique_ptr<Live>> live_;  // by allocation index in stats_.allocations
  std::vector<std::int64_t> current_;       // by name id: allocation index, or -1
  std::set<StreamId> streams_;
  Bytes live_bytes_ = 0, live_managed_bytes_ = 0;
};

TraceStats collect_stats(TraceReader& reader);

std::string format_stats_text(const TraceStats& stats);
nlohmann::ordered_json stats_to_json(const TraceStats& stats);

}  // namespace umsim::trace
