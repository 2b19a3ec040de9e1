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

}  // namespace umsim::trace::events
