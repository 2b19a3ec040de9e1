#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>

namespace umsim::trace {

// A malformed or semantically invalid trace. what() is a complete message that
// names the source and the line or byte offset, e.g.
// "bad.txt:7: unknown unit 'MB' in '64MB' (expected B, KiB, MiB, GiB, TiB)".
class TraceError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A comment line longer than a trace holds (kMaxCommentBytes), thrown by the
// writers' comment(); what() is "TARGET: PROBLEM". A converter catches it to
// name where in its input the comment came from.
class CommentTooLongError : public TraceError {
 public:
  CommentTooLongError(const std::string& target, std::size_t bytes, std::size_t limit)
      : TraceError(target + ": " + describe(bytes, limit)), target_(target), problem_(describe(bytes, limit)) {}
  const std::string& target() const { return target_; }
  const std::string& problem() const { return problem_; }

 private:
  static std::string describe(std::size_t bytes, std::size_t limit) {
    return "comment line of " + std::to_string(bytes) + " bytes is longer than the " + std::to_string(limit) +
           " bytes a trace holds in one comment line";
  }
  std::string target_;
  std::string problem_;
};

}  // namespace umsim::trace
