// The text encoding's writer: one canonical line per event (see FORMAT.md).
// Canonical means: every value in its shortest unit spelling, default fields
// left out, lengths always written, accesses inside a kernel indented by two spaces.
#pragma once

#include <exception>
#include <memory>
#include <string>

#include "traces/byte_io.h"
#include "traces/trace_writer.h"

namespace umsim::trace {

class TextWriter final : public TraceWriter {
 public:
  // `version`: the format version of the header (1 or 2); a version-1 writer
  // refuses version-2 statements.
  TextWriter(std::unique_ptr<ByteOutput> out, std::string target, int version = 1);
  ~TextWriter() override;
  void write(const Event& e, std::string_view name, std::string_view source_name = {}) override;
  void comment(std::string_view text) override;
  void finish() override;

  // The canonical line for one event (no indentation, no newline). Throws
  // TraceError if the event cannot be expressed (bad op, bad processor, bad name).
  // `source_name`: the source allocation of a copy between allocations.
  static std::string format_event(const Event& e, std::string_view name, std::string_view source_name = {});

 private:
  void flush_if_full();

  std::unique_ptr<ByteOutput> out_;
  std::string target_;
  std::string buffer_;
  int version_ = 1;
  bool in_kernel_ = false;
  bool finished_ = false;
  // The destructor finishes an unfinished output, except while an exception
  // unwinds: then it is abandoned (a file output leaves nothing, io/atomic_output.h).
  int uncaught_at_construction_ = std::uncaught_exceptions();
};

}  // namespace umsim::trace
