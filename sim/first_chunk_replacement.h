// Engine::replace_first_chunk, in line where a chunk is needed on a full GPU
// whose eviction order the engine keeps (lone_fault.cc, chunk_for in
// migration.cc): a replay over a footprint larger than the GPU evicts at
// every chunk it needs. The order's first chunk is evicted (evict_chunk's
// work), released and taken again for the incoming page (take returns the
// slot just released: a full memory's free list is empty) and becomes the
// order's last (chunk_released's erase and chunk_allocated's append). The
// caller checks replaces_first_chunk first.
#pragma once

#include <algorithm>

#include "sim/chunk_write_back.h"
#include "sim/engine.h"
#include "sim/page_mask_iteration.h"

namespace umsim::sim {

inline bool Engine::replaces_first_chunk(int gpu) const {
  const GpuMemory& mem = gpus_[static_cast<std::size_t>(gpu)].memory;
  const SlotList* const order = eviction_order_[gpu];
  // chunk_for's refusal (nothing it may evict) and choose_victim's walk past
  // a first chunk that is busy take the general path.
  return order && !mem.has_free() && mem.pinned() + busy_chunks_.size() < mem.capacity() &&
         !order->empty() && mem.evictable(order->front());
}

// The 4 KiB case alone: lone_fault's (4 KiB only) calls it directly, without
// the other granularities' branch on a page-granular replay's every fault.
[[gnu::always_inline]] inline std::uint32_t Engine::replace_first_page_chunk(int gpu, AllocSlot slot,
                                                                           std::uint64_t page, Nanos& now) {
  const auto gi = static_cast<std::size_t>(gpu);
  GpuState& g = gpus_[gi];
  SlotList& order = *eviction_order_[gpu];
  const std::uint32_t victim = order.front();
  PhysicalChunk& c = g.memory.chunk(victim);
  Allocation& va = allocs_[c.alloc];
  const std::uint64_t vp = c.first_page;
  if (c.resident) {  // its one page goes back to host memory, written back if it is the sole copy
    const ProcessorMask gbit = processor_bit(Processor::gpu(gpu));
    PageMask& resident = va.gpu_resident[gi][vp / kPagesPerBlock];
    const auto i = static_cast<std::uint32_t>(vp % kPagesPerBlock);
    set_mask_word(resident, i / 64, mask_word(resident, i / 64) & ~(std::uint64_t{1} << (i % 64)));
    PageState& st = va.pages[vp];
    const bool sole = st.copies == gbit;
    st.copies = sole ? kCpuBit : static_cast<ProcessorMask>(st.copies & ~gbit);
    st.mapped = mappings_for(va, st);
    st.flags &= static_cast<std::uint8_t>(~kPinned);
    Counters& cnt = counters();
    now += profile_.eviction_chunk_ns;
    if (sole) {
      now = std::max(now, g.d2h.schedule(copy_client_, now, short_costs_.page_d2h));
      cnt.bytes_d2h += kPageSize;
      cnt.bytes_evicted += kPageSize;
    }
    ++cnt.evictions;
  }
  va.chunk_slot[gi][vp] = kNoSlot;
  g.memory.retake(c, slot, page);
  order.move_to_back(victim);
  if (prefetch_ahead_) prefetch_upcoming_victims(gpu);
  return victim;
}

[[gnu::always_inline]] inline std::uint32_t Engine::replace_first_chunk(int gpu, AllocSlot slot, std::uint64_t page,
                                                                      Nanos& now) {
  if (pages_per_chunk_ == 1) return replace_first_page_chunk(gpu, slot, page, now);
  const auto gi = static_cast<std::size_t>(gpu);
  GpuState& g = gpus_[gi];
  SlotList& order = *eviction_order_[gpu];
  const std::uint32_t victim = order.front();
  PhysicalChunk& c = g.memory.chunk(victim);
  const std::uint64_t vp = c.first_page;
  Allocation& va = allocs_[c.alloc];
  write_back_chunk(gpu, c, now);
  va.chunk_slot[gi][vp >> chunk_shift_] = kNoSlot;
  g.memory.retake(c, slot, (page >> chunk_shift_) << chunk_shift_);
  order.move_to_back(victim);
  if (prefetch_ahead_) prefetch_upcoming_victims(gpu);
  return victim;
}

// replace_first_chunk where `hold` asks chunk_for's busy mark too (a block's
// pages that need another chunk after it): in line in move_host_pages, where
// chunk_for's call cost as much as the replacement on a replay evicting at
// every fault.
[[gnu::always_inline]] inline std::uint32_t Engine::replace_first_chunk(int gpu, AllocSlot slot, std::uint64_t page,
                                                                      Nanos& now, bool hold) {
  const std::uint32_t s = replace_first_chunk(gpu, slot, page, now);
  if (hold) {
    gpus_[static_cast<std::size_t>(gpu)].memory.chunk(s).busy = true;
    busy_chunks_.emplace_back(gpu, s);
  }
  return s;
}

}  // namespace umsim::sim
