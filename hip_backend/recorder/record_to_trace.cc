#include "hip_backend/recorder/record_to_trace.h"

#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>

#include <fmt/format.h>

#include "traces/generators/page_touch_set.h"
#include "traces/generators/trace_emitter.h"

namespace umsim::recorder {
namespace {

using trace::AccessType;
using trace::Processor;

enum class ItemKind { kAlloc, kFree, kPrefetch, kAdvise, kKernel, kSync, kCpuFault, kCopy, kMemset, kPeer };

struct Item {
  std::uint64_t time, seq;
  ItemKind kind;
  std::size_t index;
};

struct Live {
  std::string name;
  std::uint64_t base, size;
  std::size_t pages_index;  // in the PageTouchSet
};

// Live allocations by base address (addresses can be reused after a free).
class LiveMap {
 public:
  void add(const Live& a) { by_base_[a.base] = a; }
  bool remove(std::uint64_t base) { return by_base_.erase(base) > 0; }
  const Live* find(std::uint64_t address) const {
    auto it = by_base_.upper_bound(address);
    if (it == by_base_.begin()) return nullptr;
    --it;
    return address - it->second.base < it->second.size ? &it->second : nullptr;
  }

 private:
  std::map<std::uint64_t, Live> by_base_;
};

Processor processor_of(int device) { return device < 0 ? Processor::cpu() : Processor::gpu(device); }

}  // namespace

int trace_version_for(const RecordLog& log) {
  return log.copies.empty() && log.memsets.empty() && log.peers.empty() ? 1 : 2;
}

ConvertStats convert_record_log(const RecordLog& log, trace::TraceWriter& out, const ConvertOptions& options) {
  ConvertStats stats;
  gen::TraceEmitter t(out);
  gen::PageTouchSet pages;  // one slot per allocation ever made
  LiveMap live;

  // Kernels: placed at their launch call when one was recorded, else at their start.
  std::unordered_map<std::uint64_t, const LaunchRecord*> launch_of;
  for (const auto& l : log.launches) launch_of[l.correlation] = &l;
  std::vector<Item> items;
  for (std::size_t i = 0; i < log.allocs.size(); ++i) items.push_back({log.allocs[i].time, log.allocs[i].seq, ItemKind::kAlloc, i});
  for (std::size_t i = 0; i < log.frees.size(); ++i) items.push_back({log.frees[i].time, log.frees[i].seq, ItemKind::kFree, i});
  for (std::size_t i = 0; i < log.prefetches.size(); ++i)
    items.push_back({log.prefetches[i].time, log.prefetches[i].seq, ItemKind::kPrefetch, i});
  for (std::size_t i = 0; i < log.advises.size(); ++i) items.push_back({log.advises[i].time, log.advises[i].seq, ItemKind::kAdvise, i});
  for (std::size_t i = 0; i < log.syncs.size(); ++i) items.push_back({log.syncs[i].time, log.syncs[i].seq, ItemKind::kSync, i});
  for (std::size_t i = 0; i < log.copies.size(); ++i) items.push_back({log.copies[i].time, log.copies[i].seq, ItemKind::kCopy, i});
  for (std::size_t i = 0; i < log.memsets.size(); ++i)
    items.push_back({log.memsets[i].time, log.memsets[i].seq, ItemKind::kMemset, i});
  for (std::size_t i = 0; i < log.peers.size(); ++i) items.push_back({log.peers[i].time, log.peers[i].seq, ItemKind::kPeer, i});
  for (std::size_t i = 0; i < log.kernels.size(); ++i) {
    const auto it = launch_of.find(log.kernels[i].correlation);
    const std::uint64_t at = it != launch_of.end() ? it->second->time : log.kernels[i].start;
    const std::uint64_t seq = it != launch_of.end() ? it->second->seq : log.kernels[i].seq;
    items.push_back({at, seq, ItemKind::kKernel, i});
  }
  for (std::size_t i = 0; i < log.um.size(); ++i)
    if (log.um[i].kind == kUmCpuPageFault) items.push_back({log.um[i].start, log.um[i].seq, ItemKind::kCpuFault, i});
  std::stable_sort(items.begin(), items.end(),
                   [](const Item& a, const Item& b) { return a.time != b.time ? a.time < b.time : a.seq < b.seq; });

  // GPU faults per kernel: the kernel on the faulting GPU whose [start, end]
  // holds the fault's time; else the latest kernel on that GPU started before it.
  std::vector<std::vector<const UmRecord*>> faults(log.kernels.size());
  {
    std::map<int, std::vector<std::size_t>> by_device;  // kernel indices sorted by start
    for (std::size_t i = 0; i < log.kernels.size(); ++i) by_device[log.kernels[i].device].push_back(i);
    for (auto& [_, v] : by_device)
      std::sort(v.begin(), v.end(), [&](std::size_t a, std::size_t b) { return log.kernels[a].start < log.kernels[b].start; });
    for (const auto& u : log.um) {
      if (u.kind != kUmGpuPageFault || u.flags == kUmAccessPrefetch) continue;
      const auto dev = by_device.find(static_cast<int>(u.src));
      std::size_t chosen = log.kernels.size();
      if (dev != by_device.end()) {
        for (std::size_t k : dev->second) {
          if (log.kernels[k].start > u.start) break;
          chosen = k;  // latest started so far
          if (u.start <= log.kernels[k].end) break;  // inside it
        }
      }
      if (chosen == log.kernels.size()) {
        ++stats.unattributed;
        continue;
      }
      faults[chosen].push_back(&u);
    }
  }

  // Stream ids: CUPTI's, renumbered densely in order of appearance.
  std::map<std::uint32_t, trace::StreamId> streams;
  auto stream_id = [&](std::uint32_t s) {
    return streams.emplace(s, static_cast<trace::StreamId>(streams.size())).first->second;
  };
  std::map<trace::AllocKind, int> counters;
  std::set<std::pair<int, int>> peers;  // GPU pairs enabled so far
  bool cpu_pending = false;
  auto flush_cpu = [&] {
    if (cpu_pending) pages.flush(t);
    cpu_pending = false;
  };

  t.comment("recorded with umsim-hip record: accesses are the pages the program faulted on (GPU and CPU page "
            "faults); accesses to resident pages raise no fault and are absent");
  for (const Item& it : items) {
    if (it.kind != ItemKind::kCpuFault) flush_cpu();
    switch (it.kind) {
      case ItemKind::kAlloc: {
        const AllocRecord& a = log.allocs[it.index];
        Live l{fmt::format("{}{}", trace::to_string(a.kind), counters[a.kind]++), a.ptr, a.size, 0};
        l.pages_index = pages.add(l.name, l.size);
        t.comment(fmt::format("{} at {:#x}", l.name, a.ptr));
        t.alloc(l.name, a.size, a.kind,
                a.kind == trace::AllocKind::kDevice ? Processor::gpu(a.device) : Processor::none());
        live.add(l);
        ++stats.allocations;
        break;
      }
      case ItemKind::kFree: {
        const FreeRecord& f = log.frees[it.index];
        const Live* l = live.find(f.ptr);
        if (l == nullptr || l->base != f.ptr) {
          ++stats.unknown_frees;
          break;
        }
        t.free(l->name);
        live.remove(f.ptr);
        break;
      }
      case ItemKind::kPrefetch:
      case ItemKind::kAdvise: {
        const bool prefetch = it.kind == ItemKind::kPrefetch;
        const std::uint64_t ptr = prefetch ? log.prefetches[it.index].ptr : log.advises[it.index].ptr;
        const std::uint64_t size = prefetch ? log.prefetches[it.index].size : log.advises[it.index].size;
        const Live* l = live.find(ptr);
        if (l == nullptr || size == 0) {
          ++stats.outside;
          break;
        }
        const std::uint64_t offset = ptr - l->base, length = std::min(size, l->size - offset);
        if (prefetch) {
          const PrefetchRecord& p = log.prefetches[it.index];
          t.prefetch(l->name, offset, length, processor_of(p.destination), stream_id(p.stream));
        } else {
          const AdviseRecord& a = log.advises[it.index];
          // cudaMemoryAdvise 1..6 in the same order as trace::Advice.
          const auto advice = static_cast<trace::Advice>(a.advice - 1);
          const bool takes_target = advice != trace::Advice::kSetReadMostly && advice != trace::Advice::kUnsetReadMostly;
          t.advise(l->name, advice, offset, length, takes_target ? processor_of(a.target) : Processor::none());
        }
        break;
      }
      case ItemKind::kSync: {
        const SyncRecord& s = log.syncs[it.index];
        if (s.stream_scope) t.sync_stream(stream_id(s.id));
        else t.sync_gpu(static_cast<int>(s.id));
        break;
      }
      case ItemKind::kKernel: {
        const KernelRecord& k = log.kernels[it.index];
        std::string name = k.name.substr(0, k.name.find('('));
        for (char& c : name)
          if (c == ' ' || c == '\t') c = '_';
        t.comment(fmt::format("kernel {} ran {} ns on the GPU (fault stalls included)", name, k.end - k.start));
        t.kernel_begin(name, k.device, stream_id(k.stream), options.measured_compute ? k.end - k.start : 0);
        for (const UmRecord* u : faults[it.index]) {
          const Live* l = live.find(u->address);
          if (l == nullptr) {
            ++stats.outside;
            continue;
          }
          const AccessType type = u->flags == kUmAccessWrite    ? AccessType::kWrite
                                  : u->flags == kUmAccessAtomic ? AccessType::kAtomic
                                                                : AccessType::kRead;
          pages.touch(l->pages_index, u->address - l->base, 1, type);
          ++stats.gpu_faults;
        }
        pages.flush(t);
        t.kernel_end();
        ++stats.kernels;
        break;
      }
      case ItemKind::kCopy: {
        const CopyRecord& c = log.copies[it.index];
        const Live* dst = live.find(c.dst);
        const Live* src = live.find(c.src);
        // Copies that leave their allocation, or touch none, cannot be expressed.
        const auto fits = [&](const Live* l, std::uint64_t ptr) { return l == nullptr || c.size <= l->size - (ptr - l->base); };
        if ((dst == nullptr && src == nullptr) || c.size == 0 || !fits(dst, c.dst) || !fits(src, c.src)) {
          ++stats.outside;
          break;
        }
        const trace::StreamId stream = stream_id(c.stream);
        if (dst != nullptr && src != nullptr)
          t.copy(dst->name, c.dst - dst->base, src->name, c.src - src->base, c.size, c.device, stream, c.async);
        else if (dst != nullptr)
          t.copy_host(trace::CopyKind::kFromPageableHost, dst->name, c.dst - dst->base, c.size, c.device, stream, c.async);
        else
          t.copy_host(trace::CopyKind::kToPageableHost, src->name, c.src - src->base, c.size, c.device, stream, c.async);
        ++stats.copies;
        break;
      }
      case ItemKind::kMemset: {
        const MemsetRecord& m = log.memsets[it.index];
        const Live* l = live.find(m.ptr);
        if (l == nullptr || m.size == 0 || m.size > l->size - (m.ptr - l->base)) {
          ++stats.outside;
          break;
        }
        t.memset(l->name, m.ptr - l->base, m.size, m.device, stream_id(m.stream), m.async);
        ++stats.memsets;
        break;
      }
      case ItemKind::kPeer: {
        // cudaDeviceEnablePeerAccess is one direction; the trace statement joins the pair.
        const PeerRecord& p = log.peers[it.index];
        const std::pair<int, int> pair{std::min(p.device, p.peer), std::max(p.device, p.peer)};
        if (!peers.insert(pair).second) break;
        t.peer_enable(p.device, p.peer);
        ++stats.peer_enables;
        break;
      }
      case ItemKind::kCpuFault: {
        const UmRecord& u = log.um[it.index];
        const Live* l = live.find(u.address);
        if (l == nullptr) {
          ++stats.outside;
          break;
        }
        // CPU fault records carry no access type: recorded as reads.
        pages.touch(l->pages_index, u.address - l->base, 1, AccessType::kRead);
        cpu_pending = true;
        ++stats.cpu_faults;
        break;
      }
    }
  }
  flush_cpu();
  return stats;
}

}  // namespace umsim::recorder
