// A TraceReader over events held in memory (tests, benchmarks, the demo):
// replays without files or decoding. Cheap to re-open: readers share the
// immutable trace, so an engine pre-pass (FutureOracle) can read it again.
#pragma once

#include <memory>
#include <string>

#include "traces/trace_builder.h"
#include "traces/trace_reader.h"

namespace umsim::trace {

class MemoryTraceReader : public TraceReader {
 public:
  explicit MemoryTraceReader(std::shared_ptr<const BuiltTrace> trace, std::string source = "<memory>");
  explicit MemoryTraceReader(BuiltTrace trace);

  std::size_t read(std::span<Event> out) override;
  std::span<const Event> read_view(std::span<Event> scratch) override;
  const NameTable& names() const override { return trace_->names; }
  std::string position(std::size_t index_in_last_batch) const override;
  const std::string& source() const override { return source_; }
  // The lowest format version that expresses every event (known from the
  // builder; for a hand-made BuiltTrace found on the first call).
  int version() const override;

  // Events delivered so far and in all (progress display).
  std::size_t consumed() const { return next_; }
  std::size_t size() const { return trace_->events.size(); }

 private:
  std::shared_ptr<const BuiltTrace> trace_;
  std::string source_;
  mutable int version_ = 0;  // 0: not yet found
  std::size_t next_ = 0;
  std::size_t last_batch_start_ = 0;
};

}  // namespace umsim::trace
