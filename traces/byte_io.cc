#include "traces/byte_io.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "traces/trace_error.h"

namespace umsim::trace {
namespace {

std::string errno_text() { return std::strerror(errno); }

class FileInput final : public ByteInput {
 public:
  FileInput(int fd, std::string path) : fd_(fd), path_(std::move(path)) {}
  ~FileInput() override { ::close(fd_); }
  std::size_t read_some(char* dst, std::size_t n) override {
    for (;;) {
      const ssize_t got = ::read(fd_, dst, n);
      if (got >= 0) return static_cast<std::size_t>(got);
      if (errno == EINTR) continue;
      throw TraceError(path_ + ": read error: " + errno_text());
    }
  }

 private:
  int fd_;
  std::string path_;
};

class MemoryInput final : public ByteInput {
 public:
  explicit MemoryInput(std::string data) : data_(std::move(data)) {}
  std::size_t read_some(char* dst, std::size_t n) override {
    const std::size_t k = std::min(n, data_.size() - pos_);
    std::memcpy(dst, data_.data() + pos_, k);
    pos_ += k;
    return k;
  }

 private:
  std::string data_;
  std::size_t pos_ = 0;
};

class FileOutput final : public ByteOutput {
 public:
  FileOutput(int fd, std::string path) : fd_(fd), path_(std::move(path)) {}
  ~FileOutput() override {
    if (fd_ >= 0) ::close(fd_);
  }
  void write(const char* data, std::size_t n) override {
    while (n > 0) {
      const ssize_t put = ::write(fd_, data, n);
      if (put < 0) {
        if (errno == EINTR) continue;
        throw TraceError(path_ + ": write error: " + errno_text());
      }
      data += put;
      n -= static_cast<std::size_t>(put);
    }
  }
  void close() override {
    if (fd_ < 0) return;
    const int fd = fd_;
    fd_ = -1;
    if (::close(fd) != 0) throw TraceError(path_ + ": write error: " + errno_text());
  }

 private:
  int fd_;
  std::string path_;
};

class StringOutput final : public ByteOutput {
 public:
  explicit StringOutput(std::string* out) : out_(out) {}
  void write(const char* data, std::size_t n) override { out_->append(data, n); }
  void close() override {}

 private:
  std::string* out_;
};

}  // namespace

std::unique_ptr<ByteInput> open_file_input(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw TraceError(path + ": cannot open: " + errno_text());
  return std::make_unique<FileInput>(fd, path);
}

std::unique_ptr<ByteOutput> open_file_output(const std::string& path) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw TraceError(path + ": cannot create: " + errno_text());
  return std::make_unique<FileOutput>(fd, path);
}

std::unique_ptr<ByteInput> memory_input(std::string data) { return std::make_unique<MemoryInput>(std::move(data)); }

std::unique_ptr<ByteOutput> string_output(std::string* out) { return std::make_unique<StringOutput>(out); }

}  // namespace umsim::trace
