// The check that an output does not name one of the command's inputs: a
// command that truncated its own input would destroy it before reading it.
// Files are compared by device and inode, so another spelling of the same
// path, a hard link or a symbolic link is caught too.
#pragma once

#include <string>
#include <vector>

namespace umsim::io {

// True when both paths exist and are the same file.
bool same_file(const std::string& a, const std::string& b);

// Throws io::OutputError ("OUTPUT: refusing to write the output over the input INPUT
// (the same file)") when `output` is the same file as one of `inputs`. Call it
// before opening anything.
void refuse_output_naming_input(const std::string& output, const std::vector<std::string>& inputs);

}  // namespace umsim::io
