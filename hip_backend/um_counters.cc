#include "hip_backend/um_counters.h"

#include <algorithm>
#include <set>

namespace umsim::hip {

namespace {

void add(Counters& c, const UmRecord& r) {
  const auto cause = static_cast<MigrationCause>(r.flags);
  const bool prefetched = cause == MigrationCause::kUser || cause == MigrationCause::kPrefetch;
  switch (r.kind) {
    case UmKind::kBytesH2D:
      c.bytes_h2d += r.value;
      if (prefetched) c.bytes_prefetched += r.value;
      break;
    case UmKind::kBytesD2H:
      c.bytes_d2h += r.value;
      if (prefetched) c.bytes_prefetched += r.value;
      if (cause == MigrationCause::kEviction) c.bytes_evicted += r.value;
      break;
    case UmKind::kBytesD2D: c.bytes_peer += r.value; break;
    case UmKind::kCpuPageFault: c.cpu_faults += 1; break;  // value is the faulting PC
    case UmKind::kGpuPageFault:
      c.gpu_faults += std::max<std::uint64_t>(r.value, 1);
      c.gpu_fault_pages += 1;  // one record per faulting page per batch
      break;
    case UmKind::kThrashing: c.thrashing_events += (r.value + 4095) / 4096; break;  // region bytes -> pages
    case UmKind::kThrottling: c.throttles += 1; break;
    case UmKind::kRemoteMap: break;
  }
}

// Batches of one scope: distinct replay timestamps of its GPU fault records.
struct BatchCounter {
  std::set<std::uint64_t> replays;
  void add(const UmRecord& r) {
    if (r.kind == UmKind::kGpuPageFault) replays.insert(r.end);
  }
};

// The kernel a record is counted in (attribute()'s rule), or -1: the first
// kernel whose window holds its start on the record's GPU; explicit prefetches
// belong to no kernel.
std::ptrdiff_t kernel_of(const UmRecord& r, const std::vector<Window>& kernels) {
  const bool explicit_prefetch = (r.kind == UmKind::kBytesH2D || r.kind == UmKind::kBytesD2H) &&
                                 static_cast<MigrationCause>(r.flags) == MigrationCause::kUser;
  if (explicit_prefetch) return -1;
  for (std::size_t k = 0; k < kernels.size(); ++k)
    if (kernels[k].contains(r.start) && (r.device < 0 || kernels[k].device < 0 || kernels[k].device == r.device))
      return static_cast<std::ptrdiff_t>(k);
  return -1;
}

const char* kind_name(UmKind kind) {
  switch (kind) {
    case UmKind::kBytesH2D: return "h2d";
    case UmKind::kBytesD2H: return "d2h";
    case UmKind::kCpuPageFault: return "cpu_fault";
    case UmKind::kGpuPageFault: return "gpu_fault";
    case UmKind::kThrashing: return "thrashing";
    case UmKind::kThrottling: return "throttling";
    case UmKind::kRemoteMap: return "remote_map";
    case UmKind::kBytesD2D: return "d2d";
  }
  return "unknown";
}

}  // namespace

std::int32_t device_of_record(UmKind kind, std::uint32_t src_id, std::uint32_t dst_id) {
  switch (kind) {
    case UmKind::kGpuPageFault:
    case UmKind::kThrottling:
    case UmKind::kBytesD2H: return static_cast<std::int32_t>(src_id);
    case UmKind::kBytesH2D:
    case UmKind::kBytesD2D: return static_cast<std::int32_t>(dst_id);
    case UmKind::kCpuPageFault:
    case UmKind::kThrashing:
    case UmKind::kRemoteMap: break;
  }
  return -1;
}

Attributed attribute(const std::vector<UmRecord>& records, const std::vector<Window>& kernels,
                     const std::vector<Window>& phases) {
  Attributed out;
  out.kernels.resize(kernels.size());
  out.phases.resize(phases.size());
  BatchCounter total_batches;
  std::vector<BatchCounter> kernel_batches(kernels.size()), phase_batches(phases.size());
  for (const auto& r : records) {
    if (r.kind == UmKind::kRemoteMap) ++out.remote_maps;
    add(out.total, r);
    total_batches.add(r);
    for (std::size_t p = 0; p < phases.size(); ++p)
      if (phases[p].contains(r.start)) {
        add(out.phases[p], r);
        phase_batches[p].add(r);
        break;
      }
    if (const std::ptrdiff_t k = kernel_of(r, kernels); k >= 0) {
      add(out.kernels[k], r);
      kernel_batches[k].add(r);
    }
  }
  out.total.fault_batches = total_batches.replays.size();
  for (std::size_t k = 0; k < kernels.size(); ++k) out.kernels[k].fault_batches = kernel_batches[k].replays.size();
  for (std::size_t p = 0; p < phases.size(); ++p) out.phases[p].fault_batches = phase_batches[p].replays.size();
  return out;
}

nlohmann::ordered_json fault_record_summary(const std::vector<UmRecord>& records) {
  std::set<std::uint64_t> starts, ends;
  std::uint64_t faults = 0, groups = 0, transfers = 0, transfer_bytes = 0, largest = 0;
  for (const auto& r : records) {
    if (r.kind == UmKind::kGpuPageFault) {
      starts.insert(r.start);
      ends.insert(r.end);
      ++faults;
      groups += r.value;
    } else if (r.kind == UmKind::kBytesH2D || r.kind == UmKind::kBytesD2H) {
      ++transfers;
      transfer_bytes += r.value;
      largest = std::max(largest, r.value);
    }
  }
  nlohmann::ordered_json j;
  j["records"] = records.size();
  j["gpu_fault_records"] = faults;
  j["gpu_fault_groups"] = groups;
  j["distinct_fault_start_times"] = starts.size();
  j["distinct_fault_replay_times"] = ends.size();
  j["transfer_records"] = transfers;
  j["mean_transfer_bytes"] = transfers ? transfer_bytes / transfers : 0;
  j["largest_transfer_bytes"] = largest;
  return j;
}

std::string um_records_csv(const std::vector<UmRecord>& records, const std::vector<Window>& kernels) {
  std::vector<const UmRecord*> order;
  order.reserve(records.size());
  for (const auto& r : records) order.push_back(&r);
  std::stable_sort(order.begin(), order.end(), [](const UmRecord* a, const UmRecord* b) { return a->start < b->start; });
  std::uint64_t zero = records.empty() ? 0 : order.front()->start;
  if (!kernels.empty()) {
    zero = kernels.front().start;
    for (const auto& k : kernels) zero = std::min(zero, k.start);
  }
  const auto relative = [zero](std::uint64_t t) {
    return t == 0 ? std::string() : std::to_string(static_cast<std::int64_t>(t - zero));
  };
  std::string out = "kind,start_ns,end_ns,value,flags,address,device,kernel\n";
  for (std::size_t k = 0; k < kernels.size(); ++k)
    out += "kernel_window," + relative(kernels[k].start) + "," + relative(kernels[k].end) + ",0,0,0," +
           std::to_string(kernels[k].device) + "," + std::to_string(k) + "\n";
  for (const UmRecord* r : order)
    out += std::string(kind_name(r->kind)) + "," + relative(r->start) + "," + relative(r->end) + "," +
           std::to_string(r->value) + "," + std::to_string(r->flags) + "," + std::to_string(r->address) + "," +
           std::to_string(r->device) + "," + std::to_string(kernel_of(*r, kernels)) + "\n";
  return out;
}

}  // namespace umsim::hip
