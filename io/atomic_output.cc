#include "io/atomic_output.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "io/descriptor_buffer.h"

namespace umsim::io {
namespace {

// The process's umask, read once (reading it means setting it, which is not thread-safe).
mode_t process_umask() {
  static const mode_t mask = [] {
    const mode_t m = ::umask(0);
    ::umask(m);
    return m;
  }();
  return mask;
}

std::string directory_of(const std::string& path) {
  const std::size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

std::string file_name_of(const std::string& path) {
  const std::size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// Follows symbolic links (at most 40, as the kernel does) to the path that will be replaced.
std::string resolve_links(const std::string& path) {
  std::string p = path;
  for (int hops = 0; hops < 40; ++hops) {
    struct stat st {};
    if (::lstat(p.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return p;
    std::vector<char> target(PATH_MAX + 1);
    const ssize_t n = ::readlink(p.c_str(), target.data(), PATH_MAX);
    if (n < 0) return p;
    std::string next(target.data(), static_cast<std::size_t>(n));
    p = next.starts_with('/') ? next : directory_of(p) + "/" + next;
  }
  return p;
}

}  // namespace

AtomicOutput::AtomicOutput(std::string path) : path_(std::move(path)) {
  if (path_.empty()) throw OutputError("cannot create an output with an empty path");
  struct stat st {};
  const bool exists = ::stat(path_.c_str(), &st) == 0;
  if (exists && S_ISDIR(st.st_mode)) throw OutputError(path_ + ": cannot create: is a directory");
  if (exists && (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode))) {
    // A device or pipe (also through /dev/stdout's links): written in place;
    // renaming over it would replace the device node.
    target_ = path_;
    fd_ = ::open(path_.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd_ < 0) fail("cannot open for writing", errno);
  } else if (exists && !S_ISREG(st.st_mode)) {
    throw OutputError(path_ + ": cannot create: not a regular file, character device or FIFO");
  } else {
    target_ = resolve_links(path_);
    std::string pattern = directory_of(target_) + "/." + file_name_of(target_) + ".tmp-XXXXXX";
    fd_ = ::mkostemp(pattern.data(), O_CLOEXEC);
    if (fd_ < 0) fail("cannot create", errno);
    temporary_ = pattern;
    // mkstemp creates 0600; the file gets the mode a plain create (or the file it replaces) would have.
    const mode_t mode = exists ? (st.st_mode & 07777) : (0666 & ~process_umask());
    if (::fchmod(fd_, mode) != 0) fail("cannot create", errno);
  }
  buffer_ = std::make_unique<DescriptorBuffer>(fd_);
  stream_ = std::make_unique<std::ostream>(buffer_.get());
}

AtomicOutput::~AtomicOutput() {
  if (!committed_) discard();
}

void AtomicOutput::discard() noexcept {
  stream_.reset();
  buffer_.reset();
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  if (!temporary_.empty()) ::unlink(temporary_.c_str());  // only ever our own temporary file
  temporary_.clear();
}

void AtomicOutput::fail(const std::string& what, int error) {
  const std::string message = path_ + ": " + what + ": " + std::strerror(error);
  discard();
  committed_ = true;  // nothing left to clean up
  throw OutputError(message);
}

void AtomicOutput::write(std::string_view bytes) {
  if (fd_ < 0) throw OutputError(path_ + ": write after commit or failure");
  stream_->flush();
  if (buffer_->error() != 0) fail("write error", buffer_->error());
  int error = 0;
  if (!write_all(fd_, bytes.data(), bytes.size(), &error)) fail("write error", error);
}

std::ostream& AtomicOutput::stream() { return *stream_; }

void AtomicOutput::sync() {
  if (fd_ < 0) throw OutputError(path_ + ": write after commit or failure");
  if (!buffer_->drain()) fail("write error", buffer_->error());
  stream_->clear();
  if (temporary_.empty()) return;  // devices and pipes have nothing to sync
  if (::fsync(fd_) != 0) fail("write error", errno);
}

void AtomicOutput::commit() {
  if (committed_) throw OutputError(path_ + ": committed twice");
  sync();
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) fail("write error", errno);
  if (!temporary_.empty() && ::rename(temporary_.c_str(), target_.c_str()) != 0) fail("cannot replace", errno);
  temporary_.clear();
  stream_.reset();
  buffer_.reset();
  committed_ = true;
}

bool writes_in_place(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode));
}

void write_file_atomically(const std::string& path, std::string_view bytes) {
  AtomicOutput out(path);
  out.write(bytes);
  out.commit();
}

}  // namespace umsim::io
