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
#include <bit>

#include "sim/cache_hint.h"
#include "sim/chunk_write_back.h"
#include "sim/engine.h"
#include "sim/page_mask_iteration.h"

namespace umsim::sim {

[[gnu::always_inline]] inline bool Engine::replaces_first_chunk(int gpu) const {
  const GpuMemory& mem = gpus_[static_cast<std::size_t>(gpu)].memory;
  const SlotList* const order = eviction_order_[gpu];
  // chunk_for's refusal (nothing it may evict), choose_victim's walk past
  // a first chunk that is busy and the policy's own choice (preferred
  // victims listed) take the general path.
  return order && !mem.has_free() && mem.pinned() + busy_chunks_.size() < mem.capacity() &&
         !order->empty() && mem.evictable(order->front()) && !policy_chooses(gpu);
}

// replaces_first_chunk's test where the engine keeps the order
// (lone_pages_apply) and the caller has checked that no chunk is held busy
// (lone_fault.cc): the chunk it would replace, looked up once for the test
// and the replacement; null where the test fails. The order lists allocated
// chunks that are not pinned (chunk_for's takes; a device allocation's are
// never listed), so with one of them evictable the pinned ones cannot fill
// the memory.
[[gnu::always_inline]] inline PhysicalChunk* Engine::first_chunk_to_replace(int gpu) {
  GpuMemory& mem = gpus_[static_cast<std::size_t>(gpu)].memory;
  const SlotList& order = *eviction_order_[gpu];
  if (mem.has_free() || order.empty()) return nullptr;
  PhysicalChunk& c = mem.chunk(order.front());
  return c.allocated && !c.pinned && !c.busy ? &c : nullptr;
}

// The 4 KiB case alone: lone_fault's (4 KiB only) calls it directly, without
// the other granularities' branch on a page-granular replay's every fault.
[[gnu::always_inline]] inline std::uint32_t Engine::replace_first_page_chunk(int gpu, AllocSlot slot,
                                                                           std::uint64_t page, Nanos& now) {
  GpuMemory& mem = gpus_[static_cast<std::size_t>(gpu)].memory;
  PhysicalChunk& c = mem.chunk(eviction_order_[gpu]->front());
  replace_page_chunk(gpu, c, slot, page, now, counters());
  return c.slot;
}

// An evicted chunk's only resident page, `vp` of `va`, goes back to host
// memory, written back if it is the sole copy (write_back_chunk's result for
// a chunk of one page, without its runs).
template <bool kCostless>
[[gnu::always_inline]] inline void Engine::evict_only_page(int gpu, Allocation& va, std::uint64_t vp, Nanos& now,
                                                           Counters& cnt) {
  const auto gi = static_cast<std::size_t>(gpu);
  const ProcessorMask gbit = processor_bit(Processor::gpu(gpu));
  PageMask& resident = va.gpu_resident[gi][vp / kPagesPerBlock];
  const auto i = static_cast<std::uint32_t>(vp % kPagesPerBlock);
  set_mask_word(resident, i / 64, mask_word(resident, i / 64) & ~(std::uint64_t{1} << (i % 64)));
  PageState& st = va.pages[vp];
  const bool sole = st.copies == gbit;
  st.copies = sole ? kCpuBit : static_cast<ProcessorMask>(st.copies & ~gbit);
  st.mapped = mappings_for(va, st);
  st.flags &= static_cast<std::uint8_t>(~kPinned);
  if constexpr (!kCostless) now += profile_.eviction_chunk_ns;
  if (sole) {
    now = std::max(now, gpus_[gi].d2h.schedule(copy_client_, now, kCostless ? 0 : short_costs_.page_d2h));
    cnt.bytes_d2h += kPageSize;
    cnt.bytes_evicted += kPageSize;
  }
  ++cnt.evictions;
}

// replace_first_page_chunk with the order's first chunk `c` at hand and the
// scope's counters given (the caller knows which).
template <bool kCostless>
[[gnu::always_inline]] inline void Engine::replace_page_chunk(int gpu, PhysicalChunk& c, AllocSlot slot,
                                                              std::uint64_t page, Nanos& now, Counters& cnt) {
  const auto gi = static_cast<std::size_t>(gpu);
  GpuState& g = gpus_[gi];
  SlotList& order = *eviction_order_[gpu];
  const std::uint32_t victim = c.slot;
  Allocation& va = allocs_[c.alloc];
  const std::uint64_t vp = c.first_page;
  if (c.resident) evict_only_page<kCostless>(gpu, va, vp, now, cnt);
  va.chunk_slot[gi][vp] = kNoSlot;
  g.memory.retake(c, slot, page);
  order.move_to_back(victim);
  if (prefetch_ahead_) prefetch_listed_victims(gi, order);
}

// prefetch_upcoming_victims for the engine's own order, which lists allocated
// chunks only (an allocation's chunks are released before it is freed): the
// same hints without the checks that a policy's answer needs, further ahead.
// A cache simulation's faults come a request or two apart as often as not,
// too soon for hints given one fault ahead (perf put half of lone_fault's
// samples on the victim's links, chunk record, page record and resident-mask
// word). With the order's first four chunks A, B, C, D after this fault: D's
// links and record are asked for (the walk reads a chunk's links one fault
// after it asks for them: a list cannot be walked faster), B's record, asked
// for two faults ago, is read and its page record, chunk slot and
// resident-mask word asked for two faults before B is replaced.
[[gnu::always_inline]] inline void Engine::prefetch_listed_victims(std::size_t gpu, const SlotList& order) {
  const GpuMemory& mem = gpus_[gpu].memory;
  const std::uint32_t b = order.next(order.front());  // listed: the victim just moved to the back
  if (b == SlotList::kNone) return;
  if (const std::uint32_t c = order.next(b); c != SlotList::kNone) {
    if (const std::uint32_t d = order.next(c); d != SlotList::kNone) {
      order.prefetch(d);
      prefetch_record(&mem.chunk(d));  // both lines where it straddles two: B's fields read below may lie in the second
    }
  }
  const PhysicalChunk& chunk = mem.chunk(b);
  const Allocation& a = allocs_[chunk.alloc];
  prefetch_element(a.pages.data(), chunk.first_page);
  prefetch_element(a.chunk_slot[gpu].data(), chunk.first_page >> chunk_shift_);
  prefetch_element(a.gpu_resident[gpu].data(), chunk.first_page / kPagesPerBlock);
}

template <bool kScattered>
[[gnu::always_inline]] inline std::uint32_t Engine::replace_first_chunk(int gpu, AllocSlot slot, std::uint64_t page,
                                                                      Nanos& now) {
  if (pages_per_chunk_ == 1) return replace_first_page_chunk(gpu, slot, page, now);
  const auto gi = static_cast<std::size_t>(gpu);
  GpuState& g = gpus_[gi];
  SlotList& order = *eviction_order_[gpu];
  const std::uint32_t victim = order.front();
  PhysicalChunk& c = g.memory.chunk(victim);
  if (kScattered && pages_per_chunk_ == kPagesPerBlock) {  // the chunk is the block: its one page, or out of line
    replace_block_chunk(gpu, c, slot, page, now, counters());
    return victim;
  }
  const std::uint64_t vp = c.first_page;
  Allocation& va = allocs_[c.alloc];
  write_back_chunk<kScattered>(gpu, c, now);
  va.chunk_slot[gi][vp >> chunk_shift_] = kNoSlot;
  g.memory.retake(c, slot, (page >> chunk_shift_) << chunk_shift_);
  if constexpr (kScattered) c.taken_for = static_cast<std::uint16_t>(page % kPagesPerBlock);  // others keep a stale one
  order.move_to_back(victim);
  if (prefetch_ahead_) {
    prefetch_upcoming_victims(gpu);
    if (pages_per_chunk_ == kPagesPerBlock) prefetch_victim_records(gpu, order.front());
  }
  return victim;
}

// The next victim's resident page records (a 2 MiB chunk's, anywhere in its
// block), asked of the cache one replacement before its write-back rewrites
// them: on a replay over a large footprint the records (2 MiB a GiB) fall out
// of the cache between a chunk's last fault and its eviction, while the
// masks (32 KiB a GiB) stay. One hint per line of eight records with a
// resident page.
[[gnu::always_inline]] inline void Engine::prefetch_victim_records(int gpu, std::uint32_t victim) {
  const auto gi = static_cast<std::size_t>(gpu);
  const PhysicalChunk& c = gpus_[gi].memory.chunk(victim);
  if (c.resident == 0) return;  // the chunk just replaced, where it is the only one
  const Allocation& a = allocs_[c.alloc];
  const PageMask& resident = a.gpu_resident[gi][c.first_page / kPagesPerBlock];
  const PageState* const block_pages = a.pages.data() + c.first_page;
  for (std::uint32_t words = nonempty_words_at_even_bits(resident); words != 0; words &= words - 1) {
    const auto w = static_cast<std::uint32_t>(std::countr_zero(words)) / 2;
    std::uint64_t lines = mask_word(resident, w);  // bit 8k: line k of the word's records has a page
    lines |= lines >> 4;
    lines |= lines >> 2;
    lines |= lines >> 1;
    for (lines &= 0x0101010101010101ull; lines != 0; lines &= lines - 1)
      prefetch_for_read(block_pages + w * 64 + static_cast<std::uint32_t>(std::countr_zero(lines)));
  }
}

// replace_first_chunk<true> at 2 MiB chunks with the order's first chunk `c`
// at hand (lone_fault.cc's pass looked it up, or replace_first_chunk<true>
// for service_short's blocks of a few pages) and the scope's counters given.
// The chunk most often holds one page, the one it was taken for (the mask
// holds c.resident pages): that page leaves as a 4 KiB chunk's does; other
// chunks are written back out of line, which keeps the pass's registers free.
[[gnu::always_inline]] inline void Engine::replace_block_chunk(int gpu, PhysicalChunk& c, AllocSlot slot,
                                                               std::uint64_t page, Nanos& now, Counters& cnt) {
  const auto gi = static_cast<std::size_t>(gpu);
  const std::uint32_t victim = c.slot;
  const std::uint64_t vp = c.first_page;
  Allocation& va = allocs_[c.alloc];
  const std::uint32_t i = c.taken_for;
  const PageMask& resident = va.gpu_resident[gi][vp / kPagesPerBlock];
  if (c.resident == 1 && (mask_word(resident, i / 64) >> (i % 64) & 1)) evict_only_page(gpu, va, vp + i, now, cnt);
  else write_back_scattered_chunk(gpu, c, now);
  va.chunk_slot[gi][vp / kPagesPerBlock] = kNoSlot;
  gpus_[gi].memory.retake(c, slot, page / kPagesPerBlock * kPagesPerBlock);
  c.taken_for = static_cast<std::uint16_t>(page % kPagesPerBlock);
  eviction_order_[gpu]->move_to_back(victim);
  if (prefetch_ahead_) prefetch_upcoming_victims(gpu);
}

// replace_first_chunk where `hold` asks chunk_for's busy mark too (a block's
// pages that need another chunk after it): in line in move_host_pages, where
// chunk_for's call cost as much as the replacement on a replay evicting at
// every fault.
template <bool kScattered>
[[gnu::always_inline]] inline std::uint32_t Engine::replace_first_chunk(int gpu, AllocSlot slot, std::uint64_t page,
                                                                      Nanos& now, bool hold) {
  const std::uint32_t s = replace_first_chunk<kScattered>(gpu, slot, page, now);
  if (hold) {
    gpus_[static_cast<std::size_t>(gpu)].memory.chunk(s).busy = true;
    busy_chunks_.emplace_back(gpu, s);
  }
  return s;
}

}  // namespace umsim::sim
