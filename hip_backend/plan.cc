#include "hip_backend/plan.h"

#include <algorithm>
#include <array>
#include <string>

#include "traces/checked_math.h"
#include "traces/event_validation.h"
#include "traces/trace_error.h"
#include "traces/work_estimate.h"

namespace umsim::hip {

using trace::Event;
using trace::EventKind;
using trace::TraceError;

const char* to_string(StepKind k) {
  switch (k) {
    case StepKind::kAlloc: return "alloc";
    case StepKind::kFree: return "free";
    case StepKind::kKernel: return "kernel";
    case StepKind::kCpuAccess: return "cpu";
    case StepKind::kPrefetch: return "prefetch";
    case StepKind::kAdvise: return "advise";
    case StepKind::kSync: return "sync";
    case StepKind::kEventRecord: return "record";
    case StepKind::kEventWait: return "wait";
    case StepKind::kPhase: return "phase";
    case StepKind::kCopy: return "copy";
    case StepKind::kMemset: return "memset";
    case StepKind::kPeerEnable: return "peer";
  }
  return "?";
}

namespace {

const char* kind_name(AllocKind k) {
  switch (k) {
    case AllocKind::kManaged: return "managed";
    case AllocKind::kDevice: return "device";
    case AllocKind::kPinned: return "pinned";
    case AllocKind::kMapped: return "mapped";
    case AllocKind::kSystem: return "system";
  }
  return "?";
}

std::string processor_name(Processor p) {
  if (p.is_cpu()) return "cpu";
  if (p.is_gpu()) return "gpu" + std::to_string(p.gpu_index());
  return "none";
}

[[noreturn]] void fail(const std::string& pos, const std::string& what) { throw TraceError(pos + ": " + what); }

}  // namespace

PlanBuilder::PlanBuilder(std::string source, PlanLimits limits) : limits_(limits) {
  plan_.trace = std::move(source);
  plan_.phases.push_back("main");
}

std::uint32_t PlanBuilder::live_slot(const Event& e, const trace::NameTable& names, const std::string& pos) const {
  const std::string& name = names.name(e.name);
  for (const auto& [n, slot] : live_)
    if (n == name) return slot;
  for (std::uint32_t s = 0; s < plan_.allocations.size(); ++s)
    if (plan_.allocations[s].name == name) fail(pos, "allocation '" + name + "' is used after it was freed");
  fail(pos, "unknown allocation '" + name + "' (no alloc before this line)");
}

void PlanBuilder::check_range(const Event& e, std::uint32_t slot, const std::string& pos) const {
  const auto& a = plan_.allocations[slot];
  const auto end = checked_add(e.offset, e.length);
  if (!end || *end > a.bytes)
    fail(pos, "range [" + std::to_string(e.offset) + ", +" + std::to_string(e.length) + ") lies outside allocation '" +
                  a.name + "' of " + std::to_string(a.bytes) + " bytes");
}

void PlanBuilder::note_stream(std::uint32_t s) {
  auto it = std::lower_bound(plan_.streams.begin(), plan_.streams.end(), s);
  if (it == plan_.streams.end() || *it != s) plan_.streams.insert(it, s);
}

void PlanBuilder::note_processor(Processor p, const std::string& pos) {
  if (p.is_gpu()) {
    if (p.gpu_index() > 63) fail(pos, "GPU index " + std::to_string(p.gpu_index()) + " is out of range (0..63)");
    plan_.gpus_used = std::max(plan_.gpus_used, p.gpu_index() + 1);
  }
}

void PlanBuilder::update_peaks() {
  plan_.peak_managed_bytes = std::max(plan_.peak_managed_bytes, live_managed_);
  plan_.peak_device_bytes = std::max(plan_.peak_device_bytes, live_device_);
  plan_.peak_host_bytes = std::max(plan_.peak_host_bytes, live_host_);
}

void PlanBuilder::add(const Event& e, const trace::NameTable& names, const std::string& pos) {
  const bool access = e.kind == EventKind::kGpuAccess || e.kind == EventKind::kCpuAccess;
  if (in_kernel_ && e.kind != EventKind::kGpuAccess && e.kind != EventKind::kKernelEnd)
    fail(pos, "only GPU accesses may appear inside a kernel (kernel opened at " + kernel_position_ + ")");
  if (access && e.count == 0) fail(pos, "access count must be at least 1");

  Step s;
  switch (e.kind) {
    case EventKind::kAlloc: {
      const std::string& name = names.name(e.name);
      for (const auto& [n, slot] : live_)
        if (n == name) fail(pos, "allocation '" + name + "' is allocated twice without a free");
      if (plan_.allocations.size() >= AccessEntry::kMaxSlots)
        fail(pos, "too many allocations (the backend supports " + std::to_string(AccessEntry::kMaxSlots) + ")");
      if (e.length == 0) fail(pos, "allocation '" + name + "' has size 0");
      if (!checked_round_up(e.length, trace::kPageSize))
        fail(pos, "allocation '" + name + "' is too large: its size does not round up to whole 4KiB pages in 64 bits");
      if (ceil_div(e.length, trace::kPageSize) - 1 > AccessEntry::kMaxPage)
        fail(pos, "allocation '" + name + "' has more pages than the backend's access list can index (" +
                      std::to_string(AccessEntry::kMaxPage + 1) + ")");
      if (e.op > static_cast<std::uint8_t>(trace::kLastAllocKind)) fail(pos, "unknown allocation kind");
      note_processor(e.processor, pos);
      s.kind = StepKind::kAlloc;
      s.slot = static_cast<std::uint32_t>(plan_.allocations.size());
      s.processor = e.processor;
      plan_.allocations.push_back({name, e.alloc_kind(), e.length, e.processor});
      live_.emplace_back(name, s.slot);
      // System memory migrates under HMM / XNACK: it counts with managed memory.
      const AllocKind kind = e.alloc_kind();
      Bytes& live = kind == AllocKind::kManaged || kind == AllocKind::kSystem ? live_managed_
                    : kind == AllocKind::kDevice                              ? live_device_
                                                                              : live_host_;
      const auto sum = checked_add(live, e.length);
      if (!sum) fail(pos, "allocation '" + name + "' takes the live " + kind_name(kind) + " memory past 2^64 bytes");
      live = *sum;
      update_peaks();
      break;
    }
    case EventKind::kFree: {
      s.kind = StepKind::kFree;
      s.slot = live_slot(e, names, pos);
      const auto& a = plan_.allocations[s.slot];
      switch (a.kind) {
        case AllocKind::kManaged:
        case AllocKind::kSystem: live_managed_ -= a.bytes; break;
        case AllocKind::kDevice: live_device_ -= a.bytes; break;
        default: live_host_ -= a.bytes; break;
      }
      live_.erase(std::find_if(live_.begin(), live_.end(), [&](const auto& p) { return p.second == s.slot; }));
      break;
    }
    case EventKind::kKernelBegin: {
      const Processor gpu = e.processor.is_none() ? Processor::gpu(0) : e.processor;
      if (!gpu.is_gpu()) fail(pos, "a kernel must run on a GPU, not on " + processor_name(gpu));
      note_processor(gpu, pos);
      note_stream(e.stream);
      in_kernel_ = true;
      kernel_position_ = pos;
      s.kind = StepKind::kKernel;
      s.index = static_cast<std::uint32_t>(plan_.kernels.size());
      s.stream = e.stream;
      s.processor = gpu;
      plan_.kernels.push_back({names.name(e.name), gpu.gpu_index(), e.stream, e.duration, plan_.entries.size(), 0, pos});
      plan_.steps.push_back(s);
      return;
    }
    case EventKind::kKernelEnd:
      if (!in_kernel_) fail(pos, "'end' without an open kernel");
      in_kernel_ = false;
      plan_.kernels.back().entry_count = plan_.entries.size() - plan_.kernels.back().first_entry;
      return;
    case EventKind::kGpuAccess: {
      if (!in_kernel_) fail(pos, "a GPU access must appear inside a kernel");
      const std::uint32_t slot = live_slot(e, names, pos);
      check_range(e, slot, pos);
      if (e.op > static_cast<std::uint8_t>(AccessType::kReadModifyWrite)) fail(pos, "unknown access type");
      if (saturating_add(plan_.entries.size(), trace::page_touches(e)) > limits_.max_entries)
        fail(pos, "the kernels touch more than " + std::to_string(limits_.max_entries) +
                      " pages in total; the backend's access list would not fit (split the trace)");
      for (std::uint32_t pass = 0; pass < e.count; ++pass)
        trace::for_each_page_once(e, [&](std::uint64_t page) {
          plan_.entries.push_back(AccessEntry::pack(e.access(), slot, page));
          plan_.shapes.push_back(TouchShape::pack(trace::page_touch(e, page)));
        });
      return;
    }
    case EventKind::kCpuAccess: {
      s.kind = StepKind::kCpuAccess;
      s.slot = live_slot(e, names, pos);
      check_range(e, s.slot, pos);
      if (plan_.allocations[s.slot].kind == AllocKind::kDevice)
        fail(pos, "the CPU cannot access device allocation '" + plan_.allocations[s.slot].name +
                      "' (kind device is hipMalloc memory)");
      if (e.op > static_cast<std::uint8_t>(AccessType::kReadModifyWrite)) fail(pos, "unknown access type");
      s.op = e.op;
      s.offset = e.offset;
      s.length = e.length;
      s.stride = e.stride;
      s.count = e.count;
      plan_.cpu_page_touches = saturating_add(plan_.cpu_page_touches, trace::page_touches(e));
      break;
    }
    case EventKind::kPrefetch:
    case EventKind::kAdvise: {
      const bool prefetch = e.kind == EventKind::kPrefetch;
      s.kind = prefetch ? StepKind::kPrefetch : StepKind::kAdvise;
      s.slot = live_slot(e, names, pos);
      check_range(e, s.slot, pos);
      const auto& a = plan_.allocations[s.slot];
      if (prefetch && e.processor.is_none()) fail(pos, "prefetch needs a destination (to=cpu or to=gpuN)");
      note_processor(e.processor, pos);
      if (!prefetch && e.op > static_cast<std::uint8_t>(trace::Advice::kUnsetAccessedBy)) fail(pos, "unknown advice");
      if (a.kind != AllocKind::kManaged && a.kind != AllocKind::kSystem) {
        plan_.warnings.push_back(pos + ": " + (prefetch ? "prefetch" : "advise") + " on " + kind_name(a.kind) +
                                 " allocation '" + a.name + "' skipped (only managed and system memory migrate)");
        return;
      }
      s.op = e.op;
      s.offset = e.offset;
      s.length = e.length == 0 ? a.bytes - e.offset : e.length;
      s.processor = e.processor;
      s.stream = e.stream;
      if (prefetch) note_stream(e.stream);
      break;
    }
    case EventKind::kSync:
      if (e.op > static_cast<std::uint8_t>(trace::SyncScope::kStream)) fail(pos, "unknown sync scope");
      s.kind = StepKind::kSync;
      s.op = e.op;
      s.processor = e.processor;
      s.stream = e.stream;
      if (e.sync_scope() == trace::SyncScope::kGpu) {
        if (!e.processor.is_gpu()) fail(pos, "sync gpu needs a GPU");
        note_processor(e.processor, pos);
      }
      if (e.sync_scope() == trace::SyncScope::kStream) note_stream(e.stream);
      break;
    case EventKind::kEventRecord:
    case EventKind::kEventWait: {
      const std::string& name = names.name(e.name);
      auto it = std::find(plan_.events.begin(), plan_.events.end(), name);
      if (e.kind == EventKind::kEventWait && it == plan_.events.end())
        fail(pos, "wait on event '" + name + "' that was never recorded");
      if (it == plan_.events.end()) it = plan_.events.insert(plan_.events.end(), name);
      s.kind = e.kind == EventKind::kEventRecord ? StepKind::kEventRecord : StepKind::kEventWait;
      s.index = static_cast<std::uint32_t>(it - plan_.events.begin());
      s.stream = e.stream;
      note_stream(e.stream);
      break;
    }
    case EventKind::kPhase:
      s.kind = StepKind::kPhase;
      s.index = static_cast<std::uint32_t>(plan_.phases.size());
      plan_.phases.push_back(names.name(e.name));
      break;
    case EventKind::kCopy:
    case EventKind::kMemset: {
      if (const char* problem = trace::event_problem(e)) fail(pos, problem);
      const bool copy = e.kind == EventKind::kCopy;
      s.kind = copy ? StepKind::kCopy : StepKind::kMemset;
      s.slot = live_slot(e, names, pos);
      check_range(e, s.slot, pos);
      note_processor(e.processor, pos);
      note_stream(e.stream);
      s.op = e.op;
      s.offset = e.offset;
      s.length = e.length;
      s.processor = e.processor;
      s.stream = e.stream;
      const auto host_kind = [&](std::uint32_t slot) {
        const AllocKind k = plan_.allocations[slot].kind;
        return k == AllocKind::kPinned || k == AllocKind::kMapped;
      };
      if (copy && e.copy_kind() == trace::CopyKind::kBetweenAllocations) {
        Event source = e;
        source.name = e.copy_source();
        source.offset = e.copy_source_offset();
        s.count = live_slot(source, names, pos);
        s.stride = source.offset;
        check_range(source, s.count, pos);
        if (host_kind(s.slot) && host_kind(s.count))
          fail(pos, "copy between host allocations '" + plan_.allocations[s.count].name + "' and '" +
                        plan_.allocations[s.slot].name + "' (no GPU takes part)");
      } else if (copy) {
        if (host_kind(s.slot))
          fail(pos, "copy between a host buffer and host allocation '" + plan_.allocations[s.slot].name + "'");
        Bytes& staging = trace::host_is_pinned(e.copy_kind()) ? plan_.pinned_staging_bytes : plan_.pageable_staging_bytes;
        staging = std::max(staging, e.length);
      }
      break;
    }
    case EventKind::kPeerEnable:
      if (const char* problem = trace::event_problem(e)) fail(pos, problem);
      note_processor(e.processor, pos);
      note_processor(e.peer_gpu(), pos);
      s.kind = StepKind::kPeerEnable;
      s.processor = e.processor;
      s.count = static_cast<std::uint32_t>(e.peer_gpu().gpu_index());
      break;
    default:
      fail(pos, "unknown event kind " + std::to_string(static_cast<int>(e.kind)));
  }
  plan_.steps.push_back(s);
}

Plan PlanBuilder::finish() {
  if (in_kernel_) fail(kernel_position_, "kernel '" + plan_.kernels.back().name + "' has no 'end'");
  if (plan_.gpus_used == 0) plan_.gpus_used = 1;
  return std::move(plan_);
}

Plan build_plan(trace::TraceReader& reader, const PlanLimits& limits) {
  PlanBuilder builder(reader.source(), limits);
  std::array<Event, 4096> batch;
  for (;;) {
    const std::size_t n = reader.read(batch);
    if (n == 0) break;
    for (std::size_t i = 0; i < n; ++i) builder.add(batch[i], reader.names(), reader.position(i));
  }
  return builder.finish();
}

int kernel_streams_on_gpu(const Plan& plan, int gpu) {
  std::vector<std::uint32_t> streams;
  for (const PlanKernel& k : plan.kernels)
    if (k.gpu == gpu && std::find(streams.begin(), streams.end(), k.stream) == streams.end()) streams.push_back(k.stream);
  return static_cast<int>(streams.size());
}

}  // namespace umsim::hip
