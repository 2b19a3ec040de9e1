// Lines of an xz-compressed file (Accel-Sim writes its kernel traces as
// kernel-N.traceg.xz), decoded with liblzma as they are read: nothing but one
// buffer of decoded text is held in memory.
#pragma once

#include <cstdint>
#include <istream>
#include <memory>
#include <string>

namespace umsim::import {

// True if the stream starts with the xz magic bytes (FD 37 7A 58 5A 00); the stream is rewound.
bool starts_with_xz_magic(std::istream& in);

class XzLines {
 public:
  // Decodes `in` (positioned at the start of the xz data); `path` names it in errors.
  XzLines(std::istream& in, std::string path);
  ~XzLines();
  XzLines(const XzLines&) = delete;
  XzLines& operator=(const XzLines&) = delete;

  // The next line without its '\n'; false at the end of the data. Throws
  // TraceError ("PATH: ... at compressed byte N") for corrupt or truncated data.
  bool getline(std::string& line);

 private:
  bool decode_more();
  struct Decoder;
  std::istream& in_;
  std::string path_;
  std::unique_ptr<Decoder> decoder_;
  std::string text_;      // decoded, not yet returned
  std::size_t pos_ = 0;   // first unreturned byte of text_
  bool finished_ = false; // the decoder reached the end of the last stream
};

}  // namespace umsim::import
