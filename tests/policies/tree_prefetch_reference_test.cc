// The optimised tree prefetcher against a naive, bit-by-bit statement of the
// driver's algorithm (docs/policies.md) on random seeded requests: random
// residency, faults, thrashing and excluded pages, short blocks, thresholds,
// big page sizes, CPU or GPU destination and preferred-location flags.
#include <random>

#include <gtest/gtest.h>

#include "tests/policies/policy_test_util.h"

namespace umsim::policies {
namespace {

using namespace testing;

sim::PageMask naive_tree(const sim::PrefetchRequest& r, std::uint32_t threshold, std::uint32_t min_faults,
                         std::uint32_t big) {
  const std::uint32_t n = r.pages_in_block;
  sim::PageMask none;
  bool any_fault = false;
  for (std::uint32_t p = 0; p < n; ++p) any_fault |= r.faulted.test(p);
  if (!any_fault || r.fault_migrations_to_destination < min_faults) return none;
  sim::PageMask blocking = r.thrashing;
  if (!r.destination.is_cpu()) blocking |= r.excluded;
  std::vector<bool> region(n, false);
  if (r.resident_anywhere.none() && r.destination_is_preferred) {
    region.assign(n, true);
  } else if (!r.preferred_location_elsewhere) {
    std::vector<bool> bitmap(n);
    for (std::uint32_t p = 0; p < n; ++p) bitmap[p] = r.resident_on_destination.test(p) || r.faulted.test(p);
    // Big pages (and the tail after the last whole one) with a fault and no blocking page.
    for (std::uint32_t first = 0; first < n; first += big) {
      const std::uint32_t end = first + big <= n ? first + big : n;
      bool faulted = false, blocked = false;
      for (std::uint32_t p = first; p < end; ++p) {
        faulted |= r.faulted.test(p);
        blocked |= blocking.test(p);
      }
      if (faulted && !blocked)
        for (std::uint32_t p = first; p < end; ++p) bitmap[p] = true;
    }
    std::uint32_t levels = 1;
    while ((1u << (levels - 1)) < n) ++levels;
    for (std::uint32_t page = 0; page < n; ++page) {
      if (!r.faulted.test(page) || blocking.test(page)) continue;
      std::uint32_t best_first = 0, best_end = 0;
      for (std::uint32_t level = 0; level < levels; ++level) {  // leaf to root, the last qualifying wins
        const std::uint32_t span = 1u << level;
        const std::uint32_t first = page / span * span;
        const std::uint32_t end = std::min(first + span, n);
        std::uint32_t count = 0;
        for (std::uint32_t p = first; p < end; ++p) count += bitmap[p];
        if (count * 100 > (end - first) * threshold) {
          best_first = first;
          best_end = end;
        }
      }
      for (std::uint32_t p = best_first; p < best_end; ++p) region[p] = true;
    }
  }
  sim::PageMask out;
  for (std::uint32_t p = 0; p < n; ++p)
    if (region[p] && !r.faulted.test(p) && !r.excluded.test(p) && !r.thrashing.test(p) &&
        !r.resident_on_destination.test(p))
      out.set(p);
  return out;
}

sim::PageMask random_mask(std::mt19937& rng, std::uint32_t n, std::uint32_t percent) {
  sim::PageMask m;
  // Clustered: runs of random length, so big pages and subtrees fill up.
  for (std::uint32_t p = 0; p < n;) {
    const std::uint32_t run = 1 + rng() % 48;
    const bool on = rng() % 100 < percent;
    for (std::uint32_t q = p; q < std::min(n, p + run); ++q) m.set(q, on);
    p += run;
  }
  return m;
}

TEST(TreePrefetchReference, MatchesTheNaiveAlgorithm) {
  std::mt19937 rng(2024);
  const std::uint32_t thresholds[] = {1, 25, 50, 51, 75, 99, 100};
  const std::uint32_t bigs[] = {1, 4, 16, 32, 128, 512};
  int nonempty = 0;
  for (int iter = 0; iter < 4000; ++iter) {
    const std::uint32_t threshold = thresholds[rng() % 7];
    const std::uint32_t big = bigs[rng() % 6];
    const std::uint32_t min_faults = 1 + rng() % 3;
    auto policy = make<sim::PrefetchPolicy>("tree:threshold=" + std::to_string(threshold) +
                                            ",min_faults=" + std::to_string(min_faults) +
                                            ",big_page=" + std::to_string(big * 4) + "KiB");
    sim::PrefetchRequest r;
    r.pages_in_block = rng() % 4 == 0 ? 1 + rng() % 512 : 512;
    const std::uint32_t n = r.pages_in_block;
    r.destination = rng() % 4 == 0 ? sim::Processor::cpu() : sim::Processor::gpu(0);
    r.resident_on_destination = random_mask(rng, n, rng() % 60);
    r.faulted = random_mask(rng, n, 5 + rng() % 30) & ~r.resident_on_destination;
    r.resident_anywhere = r.resident_on_destination | random_mask(rng, n, rng() % 2 ? 0 : 30);
    if (rng() % 3 == 0) r.thrashing = random_mask(rng, n, 5);
    if (rng() % 3 == 0) r.excluded = random_mask(rng, n, 5);
    r.excluded |= r.thrashing;
    r.destination_is_preferred = rng() % 6 == 0;
    r.preferred_location_elsewhere = !r.destination_is_preferred && rng() % 8 == 0;
    r.fault_migrations_to_destination = static_cast<std::uint32_t>(r.faulted.count()) + rng() % 2;
    sim::PageMask got;
    policy->prefetch(r, got);
    const sim::PageMask want = naive_tree(r, threshold, min_faults, big);
    ASSERT_EQ(list(got), list(want)) << "iteration " << iter << " threshold " << threshold << " big " << big
                                     << " pages " << n << (r.destination.is_cpu() ? " to cpu" : " to gpu");
    nonempty += want.any();
  }
  EXPECT_GT(nonempty, 1000);  // the random requests do exercise prefetching
}

}  // namespace
}  // namespace umsim::policies
