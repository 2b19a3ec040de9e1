// Properties of the eviction policies on random seeded traces, through the engine:
//  - Belady's MIN never evicts more than any other policy at the same capacity
//    (one fault serviced at a time, no prefetch: the classic paging model);
//  - with memory larger than the footprint, every eviction policy gives
//    identical results (no policy may change anything when nothing is evicted).
#include <algorithm>
#include <iostream>
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

const char* kEvictionPolicies[] = {"fifo", "lru", "lfu", "random", "random:seed=9", "clock", "fifo:unused_first=false"};

TEST(EvictionProperties, BeladyNeverEvictsMoreThanAnyOtherPolicy) {
  for (std::uint32_t seed = 1; seed <= 6; ++seed) {
    const std::string trace = random_trace(seed, 4, 300);
    ReplayOptions opt;
    opt.gpu_memory = 12 * 1024 * 1024;  // 6 chunks for a 16-chunk footprint
    opt.one_fault_at_a_time = true;
    Combo c;
    c.specs.evict = "belady";
    const Result best = replay(trace, c, opt);
    EXPECT_GT(best.total.evictions, 0u) << "seed " << seed << ": the trace must oversubscribe";
    std::uint64_t worst = 0;
    std::cout << "seed " << seed << ": belady " << best.total.evictions;
    for (const char* other : kEvictionPolicies) {
      c.specs.evict = other;
      const Result r = replay(trace, c, opt);
      EXPECT_LE(best.total.evictions, r.total.evictions) << "seed " << seed << " vs " << other;
      worst = std::max(worst, r.total.evictions);
      std::cout << ", " << other << " " << r.total.evictions;
    }
    std::cout << "\n";
    EXPECT_LT(best.total.evictions, worst) << "seed " << seed << ": the trace does not separate the policies";
  }
}

// The same at 64 KiB chunks, against the policies that manage memory at that size.
TEST(EvictionProperties, BeladyBeatsSmallChunkPolicies) {
  for (std::uint32_t seed = 11; seed <= 13; ++seed) {
    const std::string trace = random_trace(seed, 3, 300);
    ReplayOptions opt;
    opt.gpu_memory = 4 * 1024 * 1024;  // 64 chunks of 64 KiB
    opt.one_fault_at_a_time = true;
    Combo c;
    c.specs.evict = "belady:granularity=64KiB";
    const Result best = replay(trace, c, opt);
    EXPECT_GT(best.total.evictions, 0u);
    for (const char* other : {"tree-preevict", "lru:granularity=64KiB", "clock:granularity=64KiB",
                              "random:granularity=64KiB"}) {
      c.specs.evict = other;
      EXPECT_LE(best.total.evictions, replay(trace, c, opt).total.evictions) << "seed " << seed << " vs " << other;
    }
  }
}

TEST(EvictionProperties, InfiniteMemoryMakesEveryEvictionPolicyIdentical) {
  const char* prefetchers[] = {"none", "tree"};
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
      for (const char* evict : {"lru", "lfu", "random", "clock", "belady", "tree-preevict", "lru:granularity=64KiB",
                                "lru:granularity=4KiB"}) {
        c.specs.evict = evict;
        const Result r = replay(trace, c, opt);
        EXPECT_EQ(to_json(r.total), to_json(reference.total)) << "seed " << seed << " " << c.label();
      }
    }
  }
}

}  // namespace
}  // namespace umsim::policies
