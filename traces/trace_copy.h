// Streams a trace from any reader into any writer (`umsim trace convert`,
// traces written from in-memory builders).
#pragma once

#include <cstdint>

#include "traces/trace_reader.h"
#include "traces/trace_writer.h"

namespace umsim::trace {

// Copies every event and comment of `reader` into `writer`, in order; returns
// the number of events. Does not finish the writer.
std::uint64_t copy_trace(TraceReader& reader, TraceWriter& writer);

}  // namespace umsim::trace
