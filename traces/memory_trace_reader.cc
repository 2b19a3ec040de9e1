#include "traces/memory_trace_reader.h"

#include <algorithm>

namespace umsim::trace {

MemoryTraceReader::MemoryTraceReader(std::shared_ptr<const BuiltTrace> trace, std::string source)
    : trace_(std::move(trace)), source_(std::move(source)) {}

int MemoryTraceReader::version() const {
  if (version_ == 0 && trace_->version > 0) version_ = trace_->version;
  if (version_ == 0) {
    version_ = 1;
    for (const Event& e : trace_->events) version_ = std::max(version_, required_version(e));
  }
  return version_;
}

MemoryTraceReader::MemoryTraceReader(BuiltTrace trace)
    : MemoryTraceReader(std::make_shared<const BuiltTrace>(std::move(trace))) {}

std::size_t MemoryTraceReader::read(std::span<Event> out) {
  const std::size_t n = std::min(out.size(), trace_->events.size() - next_);
  std::copy_n(trace_->events.begin() + static_cast<std::ptrdiff_t>(next_), n, out.begin());
  last_batch_start_ = next_;
  next_ += n;
  return n;
}

std::span<const Event> MemoryTraceReader::read_view(std::span<Event> scratch) {
  const std::size_t n = std::min(scratch.size(), trace_->events.size() - next_);
  last_batch_start_ = next_;
  next_ += n;
  return std::span<const Event>(trace_->events).subspan(last_batch_start_, n);
}

std::string MemoryTraceReader::position(std::size_t index_in_last_batch) const {
  return source_ + ":event " + std::to_string(last_batch_start_ + index_in_last_batch + 1);
}

}  // namespace umsim::trace
