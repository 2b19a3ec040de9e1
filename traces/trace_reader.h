// Streaming trace reader interface (text or binary, chosen by content).
// Readers never hold the whole trace in memory: they fill caller-provided
// batches of fixed-size Events.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "traces/event.h"
#include "traces/trace_error.h"

namespace umsim::trace {

// Interned names; ids are dense and assigned in order of first appearance.
class NameTable {
 public:
  NameId intern(std::string_view name);
  const std::string& name(NameId id) const { return names_.at(id); }
  std::size_t size() const { return names_.size(); }
  // The id of `name` if it was interned.
  std::optional<NameId> find(std::string_view name) const;

 private:
  std::vector<std::string> names_;
  // Lookups happen only while parsing names, never on a replay hot path.
  std::unordered_map<std::string, NameId> ids_;
};

// A comment met while reading (text '# ...' lines, binary comment records).
struct TraceComment {
  std::size_t before_index = 0;  // index in the last batch of the event it precedes (== batch size: after all)
  std::string text;
  std::string position;  // where it was read, e.g. "trace.umt:12" or "trace.umtb:byte 4096"
};

class TraceReader {
 public:
  virtual ~TraceReader() = default;

  // Fills up to out.size() events; returns how many were read, 0 at the end.
  // Throws TraceError (with file and line / byte offset) on malformed input.
  virtual std::size_t read(std::span<Event> out) = 0;

  // The next batch of at most scratch.size() events, as read() would return
  // them, without a copy where the reader already holds them decoded (an
  // in-memory trace); other readers decode into `scratch`. Empty at the end.
  // The view is valid until the next call.
  virtual std::span<const Event> read_view(std::span<Event> scratch) { return scratch.first(read(scratch)); }

  // Names referenced by events returned so far (grows while reading).
  virtual const NameTable& names() const = 0;

  // Where event i of the last batch returned by read() came from,
  // e.g. "trace.txt:12" or "trace.umt:byte 4096".
  virtual std::string position(std::size_t index_in_last_batch) const = 0;

  // The path (or "<memory>") for error messages.
  virtual const std::string& source() const = 0;

  // The trace format version the input declares (1 or 2); converters write the same.
  virtual int version() const { return 1; }

  // Once read() returned 0: whether the trace ended with its end record. The
  // binary encoding requires one (a binary reader throws without it); in text it
  // is the optional `end-of-trace` line that writers always emit, so a text trace
  // cut at a line boundary shows as one without it (`trace check` warns). Readers
  // of built traces say true.
  virtual bool ended_with_end_record() const { return true; }

  // Once read() returned 0: where the input ended, for reports about its end,
  // e.g. "trace.umt:41" (the last line). Defaults to source().
  virtual std::string end_position() const { return source(); }

  // Comments met during the last read(), in order, so that converters can keep them.
  // Readers that carry no comments return an empty span.
  virtual std::span<const TraceComment> comments() const { return {}; }

  // Asks the reader to skip malformed lines and go on, reporting each through
  // on_error(before_index, position, message) instead of throwing, so that one run
  // of `umsim trace check` lists every problem. before_index is the index, in the
  // batch being read, of the event that follows the skipped line. Returns false if
  // this reader cannot resynchronise after an error (then it throws as usual):
  // only text readers can.
  using SkipHandler =
      std::function<void(std::size_t before_index, const std::string& position, const std::string& message)>;
  virtual bool skip_malformed(SkipHandler on_error) {
    (void)on_error;
    return false;
  }
};

// Opens a trace file, detecting the encoding from its first bytes.
// Throws TraceError if it cannot be opened or is neither encoding.
std::unique_ptr<TraceReader> open_trace(const std::string& path);

// Same, for a trace held in memory (tests, fuzzing); `source` names it in messages.
std::unique_ptr<TraceReader> open_trace_from_memory(std::string data, std::string source = "<memory>");

// Trace file name extensions: .umt text, .umtb binary.
inline constexpr std::string_view kTextExtension = ".umt";
inline constexpr std::string_view kBinaryExtension = ".umtb";

}  // namespace umsim::trace
