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
  // Writes one event; `name` is the event's name (ignored by kinds without one).
  virtual void write(const Event& e, std::string_view name) = 0;
  // A free-text comment (text: '# ...' line; binary: kept as a comment record).
  virtual void comment(std::string_view text) = 0;
  // Flushes and closes; throws on I/O errors. Called by the destructor if omitted.
  virtual void finish() = 0;
};

enum class Encoding { kText, kBinary };

// Opens `path` for writing. Throws TraceError on I/O failure.
std::unique_ptr<TraceWriter> create_trace_writer(const std::string& path, Encoding encoding);

// Same, appending the encoded trace to *out (tests, fuzzing); *out must outlive the writer.
std::unique_ptr<TraceWriter> create_trace_writer_to_string(std::string* out, Encoding encoding);

// The encoding a path's extension implies: ".umtb" binary, anything else text.
Encoding encoding_for_path(std::string_view path);

}  // namespace umsim::trace
