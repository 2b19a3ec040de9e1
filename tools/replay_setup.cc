#include "tools/replay_setup.h"

#include "policies/policy_kinds.h"
#include "policies/vendor_presets.h"

namespace umsim::cli {

namespace {
template <typename Interface>
std::unique_ptr<Interface> create(const std::string& spec, nlohmann::ordered_json& resolved) {
  nlohmann::ordered_json r;
  auto policy = policies::Registry<Interface>::instance().create(spec, &r);
  resolved[policies::PolicyKind<Interface>::name] = r;
  return policy;
}
}  // namespace

sim::EnginePolicies make_policies(const PolicyChoice& choice, sim::VendorSemantics* semantics) {
  const policies::VendorPreset& preset = policies::vendor_preset(choice.vendor);
  *semantics = preset.semantics;
  auto pick = [](const std::string& flag, const std::string& preset_spec) { return flag.empty() ? preset_spec : flag; };
  sim::EnginePolicies p;
  p.resolved["vendor"] = preset.name;
  p.prefetch = create<sim::PrefetchPolicy>(pick(choice.prefetch, preset.policies.prefetch), p.resolved);
  p.eviction = create<sim::EvictionPolicy>(pick(choice.evict, preset.policies.evict), p.resolved);
  p.migration = create<sim::MigrationPolicy>(pick(choice.migrate, preset.policies.migrate), p.resolved);
  p.thrashing = create<sim::ThrashingPolicy>(pick(choice.thrashing, preset.policies.thrashing), p.resolved);
  return p;
}

}  // namespace umsim::cli
