#include "tools/resolved_policy_spec.h"

#include <optional>

#include "policies/policy_kinds.h"
#include "traces/units.h"

namespace umsim::cli {
namespace {

template <typename Interface>
const std::vector<policies::ParamSpec>* params_of(const std::string& name) {
  const auto& entries = policies::Registry<Interface>::instance().entries();
  const auto it = entries.find(name);
  return it == entries.end() ? nullptr : &it->second.params;
}

const std::vector<policies::ParamSpec>* params_of(const std::string& kind, const std::string& name) {
  if (kind == "prefetch") return params_of<sim::PrefetchPolicy>(name);
  if (kind == "evict") return params_of<sim::EvictionPolicy>(name);
  if (kind == "migrate") return params_of<sim::MigrationPolicy>(name);
  if (kind == "thrashing") return params_of<sim::ThrashingPolicy>(name);
  return nullptr;
}

std::optional<policies::ParamType> type_of(const std::vector<policies::ParamSpec>* specs, const std::string& param) {
  if (specs)
    for (const auto& s : *specs)
      if (s.name == param) return s.type;
  return std::nullopt;
}

std::string value_text(const nlohmann::ordered_json& v, std::optional<policies::ParamType> type) {
  if (type == policies::ParamType::kBytes && v.is_number_unsigned()) return trace::format_bytes(v.get<std::uint64_t>());
  if (type == policies::ParamType::kDuration && v.is_number_unsigned())
    return trace::format_duration_ns(v.get<std::uint64_t>());
  if (v.is_string()) return v.get<std::string>();
  return v.dump();
}

}  // namespace

std::string resolved_policy_spec(const std::string& kind, const nlohmann::ordered_json& resolved) {
  const std::string name = resolved.at("name").get<std::string>();
  const auto* specs = params_of(kind, name);
  std::string spec = name;
  char separator = ':';
  if (resolved.contains("params"))
    for (const auto& [param, value] : resolved.at("params").items()) {
      spec += separator + param + "=" + value_text(value, type_of(specs, param));
      separator = ',';
    }
  return spec;
}

bool takes_unset_seed(const std::string& kind, const std::string& spec) {
  const auto colon = spec.find(':');
  if (!type_of(params_of(kind, spec.substr(0, colon)), "seed")) return false;
  if (colon == std::string::npos) return true;
  // The overrides are "k=v,k=v"; the seed is unset when no key is "seed".
  const std::string overrides = "," + spec.substr(colon + 1);
  return overrides.find(",seed=") == std::string::npos;
}

}  // namespace umsim::cli
