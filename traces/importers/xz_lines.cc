#include "traces/importers/xz_lines.h"

#include <lzma.h>

#include <algorithm>
#include <vector>

#include "traces/trace_error.h"

namespace umsim::import {

bool starts_with_xz_magic(std::istream& in) {
  static constexpr unsigned char kMagic[6] = {0xFD, '7', 'z', 'X', 'Z', 0x00};
  unsigned char head[6] = {};
  in.read(reinterpret_cast<char*>(head), 6);
  const bool xz = in.gcount() == 6 && std::equal(head, head + 6, kMagic);
  in.clear();
  in.seekg(0);
  return xz;
}

struct XzLines::Decoder {
  lzma_stream stream = LZMA_STREAM_INIT;
  std::vector<std::uint8_t> input = std::vector<std::uint8_t>(1 << 16);
  bool input_done = false;
  ~Decoder() { lzma_end(&stream); }
};

XzLines::XzLines(std::istream& in, std::string path)
    : in_(in), path_(std::move(path)), decoder_(std::make_unique<Decoder>()) {
  // Concatenated streams decode as one file, as xz(1) does.
  if (lzma_stream_decoder(&decoder_->stream, UINT64_MAX, LZMA_CONCATENATED) != LZMA_OK)
    throw trace::TraceError(path_ + ": cannot start the xz decoder (out of memory)");
}

XzLines::~XzLines() = default;

bool XzLines::decode_more() {
  if (finished_) return false;
  lzma_stream& s = decoder_->stream;
  std::uint8_t out[1 << 16];
  for (;;) {
    if (s.avail_in == 0 && !decoder_->input_done) {
      in_.read(reinterpret_cast<char*>(decoder_->input.data()), static_cast<std::streamsize>(decoder_->input.size()));
      s.next_in = decoder_->input.data();
      s.avail_in = static_cast<std::size_t>(in_.gcount());
      if (s.avail_in == 0) decoder_->input_done = true;
    }
    s.next_out = out;
    s.avail_out = sizeof out;
    const lzma_ret ret = lzma_code(&s, decoder_->input_done ? LZMA_FINISH : LZMA_RUN);
    const std::size_t produced = sizeof out - s.avail_out;
    text_.append(reinterpret_cast<const char*>(out), produced);
    const std::string at = " at compressed byte " + std::to_string(s.total_in);
    switch (ret) {
      case LZMA_OK:
        break;
      case LZMA_STREAM_END:
        finished_ = true;
        return produced > 0;
      case LZMA_BUF_ERROR:
        throw trace::TraceError(path_ + ": truncated xz data: the file ends inside the compressed stream" + at);
      case LZMA_DATA_ERROR:
      case LZMA_FORMAT_ERROR:
        throw trace::TraceError(path_ + ": corrupt xz data" + at);
      case LZMA_OPTIONS_ERROR:
        throw trace::TraceError(path_ + ": unsupported xz options" + at);
      case LZMA_MEM_ERROR:
      case LZMA_MEMLIMIT_ERROR:
        throw trace::TraceError(path_ + ": out of memory decoding xz data" + at);
      default:
        throw trace::TraceError(path_ + ": xz decoding failed (liblzma code " + std::to_string(ret) + ")" + at);
    }
    if (produced > 0) return true;
  }
}

bool XzLines::getline(std::string& line) {
  for (;;) {
    const std::size_t nl = text_.find('\n', pos_);
    if (nl != std::string::npos) {
      line.assign(text_, pos_, nl - pos_);
      pos_ = nl + 1;
      return true;
    }
    if (pos_ > 0) {  // keep the buffer to one partial line plus the next decoded chunk
      text_.erase(0, pos_);
      pos_ = 0;
    }
    if (!decode_more()) {
      if (text_.empty()) return false;
      line.swap(text_);  // a last line without '\n'
      text_.clear();
      return true;
    }
  }
}

}  // namespace umsim::import
