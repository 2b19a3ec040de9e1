// Eviction policies on hand-made chunk event sequences with hand-computed victims.
#include <map>
#include <set>

#include <gtest/gtest.h>

#include "tests/policies/policy_test_util.h"

namespace umsim::policies {
namespace {

using namespace testing;
using sim::kNoVictim;

std::unique_ptr<sim::EvictionPolicy> attached(const std::string& spec, std::uint32_t chunks,
                                              sim::EvictionContext ctx = {}) {
  auto p = make<sim::EvictionPolicy>(spec);
  ctx.gpus = ctx.gpus ? ctx.gpus : 1;
  ctx.chunks_per_gpu = chunks;
  p->attach(ctx);
  return p;
}

TEST(FifoEviction, EvictsInAllocationOrderNotAccessOrder) {
  auto p = attached("fifo", 4);
  EXPECT_EQ(p->choose_victim(0, 0), kNoVictim);
  for (std::uint32_t s : {2u, 0u, 1u}) p->on_chunk_allocated(chunk(s), 0);
  p->on_chunk_accessed(chunk(2), 1, 0);  // ignored: the driver does not track accesses
  EXPECT_FALSE(p->wants_access_callbacks());
  EXPECT_EQ(p->choose_victim(0, 0), 2u);
  p->on_chunk_freed(chunk(2));
  EXPECT_EQ(p->choose_victim(0, 0), 0u);
}

// The driver's lists: a chunk whose block lost all its resident pages goes to the
// "unused" list, evicted first; becoming resident again moves it to the used tail.
TEST(FifoEviction, UnusedChunksFirstThenUsedInResidencyOrder) {
  auto p = attached("fifo", 4);
  for (std::uint32_t s : {0u, 1u, 2u}) p->on_chunk_allocated(chunk(s), 0);
  p->on_chunk_residency_changed(chunk(1), false, 0);
  EXPECT_EQ(p->choose_victim(0, 0), 1u);
  p->on_chunk_residency_changed(chunk(1), true, 0);  // used list: 0, 2, 1
  EXPECT_EQ(p->choose_victim(0, 0), 0u);
  p->on_chunk_freed(chunk(0));
  EXPECT_EQ(p->choose_victim(0, 0), 2u);

  auto plain = attached("fifo:unused_first=false", 4);
  for (std::uint32_t s : {0u, 1u, 2u}) plain->on_chunk_allocated(chunk(s), 0);
  plain->on_chunk_residency_changed(chunk(1), false, 0);
  EXPECT_EQ(plain->choose_victim(0, 0), 0u);
}

// The lists FIFO gives the engine (eviction_order, preferred_victims) are the
// ones its hooks keep: the used list in order, the unused list its preferred victims.
TEST(FifoEviction, GivesItsUsedListAsTheOrderAndItsUnusedListAsPreferredVictims) {
  auto p = attached("fifo", 4);
  sim::SlotList* const used = p->eviction_order(0);
  sim::SlotList* const unused = p->preferred_victims(0);
  ASSERT_TRUE(used && unused);
  for (std::uint32_t s : {0u, 1u, 2u}) p->on_chunk_allocated(chunk(s), 0);
  p->on_chunk_residency_changed(chunk(1), false, 0);
  EXPECT_EQ(unused->front(), 1u);
  EXPECT_FALSE(used->contains(1));
  EXPECT_EQ(used->front(), 0u);
  p->on_chunk_residency_changed(chunk(1), true, 0);  // used: 0, 2, 1
  EXPECT_TRUE(unused->empty());
  EXPECT_EQ(used->back(), 1u);
}

// If the block of an unused chunk becomes resident again and the engine does not say so,
// the chunk is found resident when a victim is chosen and moves to the used tail.
TEST(FifoEviction, UnusedChunkFoundResidentAgainMovesToTheUsedTail) {
  std::vector<std::uint32_t> resident = {1, 1, 1, 0};
  sim::EvictionContext ctx;
  ctx.resident_pages = [&resident](int, std::uint32_t slot) { return resident[slot]; };
  auto p = attached("fifo", 4, ctx);
  for (std::uint32_t s : {0u, 1u, 2u}) p->on_chunk_allocated(chunk(s), 0);
  p->on_chunk_residency_changed(chunk(0), false, 0);  // unused: [0], used: [1, 2]
  EXPECT_EQ(p->choose_victim(0, 0), 1u);  // slot 0 holds pages again: used becomes [1, 2, 0]
  p->on_chunk_freed(chunk(1));
  EXPECT_EQ(p->choose_victim(0, 0), 2u);
}

TEST(FifoEviction, SkipsChunksThatAreNotEvictableAndKeepsGpusApart) {
  sim::EvictionContext ctx;
  ctx.gpus = 2;
  ctx.evictable = [](int gpu, std::uint32_t slot) { return !(gpu == 0 && slot == 3); };
  auto p = attached("fifo", 4, ctx);
  p->on_chunk_allocated(chunk(3, 0, 0, 0), 0);
  p->on_chunk_allocated(chunk(1, 0, 512, 0), 0);
  p->on_chunk_allocated(chunk(0, 0, 0, 1), 0);
  EXPECT_EQ(p->choose_victim(0, 0), 1u);
  EXPECT_EQ(p->choose_victim(1, 0), 0u);
  p->on_chunk_freed(chunk(1, 0, 512, 0));
  EXPECT_EQ(p->choose_victim(0, 0), kNoVictim);  // only the pinned chunk is left
}

// A victim's slot taken again at once for the incoming chunk (chunk_for on a full
// GPU): the same order as on_chunk_evicted then on_chunk_allocated, from either
// of FIFO's lists (its own hook) and for a policy with the default hook (LRU).
TEST(EvictionHooks, ReplacedIsEvictedThenAllocated) {
  for (const char* spec : {"fifo", "fifo:unused_first=false", "lru"}) {
    auto fused = attached(spec, 4), apart = attached(spec, 4);
    for (auto* p : {fused.get(), apart.get()}) {
      for (std::uint32_t s : {0u, 1u, 2u, 3u}) p->on_chunk_allocated(chunk(s), 0);
      p->on_chunk_residency_changed(chunk(2), false, 0);  // FIFO's unused list: [2]
    }
    for (std::uint32_t round = 0; round < 6; ++round) {
      const std::uint32_t victim = apart->choose_victim(0, 0);
      ASSERT_EQ(fused->choose_victim(0, 0), victim) << spec << " round " << round;
      const sim::ChunkInfo incoming = chunk(victim, 0, 512 * (4 + round));
      apart->on_chunk_evicted(chunk(victim), 0);
      apart->on_chunk_allocated(incoming, 0);
      fused->on_chunk_replaced(chunk(victim), incoming, 0);
    }
    std::uint32_t a[2] = {}, f[2] = {};
    EXPECT_EQ(fused->upcoming_victims(0, f), apart->upcoming_victims(0, a)) << spec;
    EXPECT_EQ(std::vector<std::uint32_t>(f, f + 2), std::vector<std::uint32_t>(a, a + 2)) << spec;
  }
}

TEST(LruEviction, EvictsTheLeastRecentlyAccessed) {
  auto p = attached("lru", 4);
  EXPECT_TRUE(p->wants_access_callbacks());
  for (std::uint32_t s : {0u, 1u, 2u}) p->on_chunk_allocated(chunk(s), 0);
  p->on_chunk_accessed(chunk(0), 1, 0);  // order: 1, 2, 0
  EXPECT_EQ(p->choose_victim(0, 0), 1u);
  p->on_chunk_accessed(chunk(1), 2, 0);  // order: 2, 0, 1
  EXPECT_EQ(p->choose_victim(0, 0), 2u);
  p->on_chunk_freed(chunk(2));
  EXPECT_EQ(p->choose_victim(0, 0), 0u);
}

// The upcoming-victims hint names what choose_victim returns next, and the one
// after it, for the policies that give it (LRU, FIFO).
TEST(EvictionHints, UpcomingVictimsAreTheNextChoices) {
  for (const char* spec : {"lru", "fifo", "fifo:unused_first=false"}) {
    SCOPED_TRACE(spec);
    auto p = attached(spec, 8);
    for (std::uint32_t s : {4u, 1u, 6u, 2u}) p->on_chunk_allocated(chunk(s), 0);
    p->on_chunk_accessed(chunk(4), 1, 0);  // LRU: 1, 6, 2, 4; FIFO: 4, 1, 6, 2
    std::uint32_t next[2] = {};
    ASSERT_EQ(p->upcoming_victims(0, next), 2u);
    EXPECT_EQ(next[0], p->choose_victim(0, 0));
    const std::uint32_t first = next[0];
    p->on_chunk_evicted(chunk(first), 0);
    EXPECT_EQ(next[1], p->choose_victim(0, 0));
  }
}

TEST(LruEviction, GranularityParameter) {
  EXPECT_EQ(make<sim::EvictionPolicy>("lru")->granularity(), 2u * 1024 * 1024);
  EXPECT_EQ(make<sim::EvictionPolicy>("lru:granularity=64KiB")->granularity(), 64u * 1024);
  EXPECT_EQ(make<sim::EvictionPolicy>("lru:granularity=4KiB")->granularity(), 4096u);
  try {
    make<sim::EvictionPolicy>("lru:granularity=3MiB");
    FAIL() << "3MiB accepted";
  } catch (const PolicyError& e) {
    EXPECT_NE(std::string(e.what()).find("power of two from 4KiB to 2MiB"), std::string::npos) << e.what();
  }
  EXPECT_THROW(make<sim::EvictionPolicy>("lru:granularity=48KiB"), PolicyError);
}

// Counts: chunk 0 accessed twice, 1 and 2 once: fewest accesses, ties to the oldest.
TEST(LfuEviction, FewestAccessesThenOldest) {
  auto p = attached("lfu", 4);
  for (std::uint32_t s : {0u, 1u, 2u}) p->on_chunk_allocated(chunk(s), 0);
  p->on_chunk_accessed(chunk(0), 1, 0);
  p->on_chunk_accessed(chunk(0), 2, 0);
  p->on_chunk_accessed(chunk(2), 3, 0);
  p->on_chunk_accessed(chunk(1), 4, 0);
  EXPECT_EQ(p->choose_victim(0, 0), 1u);
  p->on_chunk_freed(chunk(1));
  EXPECT_EQ(p->choose_victim(0, 0), 2u);
  p->on_chunk_allocated(chunk(1), 0);  // re-allocated: count restarts at 0
  EXPECT_EQ(p->choose_victim(0, 0), 1u);
}

TEST(RandomEviction, SeededRepeatableAndOnlyAllocatedEvictableChunks) {
  sim::EvictionContext ctx;
  ctx.evictable = [](int, std::uint32_t slot) { return slot != 5; };
  auto a = attached("random:seed=3", 8, ctx);
  auto b = attached("random:seed=3", 8, ctx);
  for (std::uint32_t s : {1u, 3u, 5u, 6u}) {
    a->on_chunk_allocated(chunk(s), 0);
    b->on_chunk_allocated(chunk(s), 0);
  }
  a->on_chunk_freed(chunk(6));
  b->on_chunk_freed(chunk(6));
  std::set<std::uint32_t> seen;
  for (int i = 0; i < 64; ++i) {
    const auto v = a->choose_victim(0, 0);
    EXPECT_EQ(v, b->choose_victim(0, 0));
    seen.insert(v);
  }
  EXPECT_EQ(seen, (std::set<std::uint32_t>{1, 3}));  // never 5 (pinned) or 6 (freed)
}

// CLOCK: hand at 0; 0 referenced -> cleared, 1 not referenced -> victim.
TEST(ClockEviction, SecondChance) {
  auto p = attached("clock", 4);
  for (std::uint32_t s : {0u, 1u, 2u}) p->on_chunk_allocated(chunk(s), 0);
  p->on_chunk_accessed(chunk(0), 1, 0);
  EXPECT_EQ(p->choose_victim(0, 0), 1u);
  p->on_chunk_freed(chunk(1));
  EXPECT_EQ(p->choose_victim(0, 0), 2u);  // hand moved on to 2
  p->on_chunk_freed(chunk(2));
  p->on_chunk_accessed(chunk(0), 2, 0);
  EXPECT_EQ(p->choose_victim(0, 0), 0u);  // alone: bit cleared on the first pass
  p->on_chunk_freed(chunk(0));
  EXPECT_EQ(p->choose_victim(0, 0), kNoVictim);
}

// 64 KiB basic blocks: chunk first_page = basic block * 16.
TEST(TreePreEviction, EmptiesASparse2MiBRegion) {
  auto p = attached("tree-preevict", 64);
  EXPECT_EQ(p->granularity(), 64u * 1024);
  for (std::uint32_t bb = 0; bb < 4; ++bb) p->on_chunk_allocated(chunk(bb, 0, bb * 16), 0);
  p->on_chunk_allocated(chunk(4, 1, 0), 0);  // another allocation's block
  p->on_chunk_accessed(chunk(3, 0, 48), 1, 0);  // LRU order: 0, 1, 2, 4, 3
  // Victim: basic block 0 (LRU). Remaining 3 of 32 in the 2 MiB tree: the root
  // [0,32) has 3*100 < 32*50 -> its remaining blocks 1, 2, 3 are queued.
  EXPECT_EQ(p->choose_victim(0, 0), 0u);
  p->on_chunk_freed(chunk(0, 0, 0));
  EXPECT_EQ(p->choose_victim(0, 0), 1u);
  p->on_chunk_freed(chunk(1, 0, 16));
  EXPECT_EQ(p->choose_victim(0, 0), 2u);
  p->on_chunk_freed(chunk(2, 0, 32));
  EXPECT_EQ(p->choose_victim(0, 0), 3u);  // queued although most recently used
  p->on_chunk_freed(chunk(3, 0, 48));
  EXPECT_EQ(p->choose_victim(0, 0), 4u);
}

// Bottom-up cascade (UVMSmart's traverse_and_remove_lp_tree). Resident basic blocks
// 0..7 and 16..24; victim 0 (LRU). Then, bottom-up over the 32-leaf tree:
//   span 4 [24,28): 1 of 4 < half -> 24 scheduled;
//   span 16 [0,16): 7 of 16 < 8 -> 1..7 scheduled; [16,32): 8, not below half;
//   span 32: 8 of 32 (after the removals below it) -> 16..23 scheduled.
// Without the cascade the root would hold 16 of 32 and keep 16..24.
TEST(TreePreEviction, SparseSubtreesCascadeUpTheTree) {
  auto p = attached("tree-preevict", 64);
  std::vector<std::uint32_t> bbs = {0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23, 24};
  for (std::uint32_t bb : bbs) p->on_chunk_allocated(chunk(bb, 0, bb * 16), 0);
  std::vector<std::uint32_t> order;
  for (std::size_t i = 0; i < bbs.size(); ++i) {
    const std::uint32_t v = p->choose_victim(0, 0);
    ASSERT_NE(v, kNoVictim);
    order.push_back(v);
    p->on_chunk_freed(chunk(v, 0, v * 16));
  }
  EXPECT_EQ(order, (std::vector<std::uint32_t>{0, 24, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23}));
}

TEST(TreePreEviction, DenseRegionLosesOnlyTheVictim) {
  auto p = attached("tree-preevict", 64);
  for (std::uint32_t bb = 0; bb < 32; ++bb) p->on_chunk_allocated(chunk(bb, 0, bb * 16), 0);
  // After bb 0 leaves, every node keeps >= 50%: [0,2) has 1 of 2 (100 < 100 is false).
  EXPECT_EQ(p->choose_victim(0, 0), 0u);
  p->on_chunk_freed(chunk(0, 0, 0));
  EXPECT_EQ(p->choose_victim(0, 0), 1u);  // plain LRU order again
  EXPECT_THROW(make<sim::EvictionPolicy>("tree-preevict:granularity=2MiB"), PolicyError);
}

// Future accesses by chunk key (alloc): sequence numbers, ascending.
class TableOracle : public sim::FutureOracle {
 public:
  std::map<sim::AllocSlot, std::vector<std::uint64_t>> uses;
  std::uint64_t next_use(int, sim::AllocSlot alloc, std::uint64_t, std::uint64_t after) const override {
    for (auto s : uses.at(alloc))
      if (s > after) return s;
    return UINT64_MAX;
  }
};

// A at 1, 4, 20; B at 2, 5, 7; C at 3, 8. At seq 6 the next uses are A 20, B 7, C 8:
// MIN evicts A. Accesses 4 and 5 are not reported: the stale keys must be refreshed.
TEST(BeladyEviction, EvictsTheFurthestNextUse) {
  TableOracle oracle;
  oracle.uses = {{0, {1, 4, 20}}, {1, {2, 5, 7}}, {2, {3, 8}}};
  std::uint64_t seq = 0;
  sim::EvictionContext ctx;
  ctx.future = &oracle;
  ctx.access_seq = &seq;
  auto p = attached("belady", 3, ctx);
  EXPECT_TRUE(p->needs_future());
  for (std::uint32_t s = 0; s < 3; ++s) {
    seq = s + 1;
    p->on_chunk_allocated(chunk(s, s), 0);
  }
  seq = 6;
  EXPECT_EQ(p->choose_victim(0, 0), 0u);
  // Reported accesses update the key: B used at 7 -> next use never; C at 8.
  p->on_chunk_accessed(chunk(1, 1), 7, 0);
  seq = 7;
  EXPECT_EQ(p->choose_victim(0, 0), 1u);
}

TEST(BeladyEviction, RefusesToRunWithoutAnOracle) {
  auto p = make<sim::EvictionPolicy>("belady");
  EXPECT_THROW(p->attach(context(4)), PolicyError);
}

// The example policy from docs/policies.md, linked from its own target.
TEST(ExampleMruEviction, EvictsTheMostRecentlyUsed) {
  auto p = attached("mru", 4);
  for (std::uint32_t s : {0u, 1u, 2u}) p->on_chunk_allocated(chunk(s), 0);
  p->on_chunk_accessed(chunk(0), 1, 0);
  EXPECT_EQ(p->choose_victim(0, 0), 0u);
  auto lifo = attached("mru:on_access=false", 4);
  for (std::uint32_t s : {0u, 1u, 2u}) lifo->on_chunk_allocated(chunk(s), 0);
  EXPECT_FALSE(lifo->wants_access_callbacks());
  EXPECT_EQ(lifo->choose_victim(0, 0), 2u);
}

}  // namespace
}  // namespace umsim::policies
