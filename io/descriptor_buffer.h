// A stream buffer over a file descriptor that keeps the first write error's
// errno: a std::ostream reduces a failed write to its failed state (and
// swallows exceptions), while a command must say why its output failed ("No
// space left on device"). AtomicOutput's stream and standard output use it.
#pragma once

#include <cstddef>
#include <streambuf>
#include <vector>

namespace umsim::io {

class DescriptorBuffer final : public std::streambuf {
 public:
  explicit DescriptorBuffer(int fd);
  // 0, or the errno of the first write that failed.
  int error() const { return error_; }
  // Writes what is buffered; false when this or an earlier write failed.
  bool drain();

 protected:
  int_type overflow(int_type c) override;
  int sync() override { return drain() ? 0 : -1; }

 private:
  int fd_;
  std::vector<char> data_;
  int error_ = 0;
};

// Writes all `n` bytes to `fd` (again after EINTR); on failure returns false
// with the errno in *error.
bool write_all(int fd, const char* data, std::size_t n, int* error);

}  // namespace umsim::io
