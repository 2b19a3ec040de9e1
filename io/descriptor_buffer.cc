#include "io/descriptor_buffer.h"

#include <unistd.h>

#include <cerrno>

namespace umsim::io {

bool write_all(int fd, const char* data, std::size_t n, int* error) {
  while (n > 0) {
    const ssize_t put = ::write(fd, data, n);
    if (put < 0 && errno == EINTR) continue;
    if (put <= 0) {
      *error = put < 0 ? errno : EIO;
      return false;
    }
    data += put;
    n -= static_cast<std::size_t>(put);
  }
  return true;
}

DescriptorBuffer::DescriptorBuffer(int fd) : fd_(fd), data_(1 << 16) {
  setp(data_.data(), data_.data() + data_.size());
}

bool DescriptorBuffer::drain() {
  const std::size_t n = static_cast<std::size_t>(pptr() - pbase());
  setp(data_.data(), data_.data() + data_.size());
  if (error_ != 0) return false;
  return write_all(fd_, data_.data(), n, &error_);
}

DescriptorBuffer::int_type DescriptorBuffer::overflow(int_type c) {
  if (!drain()) return traits_type::eof();
  if (!traits_type::eq_int_type(c, traits_type::eof())) {
    *pptr() = traits_type::to_char_type(c);
    pbump(1);
  }
  return traits_type::not_eof(c);
}

}  // namespace umsim::io
