// Random prefetch (UVMSmart's "random-4K" baseline): every faulted page brings
// `count` pages of its 2 MiB block chosen uniformly at random (seeded) along.
#include <random>

#include "policies/internal/page_words.h"
#include "policies/policy_kinds.h"

namespace umsim::policies {
namespace {

class RandomPrefetcher final : public sim::PrefetchPolicy {
 public:
  explicit RandomPrefetcher(const Params& p)
      : count_(p.get_int("count")), rng_(static_cast<std::uint64_t>(p.get_int("seed"))) {
    if (count_ < 0 || count_ > sim::kPagesPerBlock)
      throw PolicyError("prefetch policy 'random': count must be 0..512 pages, got " + std::to_string(count_));
  }
  void prefetch(const sim::PrefetchRequest& r, sim::PageMask& out) override {
    if (r.pages_in_block == 0) return;
    PageWords faulted = PageWords::of(r.faulted);
    faulted.truncate(r.pages_in_block);
    const std::int64_t draws = count_ * faulted.count();
    PageWords picked;
    for (std::int64_t i = 0; i < draws; ++i) picked.set(static_cast<std::uint32_t>(rng_() % r.pages_in_block));
    picked.clear(PageWords::of(r.faulted));
    picked.clear(PageWords::of(r.excluded));
    picked.clear(PageWords::of(r.resident_on_destination));
    out |= picked.mask();
  }

 private:
  std::int64_t count_;
  std::mt19937_64 rng_;
};

}  // namespace

UMSIM_REGISTER_POLICY(sim::PrefetchPolicy, RandomPrefetcher, "random",
                      "random (UVMSmart random-4K): each faulted page brings `count` random pages of its block",
                      {{"count", ParamType::kInt, "1", "pages drawn per faulted page (duplicates count once)"},
                       {"seed", ParamType::kInt, "1", "random generator seed"}});

}  // namespace umsim::policies
