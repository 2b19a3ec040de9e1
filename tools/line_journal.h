// An append-only file of whole lines that survives a kill, a Slurm time-out
// or a full disk: each line is appended with one write and forced to disk
// (fsync) before append() returns, and a write that fails part-way is cut
// off again, so the file only ever holds complete lines. `umsim sweep`
// journals each finished point this way, and `--resume` reads them back.
#pragma once

#include <string>
#include <vector>

namespace umsim::cli {

class LineJournal {
 public:
  // Opens (creating) `path` for appending; a trailing incomplete line left by
  // an earlier crash is cut off first. Throws std::runtime_error naming the path.
  explicit LineJournal(std::string path);
  ~LineJournal();
  LineJournal(const LineJournal&) = delete;
  LineJournal& operator=(const LineJournal&) = delete;

  // Appends `line` (without its '\n') and fsyncs. Not thread-safe. Throws
  // std::runtime_error ("PATH: cannot append: REASON"); the file is then as before.
  void append(const std::string& line);

  const std::string& path() const { return path_; }

 private:
  std::string path_;
  int fd_ = -1;
};

// The complete ('\n'-terminated) lines of `path`, without the '\n'; an
// incomplete last line is left out. An empty vector when `path` does not
// exist. Throws std::runtime_error when it exists but cannot be read.
std::vector<std::string> read_complete_lines(const std::string& path);

}  // namespace umsim::cli
