// The built-in eviction policy, used when the caller passes none: chunks are
// evicted in the order they were allocated (the NVIDIA driver's behaviour for
// used root chunks: FIFO by allocation, not LRU by access).
#pragma once

#include <vector>

#include "sim/eviction_policy.h"
#include "sim/slot_list.h"

namespace umsim::sim {

class FifoByAllocationEviction : public EvictionPolicy {
 public:
  void attach(const EvictionContext& ctx) override;
  void on_chunk_allocated(const ChunkInfo& chunk, Nanos now) override;
  void on_chunk_freed(const ChunkInfo& chunk) override;
  // Overridden directly, not through the defaults that forward to
  // on_chunk_freed / choose_victim: one virtual call each per eviction.
  void on_chunk_evicted(const ChunkInfo& chunk, Nanos now) override;
  std::uint32_t choose_victim(int gpu, Nanos now) override;
  std::uint32_t choose_victim_for(const IncomingChunk& incoming, Nanos now) override;
  std::size_t upcoming_victims(int gpu, std::uint32_t (&out)[2]) const override;
  // The engine keeps the order in line (the hooks above serve callers without it).
  SlotList* eviction_order(int gpu) override { return &order_[static_cast<std::size_t>(gpu)]; }

 private:
  void forget(const ChunkInfo& chunk);
  std::uint32_t oldest_evictable(int gpu) const;

  std::vector<SlotList> order_;  // per GPU, oldest first
};

}  // namespace umsim::sim
