// The index-linked slot list of the LRU and built-in FIFO policies against a
// plain std::list on random operations, and the built-in FIFO's victim hints.
#include <algorithm>
#include <list>
#include <random>

#include <gtest/gtest.h>

#include "sim/fifo_eviction.h"
#include "sim/slot_list.h"

namespace umsim::sim {
namespace {

std::vector<std::uint32_t> contents(const SlotList& l) {
  std::vector<std::uint32_t> out;
  for (std::uint32_t s = l.front(); s != SlotList::kNone; s = l.next(s)) out.push_back(s);
  return out;
}

TEST(SlotList, MatchesAPlainListOnRandomOperations) {
  SlotList l;
  std::list<std::uint32_t> ref;
  std::mt19937 rng(5);
  for (int step = 0; step < 20000; ++step) {
    const std::uint32_t slot = rng() % 64;
    const bool listed = std::find(ref.begin(), ref.end(), slot) != ref.end();
    ASSERT_EQ(l.contains(slot), listed) << "step " << step;
    switch (rng() % 4) {
      case 0:  // push_back of an unlisted slot
        if (listed) break;
        l.push_back(slot);
        ref.push_back(slot);
        break;
      case 1:  // erase
        if (!listed) break;
        l.erase(slot);
        ref.remove(slot);
        break;
      case 2:  // move to the back (a hit under LRU)
        if (!listed) break;
        l.move_to_back(slot);
        ref.remove(slot);
        ref.push_back(slot);
        break;
      case 3:  // a hit's recency move, listed or not (past the array early on), and of kNone (no chunk)
        l.move_to_back_if_listed(SlotList::kNone);
        l.move_to_back_if_listed(slot);
        if (!listed) break;
        ref.remove(slot);
        ref.push_back(slot);
        break;
    }
    ASSERT_EQ(contents(l), std::vector<std::uint32_t>(ref.begin(), ref.end())) << "step " << step;
    ASSERT_EQ(l.empty(), ref.empty());
    if (!ref.empty()) {
      ASSERT_EQ(l.front(), ref.front());
      ASSERT_EQ(l.back(), ref.back());
    }
  }
}

TEST(SlotList, FirstTwo) {
  SlotList l;
  std::uint32_t out[2] = {};
  EXPECT_EQ(l.first_two(out), 0u);
  l.push_back(9);
  ASSERT_EQ(l.first_two(out), 1u);
  EXPECT_EQ(out[0], 9u);
  l.push_back(2);
  l.push_back(5);
  ASSERT_EQ(l.first_two(out), 2u);
  EXPECT_EQ(out[0], 9u);
  EXPECT_EQ(out[1], 2u);
}

TEST(FifoByAllocationEviction, VictimsAndHintsInAllocationOrder) {
  FifoByAllocationEviction fifo;
  EvictionContext ctx;
  ctx.chunks_per_gpu = 8;
  ctx.evictable = [](int, std::uint32_t slot) { return slot != 3; };  // slot 3 pinned
  fifo.attach(ctx);
  std::uint32_t next[2] = {};
  EXPECT_EQ(fifo.upcoming_victims(0, next), 0u);
  EXPECT_EQ(fifo.choose_victim(0, 0), kNoVictim);
  for (std::uint32_t s : {3u, 0u, 6u}) fifo.on_chunk_allocated(ChunkInfo{0, s, 0, s * 512}, 0);
  ASSERT_EQ(fifo.upcoming_victims(0, next), 2u);
  EXPECT_EQ(next[0], 3u);
  EXPECT_EQ(next[1], 0u);
  EXPECT_EQ(fifo.choose_victim(0, 0), 0u);  // 3 is not evictable: the next oldest
  fifo.on_chunk_freed(ChunkInfo{0, 0, 0, 0});
  EXPECT_EQ(fifo.choose_victim(0, 0), 6u);
  fifo.on_chunk_allocated(ChunkInfo{0, 0, 0, 0}, 0);  // reused slot goes to the back
  fifo.on_chunk_freed(ChunkInfo{0, 6, 0, 6 * 512});
  EXPECT_EQ(fifo.choose_victim(0, 0), 0u);
}

}  // namespace
}  // namespace umsim::sim
