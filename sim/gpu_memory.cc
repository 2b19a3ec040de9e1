#include "sim/gpu_memory.h"

namespace umsim::sim {

std::uint32_t GpuMemory::take(AllocSlot alloc, std::uint64_t first_page, bool pinned) {
  std::uint32_t slot;
  if (!free_.empty()) {
    PhysicalChunk& c = free_.front();
    free_.pop_front();
    slot = c.slot;
  } else {
    slot = slots_created_++;
    chunks_.at(slot).slot = slot;
  }
  PhysicalChunk& c = chunks_[slot];
  c.alloc = alloc;
  c.first_page = first_page;
  c.resident = 0;
  c.allocated = true;
  c.pinned = pinned;
  c.busy = false;
  c.fresh = true;
  ++allocated_;
  if (pinned) ++pinned_;
  return slot;
}

void GpuMemory::release(std::uint32_t slot) {
  PhysicalChunk& c = chunks_[slot];
  --allocated_;
  if (c.pinned) --pinned_;
  c.allocated = false;
  c.pinned = false;
  c.busy = false;
  c.resident = 0;
  free_.push_back(c);
}

}  // namespace umsim::sim
