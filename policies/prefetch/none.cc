// No prefetching: only faulted pages move.
#include "policies/policy_kinds.h"

namespace umsim::policies {
namespace {

class NoPrefetch final : public sim::PrefetchPolicy {
 public:
  explicit NoPrefetch(const Params&) {}
  void prefetch(const sim::PrefetchRequest&, sim::PageMask&) override {}
  bool never_prefetches() const override { return true; }
};

}  // namespace

UMSIM_REGISTER_POLICY(sim::PrefetchPolicy, NoPrefetch, "none", "no prefetching: only faulted pages migrate", {});

}  // namespace umsim::policies
