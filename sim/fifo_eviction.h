// The built-in eviction policy, used when the caller passes none: chunks are
// evicted in the order they were allocated (the NVIDIA driver's behaviour for
// used root chunks: FIFO by allocation, not LRU by access).
#pragma once

#include <vector>

#include <boost/intrusive/list.hpp>

#include "sim/eviction_policy.h"
#include "sim/slot_array.h"

namespace umsim::sim {

class FifoByAllocationEviction : public EvictionPolicy {
 public:
  void attach(const EvictionContext& ctx) override;
  void on_chunk_allocated(const ChunkInfo& chunk, Nanos now) override;
  void on_chunk_freed(const ChunkInfo& chunk) override;
  std::uint32_t choose_victim(int gpu, Nanos now) override;

 private:
  struct Node : boost::intrusive::list_base_hook<boost::intrusive::link_mode<boost::intrusive::normal_link>> {
    std::uint32_t slot = 0;
  };
  struct Gpu {
    SlotArray<Node> nodes;  // by slot, created as slots are used
    boost::intrusive::list<Node> order;
  };
  std::vector<Gpu> gpus_;
};

}  // namespace umsim::sim
