// Trace writer interface: the text and binary encodings implement it, and the
// generators, importers and `umsim trace convert` write through it.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "traces/event.h"

namespace umsim::trace {

class TraceWriter {
 public:
  virtual ~TraceWriter() = default;
  // Writes one event; `name` is the event's name (ignored by kinds without one),
  // `source_name` the source allocation of a copy between allocations.
  // Throws TraceError for an event the writer's format version cannot express.
  virtual void write(const Event& e, std::string_view name, std::string_view source_name = {}) = 0;
  // A free-text comment (text: '# ...' line; binary: kept as a comment record).
  virtual void comment(std::string_view text) = 0;
  // Flushes and closes; throws on I/O errors. Called by the destructor if omitted.
  virtual void finish() = 0;
};

enum class Encoding { kText, kBinary };

// Opens `path` for writing a trace of format `version` (1 or 2; see FORMAT.md).
// Throws TraceError on I/O failure.
std::unique_ptr<TraceWriter> create_trace_writer(const std::string& path, Encoding encoding, int version = 1);

// Same, appending the encoded trace to *out (tests, fuzzing); *out must outlive the writer.
std::unique_ptr<TraceWriter> create_trace_writer_to_string(std::string* out, Encoding encoding, int version = 1);

// The name a writer needs beside the event's own: a copy's source allocation.
inline bool has_source_name(const Event& e) {
  return e.kind == EventKind::kCopy && e.copy_kind() == CopyKind::kBetweenAllocations;
}
// Whether the event's `name` field names something (kernel ends, syncs and peer statements do not).
inline bool has_name(const Event& e) {
  return e.kind != EventKind::kKernelEnd && e.kind != EventKind::kSync && e.kind != EventKind::kPeerEnable;
}
// "cannot write EVENT in a version-1 trace" if the version cannot express it, else empty.
std::string version_problem(const Event& e, int version);

// The encoding a path's extension implies: ".umtb" binary, anything else text.
Encoding encoding_for_path(std::string_view path);

}  // namespace umsim::trace
