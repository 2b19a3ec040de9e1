#include "traces/trace_stats.h"

#include <fmt/format.h>

#include <algorithm>

#include "traces/trace_error.h"
#include "traces/units.h"

namespace umsim::trace {

struct StatsCollector::Live {
  Live(std::uint64_t pages) : gpu(pages), cpu(pages) {}
  PageBitmap gpu, cpu;
  bool live = true;
};

StatsCollector::StatsCollector(std::string source) { stats_.source = std::move(source); }
StatsCollector::~StatsCollector() = default;

void StatsCollector::add(std::span<const Event> batch, const TraceReader& reader) {
  if (current_.size() < reader.names().size()) current_.resize(reader.names().size(), -1);
  for (std::size_t i = 0; i < batch.size(); ++i) on_event(batch[i], i, reader);
  stats_.events += batch.size();
}

StatsCollector::Live* StatsCollector::resolve(const Event& e) {
  const std::int64_t index = current_[e.name];
  if (index < 0 || !live_[index]->live) return nullptr;
  const Bytes size = stats_.allocations[index].size;
  if (e.offset + e.length < e.offset || e.offset + e.length > size) return nullptr;
  return live_[index].get();
}

void StatsCollector::on_event(const Event& e, std::size_t index, const TraceReader& reader) {
  stats_.by_kind[static_cast<int>(e.kind)] += 1;
  switch (e.kind) {
    case EventKind::kAlloc: {
      if (e.length > kMaxTrackedBytes)
        throw TraceError(reader.position(index) + ": allocation '" + reader.names().name(e.name) + "' of " +
                         describe_bytes(e.length) + " is larger than the " + format_bytes(kMaxTrackedBytes) +
                         " that trace statistics track");
      const std::int64_t old = current_[e.name];
      if (old >= 0 && live_[old]->live) {  // re-allocated while live: counted as unresolved
        ++stats_.unresolved;
        return;
      }
      AllocationSummary a;
      a.name = reader.names().name(e.name);
      a.kind = e.alloc_kind();
      a.placement = e.processor;
      a.size = e.length;
      a.allocated_at = reader.position(index);
      current_[e.name] = static_cast<std::int64_t>(stats_.allocations.size());
      stats_.allocations.push_back(std::move(a));
      live_.push_back(std::make_unique<Live>((e.length + kPageSize - 1) / kPageSize));
      stats_.total_allocated_bytes += e.length;
      live_bytes_ += e.length;
      stats_.peak_live_bytes = std::max(stats_.peak_live_bytes, live_bytes_);
      if (e.alloc_kind() == AllocKind::kManaged || e.alloc_kind() == AllocKind::kSystem) {
        live_managed_bytes_ += e.length;
        stats_.peak_live_managed_bytes = std::max(stats_.peak_live_managed_bytes, live_managed_bytes_);
      }
      return;
    }
    case EventKind::kFree: {
      const std::int64_t idx = current_[e.name];
      if (idx < 0 || !live_[idx]->live) {
        ++stats_.unresolved;
        return;
      }
      AllocationSummary& a = stats_.allocations[idx];
      live_[idx]->live = false;
      a.freed = true;
      live_bytes_ -= a.size;
      if (a.kind == AllocKind::kManaged || a.kind == AllocKind::kSystem) live_managed_bytes_ -= a.size;
      return;
    }
    case EventKind::kKernelBegin:
      ++stats_.kernels;
      stats_.compute_ns += e.duration;
      stats_.gpus = std::max(stats_.gpus, e.processor.gpu_index() + 1);
      streams_.insert(e.stream);
      return;
    case EventKind::kGpuAccess:
    case EventKind::kCpuAccess: {
      const bool gpu = e.kind == EventKind::kGpuAccess;
      const int type = std::min<int>(e.op, 3);
      (gpu ? stats_.gpu_accesses : stats_.cpu_accesses)[type] += 1;
      Live* live = resolve(e);
      if (live == nullptr) {
        ++stats_.unresolved;
        return;
      }
      AllocationSummary& a = stats_.allocations[current_[e.name]];
      (gpu ? a.gpu_accesses : a.cpu_accesses)[type] += 1;
      const std::uint64_t touches = pages_per_pass(e) * e.count;
      a.page_touches += touches;
      stats_.page_touches += touches;
      PageBitmap& bits = gpu ? live->gpu : live->cpu;
      if (e.length == 0) return;
      if (e.stride <= kPageSize) {
        bits.set_range(e.offset / kPageSize, (e.offset + e.length - 1) / kPageSize);
      } else {
        for_each_page_once(e, [&](std::uint64_t p) { bits.set(p); });
      }
      return;
    }
    case EventKind::kPrefetch:
    case EventKind::kAdvise: {
      if (e.kind == EventKind::kPrefetch) streams_.insert(e.stream);
      if (resolve(e) == nullptr) {
        ++stats_.unresolved;
        return;
      }
      AllocationSummary& a = stats_.allocations[current_[e.name]];
      if (e.kind == EventKind::kPrefetch) {
        ++a.prefetches;
        a.prefetch_bytes += e.length;
      } else {
        ++a.advises;
      }
      return;
    }
    case EventKind::kSync:
      if (e.sync_scope() == SyncScope::kStream) streams_.insert(e.stream);
      if (e.sync_scope() == SyncScope::kGpu) stats_.gpus = std::max(stats_.gpus, e.processor.gpu_index() + 1);
      return;
    case EventKind::kEventRecord:
    case EventKind::kEventWait:
      streams_.insert(e.stream);
      return;
    case EventKind::kCopy:
    case EventKind::kMemset: {
      streams_.insert(e.stream);
      stats_.gpus = std::max(stats_.gpus, e.processor.gpu_index() + 1);
      TransferStats& t = e.kind == EventKind::kMemset ? stats_.memsets : stats_.copies[static_cast<int>(e.copy_kind())];
      ++t.count;
      t.bytes += e.length;
      if (resolve(e) == nullptr) ++stats_.unresolved;
      return;
    }
    case EventKind::kPeerEnable:
      ++stats_.peer_enables;
      stats_.gpus = std::max({stats_.gpus, e.processor.gpu_index() + 1, e.peer_gpu().gpu_index() + 1});
      return;
    default:
      return;
  }
}

TraceStats StatsCollector::finish() {
  for (std::size_t i = 0; i < stats_.allocations.size(); ++i) {
    AllocationSummary& a = stats_.allocations[i];
    a.gpu_pages = live_[i]->gpu.count();
    a.cpu_pages = live_[i]->cpu.count();
    a.pages_touched = live_[i]->gpu.count_union(live_[i]->cpu);
    stats_.pages_touched += a.pages_touched;
  }
  stats_.streams = streams_.size();
  return std::move(stats_);
}

TraceStats collect_stats(TraceReader& reader) {
  StatsCollector collector(reader.source());
  std::vector<Event> batch(4096);
  std::size_t n;
  while ((n = reader.read(batch)) > 0) collector.add(std::span<const Event>(batch.data(), n), reader);
  TraceStats s = collector.finish();
  s.version = reader.version();
  return s;
}

namespace {

std::uint64_t sum(const std::array<std::uint64_t, 4>& a) { return a[0] + a[1] + a[2] + a[3]; }

std::string rwa(const std::array<std::uint64_t, 4>& a, int version) {
  if (version < 2) return fmt::format("{} (r {}, w {}, a {})", sum(a), a[0], a[1], a[2]);
  return fmt::format("{} (r {}, w {}, a {}, rmw {})", sum(a), a[0], a[1], a[2], a[3]);
}

int kinds_shown(const TraceStats& s) { return s.version < 2 ? kVersion1EventKinds : kEventKindCount; }

std::string transfer_text(const TransferStats& t) { return fmt::format("{} ({})", t.count, format_bytes(t.bytes)); }

std::string pages_text(std::uint64_t pages) { return fmt::format("{} ({})", pages, format_bytes(pages * kPageSize)); }

}  // namespace

std::string format_stats_text(const TraceStats& s) {
  std::string out;
  auto line = [&](const std::string& text) {
    out += text;
    out += '\n';
  };
  line("trace: " + s.source);
  line(fmt::format("events: {}", s.events));
  for (int k = 0; k < kinds_shown(s); ++k)
    line(fmt::format("  {:<11} {}", to_string(static_cast<EventKind>(k)), s.by_kind[k]));
  line(fmt::format("footprint: peak {} live ({} managed), {} allocated in {} allocations",
                   format_bytes(s.peak_live_bytes), format_bytes(s.peak_live_managed_bytes),
                   format_bytes(s.total_allocated_bytes), s.allocations.size()));
  line(fmt::format("kernels: {} on {} GPU(s), compute {}, {} stream(s)", s.kernels, s.gpus,
                   format_duration_ns(s.compute_ns), s.streams));
  line("gpu accesses: " + rwa(s.gpu_accesses, s.version));
  line("cpu accesses: " + rwa(s.cpu_accesses, s.version));
  if (s.version >= 2) {
    using K = CopyKind;
    const auto& c = s.copies;
    line("copies: host to device: pinned " + transfer_text(c[static_cast<int>(K::kFromPinnedHost)]) + ", pageable " +
         transfer_text(c[static_cast<int>(K::kFromPageableHost)]) + "; device to host: pinned " +
         transfer_text(c[static_cast<int>(K::kToPinnedHost)]) + ", pageable " +
         transfer_text(c[static_cast<int>(K::kToPageableHost)]) + "; between allocations " +
         transfer_text(c[static_cast<int>(K::kBetweenAllocations)]));
    line("memsets: " + transfer_text(s.memsets) + fmt::format("; peer enables: {}", s.peer_enables));
  }
  line("pages touched: " + pages_text(s.pages_touched) + fmt::format(", {} page touches", s.page_touches));
  if (s.unresolved > 0)
    line(fmt::format("unresolved: {} events name no live allocation or leave it (run 'umsim trace check')",
                     s.unresolved));
  line("allocations:");
  line(fmt::format("  {:<16} {:<8} {:>10} {:<6} {:>9} {:>9} {:>10} {:>10} {:>10} {:>9} {:>7}", "name", "kind", "size",
                   "on", "gpu acc", "cpu acc", "pages", "gpu pages", "cpu pages", "prefetch", "advise"));
  for (const auto& a : s.allocations)
    line(fmt::format("  {:<16} {:<8} {:>10} {:<6} {:>9} {:>9} {:>10} {:>10} {:>10} {:>9} {:>7}", a.name,
                     to_string(a.kind), format_bytes(a.size), a.placement.is_none() ? "-" : to_string(a.placement),
                     sum(a.gpu_accesses), sum(a.cpu_accesses), a.pages_touched, a.gpu_pages, a.cpu_pages,
                     a.prefetches, a.advises));
  return out;
}

nlohmann::ordered_json stats_to_json(const TraceStats& s) {
  using nlohmann::ordered_json;
  auto rwa_json = [&](const std::array<std::uint64_t, 4>& a) {
    ordered_json j{{"read", a[0]}, {"write", a[1]}, {"atomic", a[2]}};
    if (s.version >= 2) j["read_modify_write"] = a[3];
    return j;
  };
  ordered_json j;
  j["source"] = s.source;
  j["events"] = s.events;
  ordered_json kinds = ordered_json::object();
  for (int k = 0; k < kinds_shown(s); ++k) kinds[to_string(static_cast<EventKind>(k))] = s.by_kind[k];
  j["events_by_kind"] = kinds;
  j["footprint"] = {{"peak_live_bytes", s.peak_live_bytes},
                    {"peak_live_managed_bytes", s.peak_live_managed_bytes},
                    {"total_allocated_bytes", s.total_allocated_bytes},
                    {"allocations", s.allocations.size()}};
  j["kernels"] = {{"count", s.kernels}, {"compute_ns", s.compute_ns}, {"gpus", s.gpus}, {"streams", s.streams}};
  j["gpu_accesses"] = rwa_json(s.gpu_accesses);
  j["cpu_accesses"] = rwa_json(s.cpu_accesses);
  j["pages_touched"] = s.pages_touched;
  j["page_touches"] = s.page_touches;
  if (s.version >= 2) {
    ordered_json copies = ordered_json::object();
    for (int k = 0; k < 5; ++k)
      copies[to_string(static_cast<CopyKind>(k))] = {{"count", s.copies[k].count}, {"bytes", s.copies[k].bytes}};
    j["format_version"] = s.version;
    j["copies"] = copies;
    j["memsets"] = {{"count", s.memsets.count}, {"bytes", s.memsets.bytes}};
    j["peer_enables"] = s.peer_enables;
  }
  j["unresolved_events"] = s.unresolved;
  ordered_json allocs = ordered_json::array();
  for (const auto& a : s.allocations) {
    allocs.push_back({{"name", a.name},
                      {"kind", to_string(a.kind)},
                      {"size_bytes", a.size},
                      {"placement", to_string(a.placement)},
                      {"allocated_at", a.allocated_at},
                      {"freed", a.freed},
                      {"gpu_accesses", rwa_json(a.gpu_accesses)},
                      {"cpu_accesses", rwa_json(a.cpu_accesses)},
                      {"page_touches", a.page_touches},
                      {"pages_touched", a.pages_touched},
                      {"gpu_pages", a.gpu_pages},
                      {"cpu_pages", a.cpu_pages},
                      {"prefetches", a.prefetches},
                      {"prefetch_bytes", a.prefetch_bytes},
                      {"advises", a.advises}});
  }
  j["allocations"] = allocs;
  return j;
}

}  // namespace umsim::trace
