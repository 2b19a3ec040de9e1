// Properties of the eviction policies on random seeded traces, through the engine:
//  - Belady's MIN never evicts more than any other registered policy at the same
//    capacity and chunk size (one fault serviced at a time, no prefetch: the
//    classic paging model), and is not a bound with the tree prefetcher;
//  - with memory larger than the footprint, every eviction policy gives
//    identical results (no policy may change anything when nothing is evicted).
#include <algorithm>
#include <iostream>
#include <map>
#include <random>
#include <sstream>

#include <gtest/gtest.h>

#include "tests/policies/replay_harness.h"

namespace umsim::policies {
namespace {

using namespace testing;

// One GPU, two managed allocations (24 MiB and 8 MiB), `kernels` kernels of
// `accesses` single-page accesses each, with a hot set and random cold pages.
std::string random_trace(std::uint32_t seed, int kernels, int accesses) {
  std::mt19937_64 rng(seed);
  std::ostringstream t;
  t << "umsim-trace 1\n"
    << "alloc a 24MiB managed\n"
    << "alloc b 8MiB managed\n";
  for (int k = 0; k < kernels; ++k) {
    t << "kernel k" << k << " gpu=0 compute=10us\n";
    for (int i = 0; i < accesses; ++i) {
      const bool hot = rng() % 4 != 0;
      const bool in_b = rng() % 3 == 0;
      const std::uint64_t pages = in_b ? 2048 : 6144;
      const std::uint64_t page = hot ? rng() % (pages / 8) : rng() % pages;
      t << "  " << (rng() % 5 == 0 ? "w " : "r ") << (in_b ? "b" : "a") << "+" << page * 4096 << " len=4KiB\n";
    }
    t << "end\n";
  }
  t << "sync all\n";
  return t.str();
}

// Every registered eviction policy with its defaults (a newly registered policy is
// covered without editing this file), plus parameter variants of the shipped ones.
std::vector<std::string> eviction_specs() {
  std::vector<std::string> specs;
  for (const auto& [name, _] : Registry<sim::EvictionPolicy>::instance().entries()) specs.push_back(name);
  for (const char* variant : {"random:seed=9", "fifo:unused_first=false", "lru:granularity=64KiB",
                              "clock:granularity=64KiB", "random:granularity=64KiB"})
    specs.push_back(variant);
  return specs;
}

sim::Bytes granularity_of(const std::string& spec) {
  return Registry<sim::EvictionPolicy>::instance().create(spec)->granularity();
}

// Belady's MIN is the fewest evictions in the classic paging model: one fault
// serviced at a time and no prefetch, so the chunks brought in depend on the
// trace alone. Each policy is compared with Belady at its own chunk size.
TEST(EvictionProperties, BeladyNeverEvictsMoreThanAnyOtherPolicy) {
  const std::vector<std::string> specs = eviction_specs();
  for (std::uint32_t seed = 1; seed <= 6; ++seed) {
    const std::string trace = random_trace(seed, 4, 300);
    ReplayOptions opt;
    opt.gpu_memory = 12 * 1024 * 1024;  // 6 chunks of 2 MiB for a 16-chunk footprint
    opt.one_fault_at_a_time = true;
    std::map<sim::Bytes, std::uint64_t> best, worst;  // by chunk size
    std::cout << "seed " << seed << ":";
    for (const std::string& spec : specs) {
      const sim::Bytes g = granularity_of(spec);
      Combo c;
      if (!best.count(g)) {
        c.specs.evict = "belady:granularity=" + std::to_string(g);
        best[g] = replay(trace, c, opt).total.evictions;
        EXPECT_GT(best[g], 0u) << "seed " << seed << ": the trace must oversubscribe at " << g << " bytes";
        std::cout << " belady@" << g << " " << best[g];
      }
      c.specs.evict = spec;
      const std::uint64_t evictions = replay(trace, c, opt).total.evictions;
      EXPECT_LE(best[g], evictions) << "seed " << seed << " vs " << spec;
      worst[g] = std::max(worst[g], evictions);
      std::cout << ", " << spec << " " << evictions;
    }
    std::cout << "\n";
    EXPECT_LT(best[2 << 20], worst[2 << 20]) << "seed " << seed << ": the trace does not separate the policies";
  }
}

// Outside that model Belady is not a bound, and docs/policies.md says so: a
// prefetcher's choices depend on what is resident (the tree prefetcher counts
// resident pages), so evicting the chunk used furthest in the future can cost
// more prefetch-driven refills later. This pins one such trace; if the model
// changes so that it no longer separates them, revisit the documentation.
// Found by searching seeds 1 to 40: batched faults with the tree prefetcher.
constexpr std::uint32_t kTreeCounterexampleSeed = 12;
constexpr const char* kTreeCounterexamplePolicy = "mru";

TEST(EvictionProperties, BeladyIsNotABoundWithTheTreePrefetcher) {
  ReplayOptions opt;
  opt.gpu_memory = 12 * 1024 * 1024;
  const std::string trace = random_trace(kTreeCounterexampleSeed, 4, 300);
  Combo c;
  c.specs.prefetch = "tree";
  c.specs.evict = "belady";
  const std::uint64_t belady = replay(trace, c, opt).total.evictions;
  c.specs.evict = kTreeCounterexamplePolicy;
  const std::uint64_t other = replay(trace, c, opt).total.evictions;
  EXPECT_GT(belady, other) << "belady " << belady << ", " << kTreeCounterexamplePolicy << " " << other;
  // Without the prefetcher the same batched replay keeps Belady ahead.
  c.specs.prefetch = "none";
  c.specs.evict = "belady";
  const std::uint64_t belady_alone = replay(trace, c, opt).total.evictions;
  c.specs.evict = kTreeCounterexamplePolicy;
  EXPECT_LE(belady_alone, replay(trace, c, opt).total.evictions);
}

TEST(EvictionProperties, InfiniteMemoryMakesEveryEvictionPolicyIdentical) {
  const char* prefetchers[] = {"none", "tree"};
  std::vector<std::string> specs = eviction_specs();
  specs.push_back("lru:granularity=4KiB");  // the random traces never fill 12 MiB of 4 KiB chunks: only here
  for (std::uint32_t seed = 1; seed <= 3; ++seed) {
    const std::string trace = random_trace(seed, 3, 200);
    ReplayOptions opt;
    opt.gpu_memory = 1024 * 1024 * 1024;
    for (const char* prefetch : prefetchers) {
      Combo c;
      c.specs.prefetch = prefetch;
      c.specs.thrashing = "driver";
      const Result reference = replay(trace, c, opt);
      EXPECT_EQ(reference.total.evictions, 0u);
      for (const std::string& evict : specs) {
        c.specs.evict = evict;
        const Result r = replay(trace, c, opt);
        EXPECT_EQ(to_json(r.total), to_json(reference.total)) << "seed " << seed << " " << c.label();
      }
    }
  }
}

}  // namespace
}  // namespace umsim::policies
