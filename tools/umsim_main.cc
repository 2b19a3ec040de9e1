// umsim: the command-line entry point. Sub-commands register themselves
// (tools/command.h); this file only builds the parser and reports errors.
#include <algorithm>
#include <exception>
#include <iostream>
#include <string>

#include <CLI/CLI.hpp>

#include "io/standard_output.h"
#include "tools/build_info.h"
#include "tools/command.h"

namespace umsim::cli {

std::vector<CommandInfo>& commands() {
  static std::vector<CommandInfo> list;
  return list;
}

int& exit_status() {
  static int status = 0;
  return status;
}

}  // namespace umsim::cli

int main(int argc, char** argv) {
  CLI::App app{"umsim: unified-memory (managed memory / UVM / SVM) emulator and policy testbed"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("umsim ") + umsim::cli::kUmsimVersion + " (commit " +
                                        umsim::cli::umsim_git_commit() + ")");
  auto& cmds = umsim::cli::commands();
  std::sort(cmds.begin(), cmds.end(), [](const auto& a, const auto& b) {
    return a.order != b.order ? a.order < b.order : a.name < b.name;
  });
  for (const auto& c : cmds) c.setup(app);
  int status = 0;
  try {
    app.parse(argc, argv);
    status = umsim::cli::exit_status();
  } catch (const CLI::ParseError& e) {
    status = app.exit(e);
  } catch (const std::exception& e) {
    std::cerr << "umsim: " << e.what() << "\n";
    status = 1;
  }
  if (const std::string error = umsim::io::flush_standard_output(); !error.empty()) {
    std::cerr << "umsim: cannot write the standard output: " << error << "\n";
    return 1;
  }
  return status;
}
