// Byte sources and sinks behind the trace readers and writers: a file (large
// unbuffered reads; the readers buffer themselves) or a string in memory.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>

namespace umsim::trace {

class ByteInput {
 public:
  virtual ~ByteInput() = default;
  // Reads up to n bytes into dst; returns 0 only at the end. Throws TraceError on I/O errors.
  virtual std::size_t read_some(char* dst, std::size_t n) = 0;
};

class ByteOutput {
 public:
  virtual ~ByteOutput() = default;
  // Throws TraceError on I/O errors.
  virtual void write(const char* data, std::size_t n) = 0;
  virtual void close() = 0;
};

// Throw TraceError ("PATH: cannot open: REASON") on failure.
std::unique_ptr<ByteInput> open_file_input(const std::string& path);
std::unique_ptr<ByteOutput> open_file_output(const std::string& path);

std::unique_ptr<ByteInput> memory_input(std::string data);

// A growable byte buffer that does not zero its memory: the decoders fill
// before they read, and zeroing megabytes per opened trace is pure cost.
class RawBuffer {
 public:
  explicit RawBuffer(std::size_t size) : data_(new std::uint8_t[size]), size_(size) {}
  std::uint8_t* data() { return data_.get(); }
  const std::uint8_t* data() const { return data_.get(); }
  char* chars() { return reinterpret_cast<char*>(data_.get()); }
  std::size_t size() const { return size_; }
  // Grows to `size` bytes, keeping the first `keep` bytes.
  void grow(std::size_t size, std::size_t keep) {
    if (size <= size_) return;
    std::unique_ptr<std::uint8_t[]> bigger(new std::uint8_t[size]);
    std::memcpy(bigger.get(), data_.get(), keep);
    data_ = std::move(bigger);
    size_ = size;
  }

 private:
  std::unique_ptr<std::uint8_t[]> data_;
  std::size_t size_;
};
std::unique_ptr<ByteOutput> string_output(std::string* out);

}  // namespace umsim::trace
