#include "traces/trace_builder.h"

#include <stdexcept>

namespace umsim::trace {

TraceBuilder& TraceBuilder::raw(Event e, std::string_view name) {
  if (!name.empty()) e.name = trace_.names.intern(name);
  trace_.events.push_back(e);
  return *this;
}

TraceBuilder& TraceBuilder::alloc(std::string_view name, Bytes size, AllocKind kind, Processor placement) {
  Event e;
  e.kind = EventKind::kAlloc;
  e.op = static_cast<std::uint8_t>(kind);
  e.length = size;
  e.processor = placement;
  sizes_.emplace_back(std::string(name), size);
  return raw(e, name);
}

TraceBuilder& TraceBuilder::free(std::string_view name) {
  Event e;
  e.kind = EventKind::kFree;
  return raw(e, name);
}

Bytes TraceBuilder::size_of(std::string_view name) const {
  for (auto it = sizes_.rbegin(); it != sizes_.rend(); ++it)
    if (it->first == name) return it->second;
  throw std::logic_error("TraceBuilder: unknown allocation '" + std::string(name) + "'");
}

Bytes TraceBuilder::resolve_length(std::string_view name, Bytes offset, Bytes length) const {
  if (length != kWhole) return length;
  const Bytes size = size_of(name);
  if (offset > size) throw std::logic_error("TraceBuilder: offset beyond allocation '" + std::string(name) + "'");
  return size - offset;
}

TraceBuilder& TraceBuilder::access(EventKind kind, AccessType type, std::string_view name, Bytes offset,
                                   Bytes length, Bytes stride, std::uint32_t count) {
  if ((kind == EventKind::kGpuAccess) != in_kernel_)
    throw std::logic_error(kind == EventKind::kGpuAccess ? "TraceBuilder: GPU access outside a kernel"
                                                         : "TraceBuilder: CPU access inside a kernel");
  Event e;
  e.kind = kind;
  e.op = static_cast<std::uint8_t>(type);
  e.offset = offset;
  e.length = resolve_length(name, offset, length);
  e.stride = stride;
  e.count = count;
  if (kind == EventKind::kCpuAccess) e.processor = Processor::cpu();
  return raw(e, name);
}

TraceBuilder& TraceBuilder::cpu_read(std::string_view n, Bytes o, Bytes l, Bytes s, std::uint32_t c) {
  return access(EventKind::kCpuAccess, AccessType::kRead, n, o, l, s, c);
}
TraceBuilder& TraceBuilder::cpu_write(std::string_view n, Bytes o, Bytes l, Bytes s, std::uint32_t c) {
  return access(EventKind::kCpuAccess, AccessType::kWrite, n, o, l, s, c);
}
TraceBuilder& TraceBuilder::read(std::string_view n, Bytes o, Bytes l, Bytes s, std::uint32_t c) {
  return access(EventKind::kGpuAccess, AccessType::kRead, n, o, l, s, c);
}
TraceBuilder& TraceBuilder::write(std::string_view n, Bytes o, Bytes l, Bytes s, std::uint32_t c) {
  return access(EventKind::kGpuAccess, AccessType::kWrite, n, o, l, s, c);
}
TraceBuilder& TraceBuilder::atomic(std::string_view n, Bytes o, Bytes l, Bytes s, std::uint32_t c) {
  return access(EventKind::kGpuAccess, AccessType::kAtomic, n, o, l, s, c);
}

TraceBuilder& TraceBuilder::page_reads(std::string_view name, std::uint64_t first_page, std::uint64_t pages) {
  for (std::uint64_t p = 0; p < pages; ++p) read(name, (first_page + p) * kPageSize, kPageSize);
  return *this;
}

TraceBuilder& TraceBuilder::kernel(std::string_view name, int gpu, Nanos compute_ns, StreamId stream) {
  if (in_kernel_) throw std::logic_error("TraceBuilder: kernel opened inside a kernel");
  Event e;
  e.kind = EventKind::kKernelBegin;
  e.processor = Processor::gpu(gpu);
  e.stream = stream;
  e.duration = compute_ns;
  raw(e, name);
  in_kernel_ = true;
  return *this;
}

TraceBuilder& TraceBuilder::end() {
  if (!in_kernel_) throw std::logic_error("TraceBuilder: end() without an open kernel");
  in_kernel_ = false;
  Event e;
  e.kind = EventKind::kKernelEnd;
  return raw(e);
}

TraceBuilder& TraceBuilder::prefetch(std::string_view name, Processor destination, StreamId stream, Bytes offset,
                                     Bytes length) {
  Event e;
  e.kind = EventKind::kPrefetch;
  e.processor = destination;
  e.stream = stream;
  e.offset = offset;
  e.length = resolve_length(name, offset, length);
  return raw(e, name);
}

TraceBuilder& TraceBuilder::advise(std::string_view name, Advice advice, Processor target, Bytes offset,
                                   Bytes length) {
  Event e;
  e.kind = EventKind::kAdvise;
  e.op = static_cast<std::uint8_t>(advice);
  e.processor = target;
  e.offset = offset;
  e.length = resolve_length(name, offset, length);
  return raw(e, name);
}

TraceBuilder& TraceBuilder::sync() {
  Event e;
  e.kind = EventKind::kSync;
  e.op = static_cast<std::uint8_t>(SyncScope::kAll);
  return raw(e);
}

TraceBuilder& TraceBuilder::sync_gpu(int gpu) {
  Event e;
  e.kind = EventKind::kSync;
  e.op = static_cast<std::uint8_t>(SyncScope::kGpu);
  e.processor = Processor::gpu(gpu);
  return raw(e);
}

TraceBuilder& TraceBuilder::sync_stream(StreamId stream) {
  Event e;
  e.kind = EventKind::kSync;
  e.op = static_cast<std::uint8_t>(SyncScope::kStream);
  e.stream = stream;
  return raw(e);
}

TraceBuilder& TraceBuilder::record(std::string_view event, StreamId stream) {
  Event e;
  e.kind = EventKind::kEventRecord;
  e.stream = stream;
  return raw(e, event);
}

TraceBuilder& TraceBuilder::wait(std::string_view event, StreamId stream) {
  Event e;
  e.kind = EventKind::kEventWait;
  e.stream = stream;
  return raw(e, event);
}

TraceBuilder& TraceBuilder::phase(std::string_view name) {
  Event e;
  e.kind = EventKind::kPhase;
  return raw(e, name);
}

BuiltTrace TraceBuilder::build() const {
  if (in_kernel_) throw std::logic_error("TraceBuilder: build() with a kernel still open");
  return trace_;
}

}  // namespace umsim::trace
