// The Event of each trace statement, its fields set as traces/FORMAT.md defines
// them; the name is interned by whoever emits the event. Shared by the
// in-memory TraceBuilder and the generators' streaming TraceEmitter, which
// differ only in their checks and where the events go.
#pragma once

#include "traces/event.h"

namespace umsim::trace::events {

inline Event alloc(Bytes size, AllocKind kind, Processor placement) {
  Event e;
  e.kind = EventKind::kAlloc;
  e.op = static_cast<std::uint8_t>(kind);
  e.length = size;
  e.processor = placement;
  return e;
}

inline Event of_kind(EventKind kind) {  // free, phase, kernel end: nothing but the kind
  Event e;
  e.kind = kind;
  return e;
}

inline Event kernel_begin(int gpu, StreamId stream, Nanos compute) {
  Event e;
  e.kind = EventKind::kKernelBegin;
  e.processor = Processor::gpu(gpu);
  e.stream = stream;
  e.duration = compute;
  return e;
}

// kind: kGpuAccess (inside a kernel) or kCpuAccess.
inline Event access(EventKind kind, AccessType type, Bytes offset, Bytes length, Bytes stride, std::uint32_t count) {
  Event e;
  e.kind = kind;
  e.op = static_cast<std::uint8_t>(type);
  e.offset = offset;
  e.length = length;
  e.stride = stride;
  e.count = count;
  return e;
}

inline Event prefetch(Bytes offset, Bytes length, Processor destination, StreamId stream) {
  Event e;
  e.kind = EventKind::kPrefetch;
  e.offset = offset;
  e.length = length;
  e.processor = destination;
  e.stream = stream;
  return e;
}

inline Event advise(Advice advice, Bytes offset, Bytes length, Processor target) {
  Event e;
  e.kind = EventKind::kAdvise;
  e.op = static_cast<std::uint8_t>(advice);
  e.offset = offset;
  e.length = length;
  e.processor = target;
  return e;
}

// scope kGpu takes the GPU in `processor`, kStream the stream.
inline Event sync(SyncScope scope, Processor processor = Processor::none(), StreamId stream = 0) {
  Event e;
  e.kind = EventKind::kSync;
  e.op = static_cast<std::uint8_t>(scope);
  e.processor = processor;
  e.stream = stream;
  return e;
}

// kEventRecord or kEventWait of a named event on a stream.
inline Event stream_event(EventKind kind, StreamId stream) {
  Event e;
  e.kind = kind;
  e.stream = stream;
  return e;
}

// A copy between a host buffer and an allocation (kind one of the host kinds),
// run by `gpu` on `stream`; the allocation side's name is interned by the caller.
inline Event copy_host(CopyKind kind, Bytes offset, Bytes length, int gpu, StreamId stream, bool async) {
  Event e;
  e.kind = EventKind::kCopy;
  e.op = static_cast<std::uint8_t>(static_cast<std::uint8_t>(kind) | (async ? kAsyncBit : 0));
  e.offset = offset;
  e.length = length;
  e.processor = Processor::gpu(gpu);
  e.stream = stream;
  return e;
}

// A copy from allocation `source` (a name id) at `source_offset` to the event's
// allocation (interned by the caller) at `offset`.
inline Event copy_between(Bytes offset, NameId source, Bytes source_offset, Bytes length, int gpu, StreamId stream,
                          bool async) {
  Event e = copy_host(CopyKind::kBetweenAllocations, offset, length, gpu, stream, async);
  e.count = source;
  e.stride = source_offset;
  return e;
}

inline Event memset(Bytes offset, Bytes length, int gpu, StreamId stream, bool async) {
  Event e;
  e.kind = EventKind::kMemset;
  e.op = async ? kAsyncBit : 0;
  e.offset = offset;
  e.length = length;
  e.processor = Processor::gpu(gpu);
  e.stream = stream;
  return e;
}

inline Event peer_enable(int gpu, int peer) {
  Event e;
  e.kind = EventKind::kPeerEnable;
  e.processor = Processor::gpu(gpu);
  e.count = static_cast<std::uint32_t>(peer);
  return e;
}

}  // namespace umsim::trace::events
