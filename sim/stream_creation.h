// Streams created at their first use, as umsim-hip replayed before session 103.
//
// The HIP backend creates every stream before its timed replay, as a program
// creates its streams up front. Before session 103 it created only gpu0's
// lowest-numbered stream there and each other (GPU, stream) pair at the
// statement that first used it, so that statement's phase holds the stream's
// creation (about 0.2-0.3 ms of host time). Results recorded then are compared
// with a replay that creates its streams the same way (`umsim replay
// --streams-created-at-first-use`, host.stream_create_cost); a replay without
// the option creates none (docs/model.md, "Streams created at first use").
#pragma once

#include <optional>
#include <utility>

#include "traces/event.h"
#include "traces/trace_reader.h"

namespace umsim::sim {

// The (GPU, stream) pair a statement issues on as the backend took it: a
// kernel on its GPU, a prefetch on its destination GPU (gpu0 for one to the
// CPU), a copy or memset on its GPU, an event record or wait on gpu0; nullopt
// for statements that use no stream.
std::optional<std::pair<int, trace::StreamId>> issuing_stream(const trace::Event& e);

// The lowest stream id the trace's stream statements name (those above and
// syncs of one stream), which the backend created before the timing; nullopt
// for a trace without any. Reads the trace to its end.
std::optional<trace::StreamId> lowest_stream(trace::TraceReader& reader);

}  // namespace umsim::sim
