#include "traces/event.h"

namespace umsim::trace {

std::string to_string(Processor p) {
  if (p.is_none()) return "none";
  if (p.is_cpu()) return "cpu";
  return "gpu" + std::to_string(p.gpu_index());
}

std::uint64_t pages_per_pass(const Event& e) {
  if (e.length == 0) return 0;
  const Bytes end = e.offset + e.length;
  if (e.stride <= kPageSize) return (end - 1) / kPageSize - e.offset / kPageSize + 1;
  // One touch per stride step: ceil(length / stride) addresses, each on its own page
  // because stride > page size.
  return (e.length + e.stride - 1) / e.stride;
}

const char* to_string(EventKind k) {
  switch (k) {
    case EventKind::kAlloc: return "alloc";
    case EventKind::kFree: return "free";
    case EventKind::kKernelBegin: return "kernel";
    case EventKind::kKernelEnd: return "end";
    case EventKind::kGpuAccess: return "gpu_access";
    case EventKind::kCpuAccess: return "cpu_access";
    case EventKind::kPrefetch: return "prefetch";
    case EventKind::kAdvise: return "advise";
    case EventKind::kSync: return "sync";
    case EventKind::kEventRecord: return "record";
    case EventKind::kEventWait: return "wait";
    case EventKind::kPhase: return "phase";
    case EventKind::kCopy: return "copy";
    case EventKind::kMemset: return "memset";
    case EventKind::kPeerEnable: return "peer";
  }
  return "unknown";
}

const char* to_string(AccessType a) {
  switch (a) {
    case AccessType::kRead: return "r";
    case AccessType::kWrite: return "w";
    case AccessType::kAtomic: return "a";
    case AccessType::kReadModifyWrite: return "rmw";
  }
  return "unknown";
}

const char* to_string(AllocKind k) {
  switch (k) {
    case AllocKind::kManaged: return "managed";
    case AllocKind::kDevice: return "device";
    case AllocKind::kPinned: return "pinned";
    case AllocKind::kMapped: return "mapped";
    case AllocKind::kSystem: return "system";
  }
  return "unknown";
}

std::optional<AllocKind> parse_alloc_kind(std::string_view name) {
  for (AllocKind k : {AllocKind::kManaged, AllocKind::kDevice, AllocKind::kPinned, AllocKind::kMapped, AllocKind::kSystem})
    if (name == to_string(k)) return k;
  return std::nullopt;
}

const char* to_string(Advice a) {
  switch (a) {
    case Advice::kSetReadMostly: return "readmostly";
    case Advice::kUnsetReadMostly: return "unset_readmostly";
    case Advice::kSetPreferredLocation: return "preferred";
    case Advice::kUnsetPreferredLocation: return "unset_preferred";
    case Advice::kSetAccessedBy: return "accessed_by";
    case Advice::kUnsetAccessedBy: return "unset_accessed_by";
  }
  return "unknown";
}

const char* to_string(SyncScope s) {
  switch (s) {
    case SyncScope::kAll: return "all";
    case SyncScope::kGpu: return "gpu";
    case SyncScope::kStream: return "stream";
  }
  return "unknown";
}

const char* to_string(CopyKind k) {
  switch (k) {
    case CopyKind::kFromPinnedHost: return "from_pinned_host";
    case CopyKind::kFromPageableHost: return "from_pageable_host";
    case CopyKind::kToPinnedHost: return "to_pinned_host";
    case CopyKind::kToPageableHost: return "to_pageable_host";
    case CopyKind::kBetweenAllocations: return "between_allocations";
  }
  return "unknown";
}

}  // namespace umsim::trace
