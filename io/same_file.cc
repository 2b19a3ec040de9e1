#include "io/same_file.h"

#include <sys/stat.h>

#include "io/atomic_output.h"

namespace umsim::io {

bool same_file(const std::string& a, const std::string& b) {
  struct stat sa {}, sb {};
  if (::stat(a.c_str(), &sa) != 0 || ::stat(b.c_str(), &sb) != 0) return false;
  return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

void refuse_output_naming_input(const std::string& output, const std::vector<std::string>& inputs) {
  for (const std::string& input : inputs)
    if (!output.empty() && !input.empty() && same_file(output, input))
      throw OutputError(output + ": refusing to write the output over the input " + input + " (the same file)");
}

}  // namespace umsim::io
