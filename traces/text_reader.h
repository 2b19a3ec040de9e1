// The text encoding's reader (grammar: FORMAT.md). Streams the input in large
// chunks, one line at a time; memory is bounded by the chunk size and the names.
#pragma once

#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

#include "traces/byte_io.h"
#include "traces/trace_reader.h"

namespace umsim::trace {

class TextReader final : public TraceReader {
 public:
  // Reads and checks the header line; throws TraceError unless it is "umsim-trace 1" or "umsim-trace 2".
  TextReader(std::unique_ptr<ByteInput> in, std::string source);

  std::size_t read(std::span<Event> out) override;
  const NameTable& names() const override { return names_; }
  std::string position(std::size_t index_in_last_batch) const override;
  const std::string& source() const override { return source_; }
  int version() const override { return version_; }
  std::span<const TraceComment> comments() const override { return comments_; }
  bool ended_with_end_record() const override { return end_line_ != 0; }
  std::string end_position() const override { return source_ + ":" + std::to_string(line_no_); }
  bool skip_malformed(SkipHandler on_error) override {
    on_error_ = std::move(on_error);
    return true;
  }

 private:
  struct Tokens;

  bool next_line(std::string_view& line);
  // Parses one line; returns true if it produced an event in *e.
  bool parse_line(std::string_view line, Event* e, std::size_t batch_index);
  [[noreturn]] void fail(const std::string& message) const;

  void parse_alloc(Tokens& t, Event* e);
  void parse_kernel(Tokens& t, Event* e);
  void parse_access(Tokens& t, std::size_t first, EventKind kind, Event* e);
  void parse_prefetch(Tokens& t, Event* e);
  void parse_advise(Tokens& t, Event* e);
  void parse_sync(Tokens& t, Event* e);
  void parse_copy(Tokens& t, Event* e);
  void parse_memset(Tokens& t, Event* e);
  void parse_peer(Tokens& t, Event* e);
  // Copies and memsets: gpu=N (required), stream=N, async; other keys in `extra` (key -> value).
  void parse_issue_fields(Tokens& t, std::size_t first, const char* keyword, Event* e,
                          std::initializer_list<std::string_view> extra_keys, std::string_view* extra_values);
  void require_version_2(std::string_view what);
  std::uint32_t gpu_value(std::string_view key, std::string_view value);
  NameId parse_name(std::string_view token);
  void parse_address(std::string_view token, Event* e);
  Bytes whole_rest_of_allocation(const Event& e, std::string_view keyword);
  Bytes bytes_value(std::string_view key, std::string_view value);
  Processor processor_value(std::string_view key, std::string_view value);
  std::uint32_t u32_value(std::string_view key, std::string_view value);

  std::unique_ptr<ByteInput> in_;
  std::string source_;
  int version_ = 1;
  NameTable names_;
  std::vector<Bytes> alloc_size_;  // by name id: size of the latest 'alloc', or kUnknownSize
  std::vector<TraceComment> comments_;
  std::vector<std::uint64_t> lines_;  // line number of each event in the last batch

  RawBuffer buf_;
  std::size_t pos_ = 0, end_ = 0;
  bool eof_ = false;
  std::uint64_t line_no_ = 0;
  std::uint64_t end_line_ = 0;  // line of `end-of-trace`; 0 before it
  std::string scratch_;  // unquoted name
  SkipHandler on_error_;  // set: report malformed lines and go on
};

}  // namespace umsim::trace
