// umsim: the command-line entry point. Sub-commands register themselves
// (tools/command.h); this file only builds the parser and reports errors.
// Exit status: 0 success, 1 an error in the input or the run, 2 a usage error
// (unknown command or option, missing or malformed argument).
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

namespace {

constexpr int kUsageError = 2;

// CLI11 reads a word it does not know where a sub-command is required as a
// missing sub-command; name the word instead. Walks the command words given
// and returns "" when they all exist.
std::string unknown_command(CLI::App& app, int argc, char** argv) {
  CLI::App* level = &app;
  std::string path;
  for (int i = 1; i < argc && level->get_require_subcommand_min() > 0; ++i) {
    const std::string word = argv[i];
    if (word.empty() || word[0] == '-') return "";  // an option: CLI11 reports it
    CLI::App* next = nullptr;
    std::string known;
    for (CLI::App* sub : level->get_subcommands([](CLI::App*) { return true; })) {
      known += (known.empty() ? "" : ", ") + sub->get_name();
      if (sub->get_name() == word) next = sub;
    }
    path += (path.empty() ? "" : " ") + word;
    if (next == nullptr) return "unknown command '" + path + "' (commands: " + known + ")";
    level = next;
  }
  return "";
}

}  // namespace
}  // namespace umsim::cli

int main(int argc, char** argv) {
  umsim::io::keep_standard_output_errors();
  CLI::App app{"umsim: unified-memory (managed memory / UVM / SVM) emulator and policy testbed"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("umsim ") + umsim::cli::kUmsimVersion + " (commit " +
                                        umsim::cli::umsim_git_commit() + ")");
  auto& cmds = umsim::cli::commands();
  std::sort(cmds.begin(), cmds.end(), [](const auto& a, const auto& b) {
    return a.order != b.order ? a.order < b.order : a.name < b.name;
  });
  for (const auto& c : cmds) c.setup(app);
  if (const std::string unknown = umsim::cli::unknown_command(app, argc, argv); !unknown.empty()) {
    std::cerr << "umsim: " << unknown << "\nRun with --help for more information.\n";
    return umsim::cli::kUsageError;
  }
  int status = 0;
  std::string reported;  // a command that checked standard output itself has said why it failed
  try {
    app.parse(argc, argv);
    status = umsim::cli::exit_status();
  } catch (const CLI::ParseError& e) {
    // --help and --version exit 0; every usage error exits 2 (not CLI11's own codes).
    status = app.exit(e) == 0 ? 0 : umsim::cli::kUsageError;
  } catch (const std::exception& e) {
    reported = e.what();
    std::cerr << "umsim: " << reported << "\n";
    status = 1;
  }
  try {
    umsim::io::check_standard_output();
  } catch (const std::exception& e) {
    if (e.what() != reported) std::cerr << "umsim: " << e.what() << "\n";
    return 1;
  }
  return status;
}
