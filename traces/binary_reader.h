// The binary encoding's reader: checks the header, then decodes the record
// stream (zstd-decompressed in large chunks) straight into the caller's batch.
// Memory is bounded by the buffers and the name table; no per-record allocation.
#pragma once

#include <zstd.h>

#include <memory>
#include <string>
#include <vector>

#include "traces/byte_io.h"
#include "traces/trace_reader.h"

namespace umsim::trace {

class BinaryReader final : public TraceReader {
 public:
  // Reads and checks the header; throws TraceError naming the file byte offset.
  BinaryReader(std::unique_ptr<ByteInput> in, std::string source);
  ~BinaryReader() override;

  std::size_t read(std::span<Event> out) override;
  const NameTable& names() const override { return names_; }
  // "PATH:byte N": N counts bytes of the decompressed record stream.
  std::string position(std::size_t index_in_last_batch) const override;
  const std::string& source() const override { return source_; }
  int version() const override { return version_; }
  std::span<const TraceComment> comments() const override { return comments_; }

 private:
  void read_header();
  void read_exact(char* dst, std::size_t n, const char* what);
  // Makes at least `need` bytes available at pos_ unless the stream ends first.
  void ensure(std::size_t need);
  void refill();
  void decompress_into(std::uint8_t* dst, std::size_t capacity, std::size_t& produced);
  // Decodes one name_def or comment record at pos_ (tag already checked).
  void read_bytes_record(std::uint8_t tag, std::size_t batch_index);
  void finish_stream(const std::uint8_t* p);
  [[noreturn]] void fail_at(std::uint64_t stream_offset, const std::string& message) const;
  [[noreturn]] void fail_file(std::uint64_t file_offset, const std::string& message) const;

  std::unique_ptr<ByteInput> in_;
  std::string source_;
  NameTable names_;
  std::vector<Bytes> last_access_end_;  // by name id
  std::vector<TraceComment> comments_;
  std::vector<std::uint64_t> offsets_;  // record stream offset of each event in the last batch
  std::size_t last_batch_size_ = 0;

  int version_ = 1;
  bool compressed_ = false;
  ZSTD_DCtx* dctx_ = nullptr;
  RawBuffer zin_{0};               // compressed input
  ZSTD_inBuffer zin_view_{nullptr, 0, 0};
  std::uint64_t file_consumed_ = 0;  // file bytes read before zin_ (header included)
  bool file_eof_ = false;
  bool frame_open_ = false;

  RawBuffer buf_;  // decompressed records, plus zero padding after end_
  std::size_t pos_ = 0, end_ = 0;
  std::uint64_t buf_offset_ = 0;  // stream offset of buf_[0]
  bool stream_done_ = false;      // no more decompressed bytes will come
  bool saw_end_record_ = false;
  std::uint64_t events_ = 0;
};

}  // namespace umsim::trace
