// Example prefetch policy (see docs/policies.md): on a fault, also migrate the
// next `blocks` VA blocks of the allocation, the streaming prefetch the tree
// prefetcher cannot do (it never leaves the faulting 2 MiB block). It shows
// prefetch_beyond and its budget: the engine asks only because
// beyond_block_budget() is non-zero, and moves at most that many blocks (and
// never more than sim::kMaxPrefetchBlocksBeyond) per serviced block.
#include <cstdint>
#include <string>
#include <vector>

#include "policies/policy_kinds.h"

namespace umsim::policies::examples {
namespace {

class NextBlocksPrefetch final : public sim::PrefetchPolicy {
 public:
  explicit NextBlocksPrefetch(const Params& p)
      : blocks_(static_cast<std::uint32_t>(p.get_int("blocks"))), whole_(p.get_bool("whole_block")) {
    if (p.get_int("blocks") < 1 || p.get_int("blocks") > sim::kMaxPrefetchBlocksBeyond)
      throw PolicyError("prefetch policy 'next-blocks': blocks must be 1 to " +
                        std::to_string(sim::kMaxPrefetchBlocksBeyond) + ", got " + std::to_string(p.get_int("blocks")));
  }

  // Within the faulting block: the rest of it when whole_block, else only the faulted pages.
  void prefetch(const sim::PrefetchRequest& r, sim::PageMask& out) override {
    if (!whole_ || r.preferred_location_elsewhere) return;
    for (std::uint32_t i = 0; i < r.pages_in_block; ++i) out.set(i);
  }

  std::uint32_t beyond_block_budget() const override { return blocks_; }

  // The next `blocks` blocks, whole (the engine trims the allocation's end and what is already there).
  void prefetch_beyond(const sim::PrefetchRequest& r, std::vector<sim::BlockPages>& out) override {
    if (r.preferred_location_elsewhere) return;
    sim::PageMask all;
    all.set();
    for (std::uint32_t k = 1; k <= blocks_; ++k) out.push_back({r.block + k, all});
  }

 private:
  std::uint32_t blocks_;
  bool whole_;
};

}  // namespace

UMSIM_REGISTER_POLICY(sim::PrefetchPolicy, NextBlocksPrefetch, "next-blocks",
                      "example: on a fault also migrate the next N VA blocks of the allocation (streaming)",
                      {{"blocks", ParamType::kInt, "2", "VA blocks after the faulting one to migrate (1 to 32)"},
                       {"whole_block", ParamType::kBool, "true", "also fill the rest of the faulting block"}});

}  // namespace umsim::policies::examples
