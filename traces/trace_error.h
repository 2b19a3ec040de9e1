#pragma once

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

}  // namespace umsim::trace
