#include "traces/byte_io.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "io/atomic_output.h"
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

// A file written through io::AtomicOutput: it appears under its name only when
// close() succeeds; destroyed without close() (an error), it leaves nothing.
class FileOutput final : public ByteOutput {
 public:
  explicit FileOutput(const std::string& path) : out_(path) {}
  void write(const char* data, std::size_t n) override {
    try {
      out_.write(std::string_view(data, n));
    } catch (const io::OutputError& e) {
      throw TraceError(e.what());
    }
  }
  void close() override {
    if (closed_) return;
    closed_ = true;
    try {
      out_.commit();
    } catch (const io::OutputError& e) {
      throw TraceError(e.what());
    }
  }

 private:
  io::AtomicOutput out_;
  bool closed_ = false;
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
  try {
    return std::make_unique<FileOutput>(path);
  } catch (const io::OutputError& e) {
    throw TraceError(e.what());
  }
}

std::unique_ptr<ByteInput> memory_input(std::string data) { return std::make_unique<MemoryInput>(std::move(data)); }

std::unique_ptr<ByteOutput> string_output(std::string* out) { return std::make_unique<StringOutput>(out); }

}  // namespace umsim::trace
