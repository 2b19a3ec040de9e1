// No thrashing detection (AMD KFD has none; also a baseline for NVIDIA studies).
#include "policies/policy_kinds.h"

namespace umsim::policies {
namespace {

class NoThrashing final : public sim::ThrashingPolicy {
 public:
  explicit NoThrashing(const Params&) {}
  sim::ThrashingResponse on_migration(const sim::MigrationNotice&) override { return {}; }
  bool never_responds() const override { return true; }
};

}  // namespace

UMSIM_REGISTER_POLICY(sim::ThrashingPolicy, NoThrashing, "none",
                      "no thrashing detection or mitigation (AMD KFD behaviour)", {});

}  // namespace umsim::policies
