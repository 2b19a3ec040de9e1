#include "io/standard_output.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>

namespace umsim::io {

std::string flush_standard_output() {
  errno = 0;
  std::cout.flush();
  const bool stream_failed = !std::cout;
  const bool stdio_failed = std::fflush(stdout) != 0 || std::ferror(stdout);
  if (!stream_failed && !stdio_failed) return "";
  return errno != 0 ? std::strerror(errno) : "write error";
}

}  // namespace umsim::io
