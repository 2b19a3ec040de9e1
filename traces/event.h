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
};
inline constexpr int kEventKindCount = 12;

enum class AccessType : std::uint8_t { kRead, kWrite, kAtomic };
enum class AllocKind : std::uint8_t { kManaged, kDevice, kPinned, kMapped };
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

}  // namespace umsim::trace
