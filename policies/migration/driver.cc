// Keeps the engine's hint-aware default (ReadMostly, PreferredLocation and
// AccessedBy semantics of the selected vendor): the drivers' fault-time behaviour.
#include "policies/policy_kinds.h"

namespace umsim::policies {
namespace {

class DriverMigration final : public sim::MigrationPolicy {
 public:
  explicit DriverMigration(const Params&) {}
  sim::MigrationDecision decide(const sim::FaultContext&, const sim::MigrationDecision& driver_default) override {
    return driver_default;
  }
  bool keeps_driver_default() const override { return true; }
};

}  // namespace

UMSIM_REGISTER_POLICY(sim::MigrationPolicy, DriverMigration, "driver",
                      "the driver's hint-aware default: migrate on fault, honouring ReadMostly / "
                      "PreferredLocation / AccessedBy",
                      {});

}  // namespace umsim::policies
