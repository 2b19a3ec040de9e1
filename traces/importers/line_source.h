// Line-by-line reading with positions for error messages ("file:line").
// xz-compressed files (by their magic bytes, whatever the name) are decoded
// as they are read.
#pragma once

#include <cstdint>
#include <fstream>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "traces/importers/xz_lines.h"
#include "traces/trace_error.h"

namespace umsim::import {

class LineSource {
 public:
  explicit LineSource(std::string path) : path_(std::move(path)), in_(path_, std::ios::binary) {
    if (!in_) throw trace::TraceError(path_ + ": cannot open input");
    if (starts_with_xz_magic(in_)) xz_ = std::make_unique<XzLines>(in_, path_);
  }
  bool next(std::string& line) {
    if (xz_ ? !xz_->getline(line) : !std::getline(in_, line)) return false;
    ++line_;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    return true;
  }
  std::string where() const { return path_ + ":" + std::to_string(line_); }
  std::uint64_t line() const { return line_; }
  [[noreturn]] void fail(const std::string& what) const { throw trace::TraceError(where() + ": " + what); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  std::ifstream in_;
  std::unique_ptr<XzLines> xz_;
  std::uint64_t line_ = 0;
};

// Splits on runs of whitespace.
inline std::vector<std::string_view> split_ws(std::string_view s) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
    std::size_t j = i;
    while (j < s.size() && s[j] != ' ' && s[j] != '\t') ++j;
    if (j > i) out.push_back(s.substr(i, j - i));
    i = j;
  }
  return out;
}

// Parses hexadecimal digits with an optional 0x prefix; false if not all hex.
inline bool parse_hex(std::string_view s, std::uint64_t& value) {
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) s.remove_prefix(2);
  if (s.empty() || s.size() > 16) return false;
  value = 0;
  for (char c : s) {
    int d;
    if (c >= '0' && c <= '9') d = c - '0';
    else if (c >= 'a' && c <= 'f') d = c - 'a' + 10;
    else if (c >= 'A' && c <= 'F') d = c - 'A' + 10;
    else return false;
    value = value << 4 | static_cast<std::uint64_t>(d);
  }
  return true;
}

// Parses a signed or unsigned decimal integer.
inline bool parse_int(std::string_view s, std::int64_t& value) {
  bool neg = false;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) neg = s[0] == '-', s.remove_prefix(1);
  if (s.empty() || s.size() > 18) return false;
  std::int64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + (c - '0');
  }
  value = neg ? -v : v;
  return true;
}

}  // namespace umsim::import
