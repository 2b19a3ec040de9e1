#include "traces/event_validation.h"

namespace umsim::trace {

bool takes_processor(const Event& e) {
  switch (e.kind) {
    case EventKind::kAlloc:
    case EventKind::kKernelBegin:
    case EventKind::kPrefetch:
    case EventKind::kCopy:
    case EventKind::kMemset:
    case EventKind::kPeerEnable:
      return true;
    case EventKind::kAdvise:
      return e.advice() == Advice::kSetPreferredLocation || e.advice() == Advice::kSetAccessedBy ||
             e.advice() == Advice::kUnsetAccessedBy;
    case EventKind::kSync:
      return e.sync_scope() == SyncScope::kGpu;
    default:
      return false;
  }
}

const char* event_problem(const Event& e) {
  switch (e.kind) {
    case EventKind::kAlloc:
      if (e.op > static_cast<int>(kLastAllocKind)) return "allocation kind out of range";
      return nullptr;
    case EventKind::kKernelBegin:
      if (!e.processor.is_gpu()) return "a kernel must run on a GPU";
      return nullptr;
    case EventKind::kGpuAccess:
    case EventKind::kCpuAccess:
      if (e.op > static_cast<int>(AccessType::kReadModifyWrite)) return "access type out of range";
      if (e.count == 0) return "access count 0 (at least one pass)";
      return nullptr;
    case EventKind::kPrefetch:
      if (e.processor.is_none()) return "a prefetch needs a destination processor";
      return nullptr;
    case EventKind::kAdvise:
      if (e.op > static_cast<int>(Advice::kUnsetAccessedBy)) return "advice out of range";
      if (takes_processor(e) && e.processor.is_none()) return "this advice needs a processor";
      return nullptr;
    case EventKind::kSync:
      if (e.op > static_cast<int>(SyncScope::kStream)) return "sync scope out of range";
      if (e.sync_scope() == SyncScope::kGpu && !e.processor.is_gpu()) return "sync gpu needs a GPU";
      return nullptr;
    case EventKind::kCopy:
      if ((e.op & kCopyKindMask) > static_cast<int>(CopyKind::kBetweenAllocations) || (e.op & ~(kCopyKindMask | kAsyncBit)))
        return "copy kind out of range";
      if (!e.processor.is_gpu()) return "a copy runs on a GPU";
      return nullptr;
    case EventKind::kMemset:
      if (e.op & ~kAsyncBit) return "memset flags out of range";
      if (!e.processor.is_gpu()) return "a memset runs on a GPU";
      return nullptr;
    case EventKind::kPeerEnable:
      if (!e.processor.is_gpu()) return "peer access joins two GPUs";
      if (e.count > static_cast<std::uint32_t>(INT16_MAX - 1)) return "peer GPU index out of range";
      if (e.processor == e.peer_gpu()) return "peer access joins two different GPUs";
      return nullptr;
    case EventKind::kFree:
    case EventKind::kKernelEnd:
    case EventKind::kEventRecord:
    case EventKind::kEventWait:
    case EventKind::kPhase:
      return nullptr;
  }
  return "event kind out of range";
}

}  // namespace umsim::trace
