// Byte sources and sinks behind the trace readers and writers: a file (large
// unbuffered reads; the readers buffer themselves) or a string in memory.
#pragma once

#include <cstddef>
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
std::unique_ptr<ByteOutput> string_output(std::string* out);

}  // namespace umsim::trace
