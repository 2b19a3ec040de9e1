// Differential tests: each list-based eviction policy against a naive reference
// model (plain vectors, linear scans) on random seeded sequences of allocate /
// access / free / choose events over two GPUs, with a random evictable predicate.
// The victim must always be the reference's, and always a slot allocated on that GPU.
#include <algorithm>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "tests/policies/policy_test_util.h"

namespace umsim::policies {
namespace {

using namespace testing;

constexpr int kGpus = 2;
constexpr std::uint32_t kSlots = 12;

struct RefSlot {
  bool allocated = false;
  std::uint64_t alloc_order = 0;  // allocation time
  std::uint64_t last_use = 0;     // allocation or access time
  std::uint64_t count = 0;        // accesses since allocation
};

// Reference victim choices.
enum class Rule { kOldestAllocation, kLeastRecent, kLeastFrequent, kMostRecent };

std::uint32_t reference_victim(Rule rule, const std::vector<RefSlot>& slots, const std::vector<bool>& evictable) {
  std::uint32_t best = sim::kNoVictim;
  for (std::uint32_t s = 0; s < slots.size(); ++s) {
    if (!slots[s].allocated || !evictable[s]) continue;
    if (best == sim::kNoVictim) {
      best = s;
      continue;
    }
    const RefSlot& a = slots[s];
    const RefSlot& b = slots[best];
    bool better = false;
    switch (rule) {
      case Rule::kOldestAllocation: better = a.alloc_order < b.alloc_order; break;
      case Rule::kLeastRecent: better = a.last_use < b.last_use; break;
      case Rule::kLeastFrequent: better = a.count != b.count ? a.count < b.count : a.alloc_order < b.alloc_order; break;
      case Rule::kMostRecent: better = a.last_use > b.last_use; break;
    }
    if (better) best = s;
  }
  return best;
}

void differential(const std::string& spec, Rule rule) {
  for (std::uint32_t seed = 1; seed <= 20; ++seed) {
    std::mt19937 rng(seed);
    std::vector<std::vector<bool>> evictable(kGpus, std::vector<bool>(kSlots, true));
    sim::EvictionContext ctx = context(kSlots, kGpus);
    ctx.evictable = [&evictable](int gpu, std::uint32_t slot) { return static_cast<bool>(evictable[gpu][slot]); };
    auto p = make<sim::EvictionPolicy>(spec);
    p->attach(ctx);
    std::vector<std::vector<RefSlot>> ref(kGpus, std::vector<RefSlot>(kSlots));
    std::uint64_t now = 0;
    for (int step = 0; step < 400; ++step) {
      const int gpu = static_cast<int>(rng() % kGpus);
      const std::uint32_t slot = rng() % kSlots;
      RefSlot& r = ref[gpu][slot];
      const sim::ChunkInfo c = chunk(slot, 0, (std::uint64_t{gpu} * kSlots + slot) * 512, gpu);
      ++now;
      switch (rng() % 5) {
        case 0:
        case 1:  // access (or allocate if free)
          if (!r.allocated) {
            p->on_chunk_allocated(c, now);
            r = {true, now, now, 0};
          } else {
            p->on_chunk_accessed(c, now, now);
            r.last_use = now;
            ++r.count;
          }
          break;
        case 2:  // free
          if (r.allocated) {
            p->on_chunk_freed(c);
            r.allocated = false;
          }
          break;
        case 3:  // pin / unpin
          evictable[gpu][slot] = !evictable[gpu][slot];
          break;
        case 4: {  // choose, then evict
          const std::uint32_t want = reference_victim(rule, ref[gpu], evictable[gpu]);
          const std::uint32_t got = p->choose_victim(gpu, now);
          ASSERT_EQ(got, want) << spec << " seed " << seed << " step " << step << " gpu " << gpu;
          if (got != sim::kNoVictim) {
            p->on_chunk_freed(chunk(got, 0, (std::uint64_t{gpu} * kSlots + got) * 512, gpu));
            ref[gpu][got].allocated = false;
          }
          break;
        }
      }
    }
  }
}

TEST(EvictionReference, Fifo) { differential("fifo", Rule::kOldestAllocation); }
TEST(EvictionReference, Lru) { differential("lru", Rule::kLeastRecent); }
TEST(EvictionReference, Lfu) { differential("lfu", Rule::kLeastFrequent); }
TEST(EvictionReference, ExampleMru) { differential("mru", Rule::kMostRecent); }
// Without neighbours to queue (every chunk in its own 2 MiB region), tree pre-eviction is LRU.
TEST(EvictionReference, TreePreEvictionWithoutNeighboursIsLru) { differential("tree-preevict", Rule::kLeastRecent); }

// Policies with their own order (random, CLOCK) must still only return allocated,
// evictable slots of the GPU asked, and find one whenever one exists.
void only_valid_victims(const std::string& spec) {
  for (std::uint32_t seed = 1; seed <= 20; ++seed) {
    std::mt19937 rng(seed);
    std::vector<std::vector<bool>> evictable(kGpus, std::vector<bool>(kSlots, true));
    sim::EvictionContext ctx = context(kSlots, kGpus);
    ctx.evictable = [&evictable](int gpu, std::uint32_t slot) { return static_cast<bool>(evictable[gpu][slot]); };
    auto p = make<sim::EvictionPolicy>(spec);
    p->attach(ctx);
    std::vector<std::vector<bool>> allocated(kGpus, std::vector<bool>(kSlots, false));
    for (int step = 0; step < 400; ++step) {
      const int gpu = static_cast<int>(rng() % kGpus);
      const std::uint32_t slot = rng() % kSlots;
      const sim::ChunkInfo c = chunk(slot, 0, slot * 512, gpu);
      switch (rng() % 4) {
        case 0:
          if (!allocated[gpu][slot]) p->on_chunk_allocated(c, step);
          else p->on_chunk_accessed(c, step, step);
          allocated[gpu][slot] = true;
          break;
        case 1:
          if (allocated[gpu][slot]) p->on_chunk_freed(c);
          allocated[gpu][slot] = false;
          break;
        case 2:
          evictable[gpu][slot] = !evictable[gpu][slot];
          break;
        case 3: {
          bool any = false;
          for (std::uint32_t s = 0; s < kSlots; ++s) any |= allocated[gpu][s] && evictable[gpu][s];
          const std::uint32_t v = p->choose_victim(gpu, step);
          if (!any) {
            ASSERT_EQ(v, sim::kNoVictim) << spec << " seed " << seed << " step " << step;
            break;
          }
          ASSERT_LT(v, kSlots) << spec << " seed " << seed << " step " << step;
          ASSERT_TRUE(allocated[gpu][v] && evictable[gpu][v]) << spec << " seed " << seed << " step " << step;
          p->on_chunk_freed(chunk(v, 0, v * 512, gpu));
          allocated[gpu][v] = false;
          break;
        }
      }
    }
  }
}

TEST(EvictionReference, RandomReturnsOnlyValidVictims) { only_valid_victims("random"); }
TEST(EvictionReference, ClockReturnsOnlyValidVictims) { only_valid_victims("clock"); }

}  // namespace
}  // namespace umsim::policies
