// Finds the `umsim trace` parent command that nested trace commands attach to
// (gen, import), creating it only when the trace command is not linked in.
#pragma once

#include <CLI/CLI.hpp>

namespace umsim::cli {

inline CLI::App& trace_parent_command(CLI::App& app) {
  for (CLI::App* sub : app.get_subcommands([](CLI::App* a) { return a->get_name() == "trace"; })) return *sub;
  CLI::App* trace = app.add_subcommand("trace", "trace tools: generate, import, convert, inspect and check traces");
  trace->require_subcommand(1);
  return *trace;
}

}  // namespace umsim::cli
