#include "traces/trace_builder.h"

#include <algorithm>
#include <stdexcept>

#include "traces/event_factory.h"

namespace umsim::trace {

TraceBuilder& TraceBuilder::raw(Event e, std::string_view name) {
  if (!name.empty()) e.name = trace_.names.intern(name);
  trace_.version = std::max({trace_.version, 1, required_version(e)});
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

TraceBuilder& TraceBuilder::read_modify_write(std::string_view n, Bytes o, Bytes l, Bytes s, std::uint32_t c) {
  return access(EventKind::kGpuAccess, AccessType::kReadModifyWrite, n, o, l, s, c);
}
TraceBuilder& TraceBuilder::cpu_read_modify_write(std::string_view n, Bytes o, Bytes l, Bytes s, std::uint32_t c) {
  return access(EventKind::kCpuAccess, AccessType::kReadModifyWrite, n, o, l, s, c);
}

TraceBuilder& TraceBuilder::copy_host(CopyKind kind, std::string_view name, Bytes offset, Bytes length, Issue issue) {
  if (kind == CopyKind::kBetweenAllocations) throw std::logic_error("TraceBuilder: copy_host between allocations");
  if (in_kernel_) throw std::logic_error("TraceBuilder: copy inside a kernel");
  return raw(events::copy_host(kind, offset, resolve_length(name, offset, length), issue.gpu, issue.stream, issue.async),
             name);
}

TraceBuilder& TraceBuilder::copy(std::string_view destination, Bytes destination_offset, std::string_view source,
                                 Bytes source_offset, Bytes length, Issue issue) {
  if (in_kernel_) throw std::logic_error("TraceBuilder: copy inside a kernel");
  size_of(source);
  const NameId source_id = trace_.names.intern(source);
  return raw(events::copy_between(destination_offset, source_id, source_offset,
                                  resolve_length(destination, destination_offset, length), issue.gpu, issue.stream,
                                  issue.async),
             destination);
}

TraceBuilder& TraceBuilder::memset(std::string_view name, Bytes offset, Bytes length, Issue issue) {
  if (in_kernel_) throw std::logic_error("TraceBuilder: memset inside a kernel");
  return raw(events::memset(offset, resolve_length(name, offset, length), issue.gpu, issue.stream, issue.async), name);
}

TraceBuilder& TraceBuilder::peer_enable(int gpu, int peer) {
  if (in_kernel_) throw std::logic_error("TraceBuilder: peer_enable inside a kernel");
  return raw(events::peer_enable(gpu, peer));
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
