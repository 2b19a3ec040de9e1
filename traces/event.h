// The trace event model shared by the text and binary encodings, the simulator,
// the HIP backend, the generators and the importers.
//
// An Event is a fixed-size POD record. Addresses are byte offsets into named
// allocations, so a trace replays anywhere. Names (allocations, kernels, events,
// phases) are interned by the reader into a NameTable and referenced by id.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace umsim::trace {

using Bytes = std::uint64_t;
using Nanos = std::uint64_t;
using NameId = std::uint32_t;
using StreamId = std::uint32_t;

inline constexpr Bytes kPageSize = 4096;

enum class EventKind : std::uint8_t {
  kAlloc,        // name, op=AllocKind, length=size, processor=placement (or none)
  kFree,         // name
  kKernelBegin,  // name, processor=gpu, stream, duration=compute time
  kKernelEnd,    // closes the open kernel
  kGpuAccess,    // inside a kernel: name=allocation, op=AccessType, offset/length/stride/count
  kCpuAccess,    // outside kernels: name=allocation, op=AccessType, offset/length/stride/count
  kPrefetch,     // name=allocation, offset/length, processor=destination, stream
  kAdvise,       // name=allocation, op=Advice, offset/length, processor=target (where the advice takes one)
  kSync,         // op=SyncScope; processor=gpu for kGpu, stream for kStream
  kEventRecord,  // name=event, stream
  kEventWait,    // name=event, stream (the stream waits until the event's recorded work is done)
  kPhase,        // name=phase; results are aggregated per phase until the next marker
  // Format version 2:
  kCopy,        // explicit copy (hipMemcpy / hipMemcpyAsync): name/offset = the allocation side (the
                // destination, or the source of a copy to a host buffer), length, op = CopyKind | kAsyncBit,
                // processor = the GPU that runs it, stream; between allocations also copy_source() (a name
                // id, in `count`) and copy_source_offset() (in `stride`)
  kMemset,      // hipMemset[Async]: name, offset, length, op = kAsyncBit or 0, processor = GPU, stream
  kPeerEnable,  // hipDeviceEnablePeerAccess both ways: processor = one GPU, peer_gpu() (in `count`) the other
};
inline constexpr int kEventKindCount = 15;
// Kinds 0 .. kVersion1EventKinds - 1 are those of format version 1.
inline constexpr int kVersion1EventKinds = 12;

// kReadModifyWrite (version 2): a load and a dependent store of the same address.
enum class AccessType : std::uint8_t { kRead, kWrite, kAtomic, kReadModifyWrite };

// The two sides of a copy: a host buffer (not an allocation of the trace, pinned
// hipHostMalloc or pageable malloc memory) and an allocation, or two allocations.
enum class CopyKind : std::uint8_t {
  kFromPinnedHost,    // host buffer -> allocation
  kFromPageableHost,
  kToPinnedHost,      // allocation -> host buffer
  kToPageableHost,
  kBetweenAllocations,  // source allocation -> destination allocation
};
// Set in the op of a copy or memset issued asynchronously on its stream.
inline constexpr std::uint8_t kAsyncBit = 8;
inline constexpr std::uint8_t kCopyKindMask = 7;
// kSystem: memory from the system allocator (malloc / new / mmap), which a GPU
// reaches only through HMM / XNACK page faults (or not at all with XNACK off).
enum class AllocKind : std::uint8_t { kManaged, kDevice, kPinned, kMapped, kSystem };
inline constexpr AllocKind kLastAllocKind = AllocKind::kSystem;
enum class Advice : std::uint8_t {
  kSetReadMostly,
  kUnsetReadMostly,
  kSetPreferredLocation,
  kUnsetPreferredLocation,
  kSetAccessedBy,
  kUnsetAccessedBy,
};
enum class SyncScope : std::uint8_t { kAll, kGpu, kStream };

// A processor: the CPU or one GPU. Encoded as 0 = CPU, 1 + g = GPU g, -1 = none.
struct Processor {
  std::int16_t code = -1;

