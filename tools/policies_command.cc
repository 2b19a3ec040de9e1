// `umsim policies`: every registered policy by kind, with its parameters (type,
// default, one line of documentation), and the vendor presets. --json PATH writes the
// same as JSON for scripts.
#include <iostream>
#include <string>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "policies/policy_kinds.h"
#include "policies/vendor_presets.h"
#include "tools/command.h"
#include "tools/output_file.h"

namespace umsim::cli {
namespace {

using policies::PolicyKind;
using policies::Registry;

struct Options {
  std::string json;  // path; "-": standard output instead of the listing
  std::string kind;
  bool text() const { return json != "-"; }
};

template <typename Interface>
void list_kind(const Options& o, nlohmann::ordered_json& out) {
  const std::string kind = PolicyKind<Interface>::name;
  if (!o.kind.empty() && o.kind != kind) return;
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  if (o.text()) std::cout << "--" << kind << " policies:\n";
  for (const auto& [name, info] : Registry<Interface>::instance().entries()) {
    nlohmann::ordered_json params = nlohmann::ordered_json::array();
    if (o.text()) std::cout << fmt::format("  {:<16} {}\n", name, info.doc);
    for (const auto& p : info.params) {
      params.push_back({{"name", p.name}, {"type", to_string(p.type)}, {"default", p.default_value}, {"doc", p.doc}});
      if (o.text())
        std::cout << fmt::format("      {:<14} {:<9} default {:<8} {}\n", p.name, to_string(p.type), p.default_value,
                                 p.doc);
    }
    list.push_back({{"name", name}, {"doc", info.doc}, {"params", params}});
  }
  if (o.text()) std::cout << "\n";
  out[kind] = list;
}

void run(const Options& o) {
  static const char* kKinds[] = {"prefetch", "evict", "migrate", "thrashing"};
  if (!o.kind.empty() && o.kind != "vendor") {
    bool known = false;
    for (const char* k : kKinds) known |= o.kind == k;
    if (!known)
      throw policies::PolicyError("unknown policy kind '" + o.kind +
                                  "' (known: prefetch, evict, migrate, thrashing, vendor)");
  }
  nlohmann::ordered_json out;
  list_kind<sim::PrefetchPolicy>(o, out);
  list_kind<sim::EvictionPolicy>(o, out);
  list_kind<sim::MigrationPolicy>(o, out);
  list_kind<sim::ThrashingPolicy>(o, out);
  if (o.kind.empty() || o.kind == "vendor") {
    nlohmann::ordered_json presets = nlohmann::ordered_json::array();
    if (o.text()) std::cout << "--vendor presets:\n";
    for (const auto& p : policies::vendor_presets()) {
      presets.push_back({{"name", p.name},
                         {"doc", p.doc},
                         {"prefetch", p.policies.prefetch},
                         {"evict", p.policies.evict},
                         {"migrate", p.policies.migrate},
                         {"thrashing", p.policies.thrashing},
                         {"semantics", p.semantics.to_json()}});
      if (o.text())
        std::cout << fmt::format("  {:<16} {}\n      --prefetch {} --evict {} --migrate {} --thrashing {}\n", p.name,
                                 p.doc, p.policies.prefetch, p.policies.evict, p.policies.migrate,
                                 p.policies.thrashing);
    }
    out["vendor"] = presets;
  }
  if (!o.json.empty()) write_output(o.json, out.dump(2) + "\n");
}

}  // namespace

UMSIM_REGISTER_COMMAND("policies", 60, [](CLI::App& app) {
  auto opts = std::make_shared<Options>();
  auto* cmd = app.add_subcommand("policies", "List every policy with its parameters and defaults, and the vendor presets");
  cmd->add_option("--json", opts->json, "write the listing as JSON to this file ('-': standard output)");
  cmd->add_option("--kind", opts->kind, "only this kind: prefetch, evict, migrate, thrashing or vendor");
  cmd->callback([opts] { run(*opts); });
});

}  // namespace umsim::cli
