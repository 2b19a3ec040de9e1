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
  const std::string migrate = pick(choice.migrate, preset.policies.migrate);
  if (!preset.semantics.gpu_faults_migrate && migrate.substr(0, migrate.find(':')) != preset.policies.migrate)
    // XNACK off: a GPU fault is fatal, so managed memory is zero-copy and no GPU access ever migrates a page.
    throw policies::PolicyError("--vendor " + preset.name + " takes only --migrate " + preset.policies.migrate +
                                ": its GPU faults are fatal, so no GPU access migrates a page (got --migrate " +
                                migrate + ")");
  p.migration = create<sim::MigrationPolicy>(migrate, p.resolved);
  p.thrashing = create<sim::ThrashingPolicy>(pick(choice.thrashing, preset.policies.thrashing), p.resolved);
  return p;
}

}  // namespace umsim::cli
