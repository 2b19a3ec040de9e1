#include "tools/line_journal.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace umsim::cli {
namespace {

std::runtime_error error(const std::string& path, const char* what, int err) {
  return std::runtime_error(path + ": " + what + ": " + std::strerror(err));
}

// Length of `text` up to and including its last '\n'.
std::size_t complete_prefix(const std::string& text) {
  const auto last = text.rfind('\n');
  return last == std::string::npos ? 0 : last + 1;
}

std::string read_all(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return {};
    throw error(path, "cannot read", errno);
  }
  std::string text;
  char buffer[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int err = errno;
      ::close(fd);
      throw error(path, "cannot read", err);
    }
    if (n == 0) break;
    text.append(buffer, static_cast<std::size_t>(n));
  }
  ::close(fd);
  return text;
}

}  // namespace

LineJournal::LineJournal(std::string path) : path_(std::move(path)) {
  const std::string text = read_all(path_);
  fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd_ < 0) throw error(path_, "cannot open for appending", errno);
  const std::size_t keep = complete_prefix(text);
  if (keep != text.size() && ::ftruncate(fd_, static_cast<off_t>(keep)) != 0) {
    const int err = errno;
    ::close(fd_);
    throw error(path_, "cannot cut off an incomplete last line", err);
  }
}

LineJournal::~LineJournal() {
  if (fd_ >= 0) ::close(fd_);
}

void LineJournal::append(const std::string& line) {
  struct stat st {};
  if (::fstat(fd_, &st) != 0) throw error(path_, "cannot append", errno);
  const std::string whole = line + "\n";
  std::size_t written = 0;
  while (written < whole.size()) {
    const ssize_t n = ::write(fd_, whole.data() + written, whole.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int err = n < 0 ? errno : ENOSPC;
      // Cut off the part of the line that did get written: the file keeps only whole lines.
      if (::ftruncate(fd_, st.st_size) != 0) {}
      throw error(path_, "cannot append", err);
    }
    written += static_cast<std::size_t>(n);
  }
  if (::fsync(fd_) != 0) {
    const int err = errno;
    if (::ftruncate(fd_, st.st_size) != 0) {}
    throw error(path_, "cannot append (fsync)", err);
  }
}

std::vector<std::string> read_complete_lines(const std::string& path) {
  const std::string text = read_all(path);
  std::vector<std::string> lines;
  const std::size_t end = complete_prefix(text);
  for (std::size_t start = 0; start < end;) {
    const std::size_t nl = text.find('\n', start);
    lines.push_back(text.substr(start, nl - start));
    start = nl + 1;
  }
  return lines;
}

}  // namespace umsim::cli
