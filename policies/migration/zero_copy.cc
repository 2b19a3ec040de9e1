// AMD KFD with XNACK off: GPU page faults are fatal, so managed memory is
// fine-grained host memory mapped on every GPU (zero copy). A GPU access maps
// the page remotely where it lives (host memory unless an explicit prefetch
// moved it); CPU accesses keep the driver's default (a CPU touch of a page a
// prefetch moved to VRAM brings it back).
#include "policies/policy_kinds.h"

namespace umsim::policies {
namespace {

class ZeroCopyMigration final : public sim::MigrationPolicy {
 public:
  explicit ZeroCopyMigration(const Params&) {}
  sim::MigrationDecision decide(const sim::FaultContext& f, const sim::MigrationDecision& driver_default) override {
    if (!f.requester.is_gpu()) return driver_default;
    return {sim::Placement::kMapRemote, holder(f.resident_mask)};
  }

 private:
  // Where the page lives: the CPU if it holds a copy or nobody does, else the lowest GPU holding one.
  static sim::Processor holder(std::uint16_t resident_mask) {
    if (resident_mask == 0 || (resident_mask & 1u)) return sim::Processor::cpu();
    for (int code = 1; code < 16; ++code)
      if (resident_mask & (1u << code)) return sim::Processor{static_cast<std::int16_t>(code)};
    return sim::Processor::cpu();
  }
};

}  // namespace

UMSIM_REGISTER_POLICY(sim::MigrationPolicy, ZeroCopyMigration, "zero-copy",
                      "AMD XNACK off: managed memory stays in host memory; GPUs map it remotely unless prefetched",
                      {});

}  // namespace umsim::policies
