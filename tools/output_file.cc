#include "tools/output_file.h"

#include <iostream>
#include <stdexcept>

#include "io/atomic_output.h"
#include "io/same_file.h"

namespace umsim::cli {

void refuse_input_as_output(const std::string& path, const std::vector<std::string>& inputs) {
  if (path != "-") io::refuse_output_naming_input(path, inputs);
}

void write_output(const std::string& path, const std::string& text, const std::vector<std::string>& inputs) {
  if (path == "-") {
    std::cout << text;  // main checks that standard output was written
    return;
  }
  io::refuse_output_naming_input(path, inputs);
  io::write_file_atomically(path, text);
}

}  // namespace umsim::cli
