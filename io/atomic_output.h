// An output file that appears whole or not at all.
//
//   io::AtomicOutput out(path);      // creates a temporary file beside `path`
//   out.stream() << ...;             // or out.write(bytes)
//   out.commit();                    // flush, fsync, rename onto `path`; throws on any error
//
// Without commit() (an exception, a kill) `path` is untouched: the destructor
// removes only the temporary file, and a killed process leaves at most a
// `.NAME.tmp-XXXXXX` file beside it, never a partial file under the final name.
// A path that is a symbolic link is resolved, so the link stays and its target
// is replaced. A path that is a character device or a FIFO (/dev/null,
// /dev/stdout, a named pipe) cannot be replaced by renaming: it is opened and
// written directly, and nothing is ever removed. Directories, block devices and
// sockets are refused. Every error is an OutputError naming the path.
#pragma once

#include <memory>
#include <ostream>
#include <stdexcept>
#include <string>
#include <string_view>

namespace umsim::io {

class DescriptorBuffer;

class OutputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class AtomicOutput {
 public:
  // Throws OutputError ("PATH: cannot create: REASON") when the output cannot be started.
  explicit AtomicOutput(std::string path);
  ~AtomicOutput();
  AtomicOutput(const AtomicOutput&) = delete;
  AtomicOutput& operator=(const AtomicOutput&) = delete;

  // Throws OutputError ("PATH: write error: REASON"), e.g. on a full disk.
  void write(std::string_view bytes);
  // A buffered stream over the same file; its errors are reported by sync() and commit().
  std::ostream& stream();
  // Flushes the stream and forces what was written so far to disk (fsync), so
  // that it survives a crash of the process; throws OutputError.
  void sync();
  // Flushes, syncs and puts the file in place under `path`. Throws OutputError;
  // after a failure the temporary file is gone and `path` is as it was.
  void commit();

  // The path as the user named it.
  const std::string& path() const { return path_; }

 private:
  [[noreturn]] void fail(const std::string& what, int error);
  void discard() noexcept;

  std::string path_;       // as named
  std::string target_;     // what commit() replaces (symbolic links resolved)
  std::string temporary_;  // empty when writing the target directly
  int fd_ = -1;
  std::unique_ptr<DescriptorBuffer> buffer_;
  std::unique_ptr<std::ostream> stream_;
  bool committed_ = false;
};

// Whether `path` is a character device or a FIFO, which AtomicOutput writes in
// place (nothing beside it, nothing to resume from).
bool writes_in_place(const std::string& path);

// Writes `bytes` to `path` atomically (an AtomicOutput, written and committed).
void write_file_atomically(const std::string& path, std::string_view bytes);

}  // namespace umsim::io
