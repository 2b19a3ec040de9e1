#include "sim/fifo_eviction.h"

namespace umsim::sim {

void FifoByAllocationEviction::attach(const EvictionContext& ctx) {
  EvictionPolicy::attach(ctx);
  for (auto& g : gpus_) g.order.clear();
  gpus_ = std::vector<Gpu>(static_cast<std::size_t>(ctx.gpus));
}

void FifoByAllocationEviction::on_chunk_allocated(const ChunkInfo& chunk, Nanos) {
  Gpu& g = gpus_[static_cast<std::size_t>(chunk.gpu)];
  g.order.push_back(g.nodes.at(chunk.slot, [](Node& n, std::uint32_t s) { n.slot = s; }));
}

void FifoByAllocationEviction::on_chunk_freed(const ChunkInfo& chunk) {
  Gpu& g = gpus_[static_cast<std::size_t>(chunk.gpu)];
  g.order.erase(g.order.iterator_to(g.nodes[chunk.slot]));
}

std::uint32_t FifoByAllocationEviction::choose_victim(int gpu, Nanos) {
  for (const Node& n : gpus_[static_cast<std::size_t>(gpu)].order)
    if (ctx_.evictable(gpu, n.slot)) return n.slot;
  return kNoVictim;
}

}  // namespace umsim::sim
