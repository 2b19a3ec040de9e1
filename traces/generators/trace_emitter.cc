#include "traces/generators/trace_emitter.h"

#include <stdexcept>
#include <string>

#include "traces/event_factory.h"

namespace umsim::gen {

using trace::Event;
using trace::EventKind;

namespace {
[[noreturn]] void bug(const std::string& what) { throw std::logic_error("trace emitter: " + what); }
}  // namespace

void TraceEmitter::emit(const Event& e, std::string_view name, std::string_view source_name) {
  out_.write(e, name, source_name);
  ++events_;
}

void TraceEmitter::phase(std::string_view name) {
  if (in_kernel_) bug("phase marker inside a kernel");
  emit(trace::events::of_kind(EventKind::kPhase), name);
}

void TraceEmitter::alloc(std::string_view name, Bytes size, AllocKind kind, Processor placement) {
  if (in_kernel_) bug("alloc inside a kernel");
  if (size == 0) bug("empty allocation '" + std::string(name) + "'");
  if (!live_.emplace(std::string(name), size).second) bug("allocation '" + std::string(name) + "' made twice");
  emit(trace::events::alloc(size, kind, placement), name);
}

void TraceEmitter::free(std::string_view name) {
  if (in_kernel_) bug("free inside a kernel");
  auto it = live_.find(name);
  if (it == live_.end()) bug("free of unknown allocation '" + std::string(name) + "'");
  live_.erase(it);
  emit(trace::events::of_kind(EventKind::kFree), name);
}

Bytes TraceEmitter::size_of(std::string_view name) const {
  auto it = live_.find(name);
  if (it == live_.end()) bug("unknown allocation '" + std::string(name) + "'");
  return it->second;
}

void TraceEmitter::check_range(std::string_view alloc, Bytes offset, Bytes length, const char* what) const {
  const Bytes size = size_of(alloc);
  if (length == 0 || offset >= size || length > size - offset)
    bug(std::string(what) + " [" + std::to_string(offset) + ", +" + std::to_string(length) + ") outside '" +
        std::string(alloc) + "' of " + std::to_string(size) + " bytes");
}

void TraceEmitter::kernel_begin(std::string_view name, int gpu, StreamId stream, Nanos compute) {
  if (in_kernel_) bug("nested kernel '" + std::string(name) + "'");
  in_kernel_ = true;
  emit(trace::events::kernel_begin(gpu, stream, compute), name);
}

void TraceEmitter::kernel_end() {
  if (!in_kernel_) bug("kernel end without a kernel");
  in_kernel_ = false;
  emit(trace::events::of_kind(EventKind::kKernelEnd), {});
}

void TraceEmitter::access(std::string_view alloc, AccessType type, Bytes offset, Bytes length, Bytes stride,
                          std::uint32_t count) {
  check_range(alloc, offset, length, "access");
  if (count == 0) bug("access with count 0");
  const EventKind kind = in_kernel_ ? EventKind::kGpuAccess : EventKind::kCpuAccess;
  emit(trace::events::access(kind, type, offset, length, stride, count), alloc);
}

void TraceEmitter::prefetch(std::string_view alloc, Bytes offset, Bytes length, Processor to, StreamId stream) {
  if (in_kernel_) bug("prefetch inside a kernel");
  check_range(alloc, offset, length, "prefetch");
  emit(trace::events::prefetch(offset, length, to, stream), alloc);
}

void TraceEmitter::advise(std::string_view alloc, Advice advice, Bytes offset, Bytes length, Processor target) {
  if (in_kernel_) bug("advise inside a kernel");
  check_range(alloc, offset, length, "advise");
  emit(trace::events::advise(advice, offset, length, target), alloc);
}

void TraceEmitter::copy_host(trace::CopyKind kind, std::string_view alloc, Bytes offset, Bytes length, int gpu,
                            StreamId stream, bool async) {
  if (in_kernel_) bug("copy inside a kernel");
  if (kind == trace::CopyKind::kBetweenAllocations) bug("copy_host between allocations");
  check_range(alloc, offset, length, "copy");
  emit(trace::events::copy_host(kind, offset, length, gpu, stream, async), alloc);
}

void TraceEmitter::copy(std::string_view destination, Bytes destination_offset, std::string_view source,
                        Bytes source_offset, Bytes length, int gpu, StreamId stream, bool async) {
  if (in_kernel_) bug("copy inside a kernel");
  check_range(destination, destination_offset, length, "copy destination");
  check_range(source, source_offset, length, "copy source");
  // The writer resolves the source by name; the event's source id is not used.
  emit(trace::events::copy_between(destination_offset, 0, source_offset, length, gpu, stream, async), destination,
       source);
}

void TraceEmitter::memset(std::string_view alloc, Bytes offset, Bytes length, int gpu, StreamId stream, bool async) {
  if (in_kernel_) bug("memset inside a kernel");
  check_range(alloc, offset, length, "memset");
  emit(trace::events::memset(offset, length, gpu, stream, async), alloc);
}

void TraceEmitter::peer_enable(int gpu, int peer) {
  if (in_kernel_) bug("peer enable inside a kernel");
  if (gpu == peer) bug("peer enable of a GPU with itself");
  emit(trace::events::peer_enable(gpu, peer), {});
}

void TraceEmitter::sync_all() {
  if (in_kernel_) bug("sync inside a kernel");
  emit(trace::events::sync(trace::SyncScope::kAll), {});
}

void TraceEmitter::sync_gpu(int gpu) {
  if (in_kernel_) bug("sync inside a kernel");
  emit(trace::events::sync(trace::SyncScope::kGpu, Processor::gpu(gpu)), {});
}

void TraceEmitter::sync_stream(StreamId stream) {
  if (in_kernel_) bug("sync inside a kernel");
  emit(trace::events::sync(trace::SyncScope::kStream, Processor::none(), stream), {});
}

void TraceEmitter::event_record(std::string_view event, StreamId stream) {
  if (in_kernel_) bug("event record inside a kernel");
  emit(trace::events::stream_event(EventKind::kEventRecord, stream), event);
}

void TraceEmitter::event_wait(std::string_view event, StreamId stream) {
  if (in_kernel_) bug("event wait inside a kernel");
  emit(trace::events::stream_event(EventKind::kEventWait, stream), event);
}

}  // namespace umsim::gen