  static constexpr Processor none() { return Processor{-1}; }
  static constexpr Processor cpu() { return Processor{0}; }
  static constexpr Processor gpu(int index) { return Processor{static_cast<std::int16_t>(index + 1)}; }
  constexpr bool is_none() const { return code < 0; }
  constexpr bool is_cpu() const { return code == 0; }
  constexpr bool is_gpu() const { return code > 0; }
  constexpr int gpu_index() const { return code - 1; }
  friend constexpr bool operator==(Processor, Processor) = default;
};

// "cpu", "gpu0", "gpu1", ... or "none".
std::string to_string(Processor p);

struct Event {
  EventKind kind = EventKind::kPhase;
  std::uint8_t op = 0;  // AccessType, AllocKind, Advice or SyncScope, by kind
  Processor processor;
  NameId name = 0;
  StreamId stream = 0;
  std::uint32_t count = 1;  // accesses: passes over the range (>= 1)
  Bytes offset = 0;         // accesses, prefetch, advise: byte offset into the allocation
  Bytes length = 0;         // bytes covered (allocation size for kAlloc)
  Bytes stride = 0;         // accesses: distance between touched addresses; 0 = contiguous
  Nanos duration = 0;       // kKernelBegin: compute time

  AccessType access() const { return static_cast<AccessType>(op); }
  AllocKind alloc_kind() const { return static_cast<AllocKind>(op); }
  Advice advice() const { return static_cast<Advice>(op); }
  SyncScope sync_scope() const { return static_cast<SyncScope>(op); }
  CopyKind copy_kind() const { return static_cast<CopyKind>(op & kCopyKindMask); }
  bool is_async() const { return (op & kAsyncBit) != 0; }
  NameId copy_source() const { return count; }            // kCopy between allocations
  Bytes copy_source_offset() const { return stride; }     // kCopy between allocations
  Processor peer_gpu() const { return Processor::gpu(static_cast<int>(count)); }  // kPeerEnable
  friend bool operator==(const Event&, const Event&) = default;
};

// Pages an access event touches per pass, in ascending order, calling
// fn(page_index_within_allocation). With stride 0 (or stride <= page size)
// every page overlapping [offset, offset+length) is touched once per pass;
// with a larger stride only the pages holding offset + k*stride.
template <typename Fn>
inline void for_each_page_once(const Event& e, Fn&& fn) {
  if (e.length == 0) return;
  const Bytes end = e.offset + e.length;
  if (e.stride <= kPageSize) {
    for (Bytes p = e.offset / kPageSize, last = (end - 1) / kPageSize; p <= last; ++p) fn(p);
  } else {
    for (Bytes a = e.offset; a < end; a += e.stride) fn(a / kPageSize);
  }
}

// Number of page touches one pass of an access makes.
std::uint64_t pages_per_pass(const Event& e);

const char* to_string(EventKind k);
const char* to_string(AccessType a);
const char* to_string(AllocKind k);
// The inverse of to_string(AllocKind): "managed", "device", "pinned", "mapped".
std::optional<AllocKind> parse_alloc_kind(std::string_view name);
const char* to_string(Advice a);
const char* to_string(SyncScope s);
const char* to_string(CopyKind k);

// Whether a copy's host buffer is pinned (false: pageable); only for host-side copy kinds.
inline bool host_is_pinned(CopyKind k) { return k == CopyKind::kFromPinnedHost || k == CopyKind::kToPinnedHost; }
inline bool copies_from_host(CopyKind k) { return k == CopyKind::kFromPinnedHost || k == CopyKind::kFromPageableHost; }
inline bool copies_to_host(CopyKind k) { return k == CopyKind::kToPinnedHost || k == CopyKind::kToPageableHost; }

// The lowest trace format version that can express the event (1 or 2).
inline int required_version(const Event& e) {
  if (static_cast<int>(e.kind) >= kVersion1EventKinds) return 2;
  if ((e.kind == EventKind::kGpuAccess || e.kind == EventKind::kCpuAccess) &&
      e.op == static_cast<std::uint8_t>(AccessType::kReadModifyWrite))
    return 2;
  return 1;
}
inline constexpr int kLatestVersion = 2;

}  // namespace umsim::trace
