#include "io/standard_output.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>

#include "io/atomic_output.h"
#include "io/descriptor_buffer.h"

namespace umsim::io {
namespace {

// Never destroyed: std::cout is flushed once more after static destructors run.
DescriptorBuffer* g_buffer = nullptr;

}  // namespace

void keep_standard_output_errors() {
  if (g_buffer != nullptr) return;
  g_buffer = new DescriptorBuffer(STDOUT_FILENO);
  std::cout.rdbuf(g_buffer);
}

std::string flush_standard_output() {
  errno = 0;
  std::cout.flush();
  if (g_buffer != nullptr && g_buffer->error() != 0) return std::strerror(g_buffer->error());
  const bool stream_failed = !std::cout;
  const bool stdio_failed = std::fflush(stdout) != 0 || std::ferror(stdout);
  if (!stream_failed && !stdio_failed) return "";
  return errno != 0 ? std::strerror(errno) : "write error";
}

void check_standard_output() {
  if (const std::string error = flush_standard_output(); !error.empty())
    throw OutputError("cannot write the standard output: " + error);
}

}  // namespace umsim::io
