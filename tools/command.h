// Self-registering `umsim` sub-commands. Each command lives in its own .cc file
// (a cc_library with alwayslink = True) and registers a setup function:
//
//   UMSIM_REGISTER_COMMAND("replay", 20, [](CLI::App& app) { ... });
//
// The order key sorts commands in --help. A command's callback returns the
// process exit status; errors in user input throw and are reported by main
// as "umsim: <message>" with exit status 1 (2 for command-line syntax).
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace umsim::cli {

struct CommandInfo {
  std::string name;
  int order;
  std::function<void(CLI::App& parent)> setup;  // adds the sub-command to `parent`
};

std::vector<CommandInfo>& commands();

struct CommandRegistrar {
  CommandRegistrar(std::string name, int order, std::function<void(CLI::App&)> setup) {
    commands().push_back({std::move(name), order, std::move(setup)});
  }
};

// Set by a command's callback; main returns it.
int& exit_status();

}  // namespace umsim::cli

#define UMSIM_COMMAND_CONCAT_INNER(a, b) a##b
#define UMSIM_COMMAND_CONCAT(a, b) UMSIM_COMMAND_CONCAT_INNER(a, b)
#define UMSIM_REGISTER_COMMAND(name, order, setup) \
  static ::umsim::cli::CommandRegistrar UMSIM_COMMAND_CONCAT(umsim_command_, __LINE__)(name, order, setup)
