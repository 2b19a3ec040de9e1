// The binary encoding's writer: header, then zstd-compressed compact records
// (FORMAT.md). Names are defined inline before their first use.
#pragma once

#include <zstd.h>

#include <exception>
#include <memory>
#include <string>
#include <vector>

#include "traces/byte_io.h"
#include "traces/trace_reader.h"
#include "traces/trace_writer.h"

namespace umsim::trace {

struct BinaryWriterOptions {
  bool compress = true;  // false writes the records uncompressed (for tests and fuzz seeds)
  int zstd_level = 3;
  int version = 1;  // format version 1 or 2 (FORMAT.md); version 1 refuses version-2 events
};

class BinaryWriter final : public TraceWriter {
 public:
  BinaryWriter(std::unique_ptr<ByteOutput> out, std::string target, BinaryWriterOptions options = {});
  ~BinaryWriter() override;
  void write(const Event& e, std::string_view name, std::string_view source_name = {}) override;
  void comment(std::string_view text) override;
  void finish() override;

 private:
  NameId name_id(const Event& e, std::string_view name);
  // Interns a name, defining it in the stream the first time; `role` names it in messages.
  NameId define_name(const Event& e, std::string_view name, const char* role);
  void put_bytes_record(std::uint8_t tag, std::string_view bytes);
  void reserve(std::size_t n);
  void flush_records(bool last);

  std::unique_ptr<ByteOutput> out_;
  std::string target_;
  BinaryWriterOptions options_;
  ZSTD_CCtx* cctx_ = nullptr;
  RawBuffer records_;  // uncompressed records not yet flushed
  std::size_t used_ = 0;
  std::vector<char> compressed_;
  NameTable names_;
  std::vector<NameId> caller_to_own_;  // cache: the caller's name id -> ours
  std::vector<Bytes> last_access_end_;  // by our name id: delta base for access offsets
  std::uint64_t events_ = 0;
  bool finished_ = false;
  // The destructor finishes an unfinished output, except while an exception
  // unwinds: then it is abandoned (a file output leaves nothing, io/atomic_output.h).
  int uncaught_at_construction_ = std::uncaught_exceptions();
};

}  // namespace umsim::trace
