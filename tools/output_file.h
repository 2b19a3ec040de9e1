// Where `--json PATH` goes in every command: "-" is standard output; a file is
// written whole or not at all (io/atomic_output.h), and a path naming one of
// the command's inputs is refused before anything is written.
#pragma once

#include <string>
#include <vector>

namespace umsim::cli {

// Throws std::runtime_error ("PATH: ...") when PATH names an input or cannot be written.
void write_output(const std::string& path, const std::string& text, const std::vector<std::string>& inputs = {});

// Throws when `path` names one of `inputs` (the same file, by identity where both exist).
void refuse_input_as_output(const std::string& path, const std::vector<std::string>& inputs);

}  // namespace umsim::cli
