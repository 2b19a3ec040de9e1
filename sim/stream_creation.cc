#include "sim/stream_creation.h"

#include <algorithm>
#include <array>

#include "sim/engine.h"

namespace umsim::sim {

using trace::Event;
using trace::EventKind;

std::optional<std::pair<int, trace::StreamId>> issuing_stream(const Event& e) {
  switch (e.kind) {
    case EventKind::kKernelBegin:
    case EventKind::kPrefetch:
    case EventKind::kCopy:
    case EventKind::kMemset: return std::pair{e.processor.is_gpu() ? e.processor.gpu_index() : 0, e.stream};
    case EventKind::kEventRecord:
    case EventKind::kEventWait: return std::pair{0, e.stream};
    default: return std::nullopt;
  }
}

std::optional<trace::StreamId> lowest_stream(trace::TraceReader& reader) {
  std::optional<trace::StreamId> lowest;
  std::array<Event, 4096> batch;
  for (std::span<const Event> events; !(events = reader.read_view(batch)).empty();) {
    for (const Event& e : events) {
      const bool names_stream =
          issuing_stream(e) || (e.kind == EventKind::kSync && e.sync_scope() == trace::SyncScope::kStream);
      if (names_stream && (!lowest || e.stream < *lowest)) lowest = e.stream;
    }
  }
  return lowest;
}

// The backend's stream() made the pair on the host thread, right before the
// call that needed it: the statement is issued that much later.
void Engine::create_stream_at_first_use(const Event& e) {
  const auto used = issuing_stream(e);
  if (!used || *used == std::pair{0, *options_.streams_created_at_first_use}) return;
  if (std::find(created_streams_.begin(), created_streams_.end(), *used) != created_streams_.end()) return;
  created_streams_.push_back(*used);
  host_now_ += profile_.stream_create_ns;
}

}  // namespace umsim::sim
