#include "sim/fifo_eviction.h"

namespace umsim::sim {

void FifoByAllocationEviction::attach(const EvictionContext& ctx) {
  EvictionPolicy::attach(ctx);
  order_.assign(static_cast<std::size_t>(ctx.gpus), SlotList{});
}

void FifoByAllocationEviction::on_chunk_allocated(const ChunkInfo& chunk, Nanos) {
  SlotList& l = order_[static_cast<std::size_t>(chunk.gpu)];
  if (l.contains(chunk.slot)) l.erase(chunk.slot);
  l.push_back(chunk.slot);
}

void FifoByAllocationEviction::on_chunk_freed(const ChunkInfo& chunk) { forget(chunk); }

void FifoByAllocationEviction::on_chunk_evicted(const ChunkInfo& chunk, Nanos) { forget(chunk); }

void FifoByAllocationEviction::forget(const ChunkInfo& chunk) {
  SlotList& l = order_[static_cast<std::size_t>(chunk.gpu)];
  if (l.contains(chunk.slot)) l.erase(chunk.slot);
}

std::uint32_t FifoByAllocationEviction::choose_victim(int gpu, Nanos) { return oldest_evictable(gpu); }

std::uint32_t FifoByAllocationEviction::choose_victim_for(const IncomingChunk& incoming, Nanos) {
  return oldest_evictable(incoming.gpu);
}

std::uint32_t FifoByAllocationEviction::oldest_evictable(int gpu) const {
  const SlotList& l = order_[static_cast<std::size_t>(gpu)];
  for (std::uint32_t s = l.front(); s != SlotList::kNone; s = l.next(s))
    if (ctx_.can_evict(gpu, s)) return s;
  return kNoVictim;
}

std::size_t FifoByAllocationEviction::upcoming_victims(int gpu, std::uint32_t (&out)[2]) const {
  return order_[static_cast<std::size_t>(gpu)].first_two(out);
}

}  // namespace umsim::sim
