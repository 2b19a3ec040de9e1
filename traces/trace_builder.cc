#include "traces/trace_builder.h"

#include <stdexcept>

#include "traces/event_factory.h"

namespace umsim::trace {

TraceBuilder& TraceBuilder::raw(Event e, std::string_view name) {
  if (!name.empty()) e.name = trace_.names.intern(name);
  trace_.events.push_back(e);
  return *this;
}

TraceBuilder& TraceBuilder::alloc(std::string_view name, Bytes size, AllocKind kind, Processor placement) {
  sizes_.emplace_back(std::string(name), size);
  return raw(events::alloc(size, kind, placement), name);
}

TraceBuilder& TraceBuilder::free(std::string_view name) { return raw(events::of_kind(EventKind::kFree), name); }

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
  Event e = events::access(kind, type, offset, resolve_length(name, offset, length), stride, count);
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
  raw(events::kernel_begin(gpu, stream, compute_ns), name);
  in_kernel_ = true;
  return *this;
}

TraceBuilder& TraceBuilder::end() {
  if (!in_kernel_) throw std::logic_error("TraceBuilder: end() without an open kernel");
  in_kernel_ = false;
  return raw(events::of_kind(EventKind::kKernelEnd));
}

TraceBuilder& TraceBuilder::prefetch(std::string_view name, Processor destination, StreamId stream, Bytes offset,
                                     Bytes length) {
  return raw(events::prefetch(offset, resolve_length(name, offset, length), destination, stream), name);
}

TraceBuilder& TraceBuilder::advise(std::string_view name, Advice advice, Processor target, Bytes offset,
                                   Bytes length) {
  return raw(events::advise(advice, offset, resolve_length(name, offset, length), target), name);
}

TraceBuilder& TraceBuilder::sync() { return raw(events::sync(SyncScope::kAll)); }
TraceBuilder& TraceBuilder::sync_gpu(int gpu) { return raw(events::sync(SyncScope::kGpu, Processor::gpu(gpu))); }
TraceBuilder& TraceBuilder::sync_stream(StreamId stream) {
  return raw(events::sync(SyncScope::kStream, Processor::none(), stream));
}

TraceBuilder& TraceBuilder::record(std::string_view event, StreamId stream) {
  return raw(events::stream_event(EventKind::kEventRecord, stream), event);
}
TraceBuilder& TraceBuilder::wait(std::string_view event, StreamId stream) {
  return raw(events::stream_event(EventKind::kEventWait, stream), event);
}

TraceBuilder& TraceBuilder::phase(std::string_view name) { return raw(events::of_kind(EventKind::kPhase), name); }

BuiltTrace TraceBuilder::build() const {
  if (in_kernel_) throw std::logic_error("TraceBuilder: build() with a kernel still open");
  return trace_;
}

}  // namespace umsim::trace
