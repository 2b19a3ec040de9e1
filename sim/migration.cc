// The migration engine: moving pages between processors, GPU chunk
// allocation, eviction with write-back, and copies on the links' copy engines.

#include <fmt/format.h>

#include "sim/chunk_write_back.h"
#include "sim/engine.h"
#include "sim/first_chunk_replacement.h"
#include "sim/page_mask_iteration.h"
#include "traces/units.h"

namespace umsim::sim {

namespace {
// Runs never exceed a VA block (512 pages); the tables cover 1..512 pages.
Nanos run_time(const std::vector<Nanos>& table, Bytes bytes) { return table[bytes / kPageSize]; }
}  // namespace

ProcessorMask Engine::mappings_for_advised(const Allocation& a, const PageState& st) const {
  ProcessorMask m = static_cast<ProcessorMask>(st.copies | a.always_mapped);
  // AccessedBy processors map the page wherever it lives (if they can).
  ProcessorMask ab = static_cast<ProcessorMask>(st.accessed_by & ~m);
  if (ab && vendor_.accessed_by_maps_in_place) {
    const Processor owner = first_processor(st.copies);
    for (; ab; ab &= static_cast<ProcessorMask>(ab - 1)) {
      const Processor q = first_processor(ab);
      if (accessible(q, owner)) m |= processor_bit(q);
    }
  }
  return m;
}

Processor Engine::copy_source_with_gpus(ProcessorMask copies, Processor dest) const {
  // Peer GPUs rank before the CPU (NVLink and PCIe peers alike); where GPU
  // copies are staged through the host (AMD), or peers cannot reach each
  // other, the CPU's copy is the closer one.
  const auto gpus = static_cast<ProcessorMask>(copies & ~kCpuBit);
  if (dest.is_gpu() && gpus && !vendor_.peer_migration_through_host)
    for (ProcessorMask m = gpus; m; m &= static_cast<ProcessorMask>(m - 1))
      if (peers_enabled(first_processor(m).gpu_index(), dest.gpu_index())) return first_processor(m);
  return (copies & kCpuBit) ? Processor::cpu() : first_processor(copies);
}

void Engine::add_copy(std::vector<CopyBatch>& batches, Processor from, Processor to, Bytes run_bytes) {
  CopyBatch* b = nullptr;
  for (auto& x : batches)
    if (x.from == from && x.to == to) b = &x;
  if (!b) b = &batches.emplace_back(CopyBatch{from, to});
  b->bytes += run_bytes;
  if (from.is_cpu()) {
    b->busy_first += run_time(run_ns_h2d_, run_bytes);
  } else if (to.is_cpu()) {
    b->busy_first += run_time(run_ns_d2h_, run_bytes);
  } else if (staged_through_host(from, to)) {
    b->busy_first += run_time(run_ns_d2h_, run_bytes);
    b->busy_second += run_time(run_ns_h2d_, run_bytes);
  } else {
    b->busy_first += run_time(run_ns_peer_, run_bytes);
  }
}

Nanos Engine::issue_copies(std::vector<CopyBatch>& batches, Nanos ready, Bytes* transferred) {
  Nanos done = ready;
  Counters& c = counters();
  auto gpu = [&](Processor p) -> GpuState& { return gpus_[static_cast<std::size_t>(p.gpu_index())]; };
  for (const CopyBatch& b : batches) {
    if (transferred) *transferred += b.bytes;
    Nanos end;
    if (b.from.is_cpu()) {
      end = gpu(b.to).h2d.schedule(copy_client_, ready, profile_.h2d.latency_ns + b.busy_first);
      c.bytes_h2d += b.bytes;
    } else if (b.to.is_cpu()) {
      end = gpu(b.from).d2h.schedule(copy_client_, ready, profile_.d2h.latency_ns + b.busy_first);
      c.bytes_d2h += b.bytes;
    } else if (staged_through_host(b.from, b.to)) {
      const Nanos staged = gpu(b.from).d2h.schedule(copy_client_, ready, profile_.d2h.latency_ns + b.busy_first);
      end = gpu(b.to).h2d.schedule(copy_client_, staged, profile_.h2d.latency_ns + b.busy_second);
      c.bytes_d2h += b.bytes;
      c.bytes_h2d += b.bytes;
    } else {
      end = gpu(b.to).peer_in.schedule(copy_client_, ready, profile_.peer.latency_ns + b.busy_first);
      c.bytes_peer += b.bytes;
    }
    done = std::max(done, end);
  }
  batches.clear();
  return done;
}

void Engine::release_chunk(int gpu, std::uint32_t s, bool evicted, Nanos now) {
  GpuMemory& mem = gpus_[static_cast<std::size_t>(gpu)].memory;
  PhysicalChunk& c = mem.chunk(s);
  if (!c.pinned) {
    chunk_released(ChunkInfo{gpu, s, c.alloc, c.first_page}, evicted, now);
  }
  forget_chunk_slot(gpu, c);
  mem.release(s);
}

void Engine::forget_chunk_slot(int gpu, const PhysicalChunk& c) {
  Allocation& a = allocs_[c.alloc];
  if (!a.chunk_slot.empty()) a.chunk_slot[static_cast<std::size_t>(gpu)][c.first_page >> chunk_shift_] = kNoSlot;
}

void Engine::drop_copy(Allocation& a, std::uint64_t page, Processor p) {
  PageState& st = a.pages[page];
  st.copies &= static_cast<ProcessorMask>(~processor_bit(p));
  if (!p.is_gpu()) {
    st.flags &= static_cast<std::uint8_t>(~kCpuReadOnly);
    return;
  }
  const int g = p.gpu_index();
  const std::uint32_t s = a.chunk_slot[static_cast<std::size_t>(g)][page >> chunk_shift_];
  PhysicalChunk& c = gpus_[static_cast<std::size_t>(g)].memory.chunk(s);
  a.gpu_resident[static_cast<std::size_t>(g)][page / kPagesPerBlock].reset(page % kPagesPerBlock);
  // An emptied chunk stays with its block ("unused" in the driver) until it is
  // evicted, which then costs no write-back.
  if (--c.resident == 0 && !c.pinned)
    eviction_->on_chunk_residency_changed(ChunkInfo{g, s, c.alloc, c.first_page}, false, current_time());
}

void Engine::clear_busy_chunks() {
  for (const auto& [g, s] : busy_chunks_) {
    PhysicalChunk& c = gpus_[static_cast<std::size_t>(g)].memory.chunk(s);
    c.busy = false;
  }
  busy_chunks_.clear();
}

void Engine::evict_chunk(int gpu, std::uint32_t victim, Nanos& now) {
  write_back_chunk(gpu, gpus_[static_cast<std::size_t>(gpu)].memory.chunk(victim), now);
  release_chunk(gpu, victim, /*evicted=*/true, now);
  // Only where the page records outgrow the CPU's caches, as the replay
  // loop's look-ahead (below that it costs more than it saves).
  if (prefetch_ahead_) prefetch_upcoming_victims(gpu);
}

void Engine::throw_nothing_evictable(int gpu) const {
  const GpuMemory& mem = gpus_[static_cast<std::size_t>(gpu)].memory;
  throw SimulationError(fmt::format(
      "gpu{} memory is full: its {} chunks of {} hold device allocations ({}) or pages of this migration ({}), "
      "so nothing can be evicted to place managed data (raise --gpu-mem)",
      gpu, mem.capacity(), trace::format_bytes(chunk_bytes_), mem.pinned(), busy_chunks_.size()));
}

void Engine::throw_no_victim(int gpu, std::uint32_t victim) const {
  const GpuMemory& mem = gpus_[static_cast<std::size_t>(gpu)].memory;
  throw SimulationError(fmt::format(
      "gpu{} memory is full ({} chunks of {}, {} held by device allocations, {} in use by this migration) "
      "and the eviction policy {}",
      gpu, mem.capacity(), trace::format_bytes(chunk_bytes_), mem.pinned(), busy_chunks_.size(),
      victim == kNoVictim ? std::string("found no victim")
                          : fmt::format("chose slot {}, which is not evictable", victim)));
}

std::uint32_t Engine::chunk_for(AllocSlot slot, Allocation& a, int gpu, std::uint64_t page, Nanos& now, bool hold) {
  GpuMemory& mem = gpus_[static_cast<std::size_t>(gpu)].memory;
  std::uint32_t& s = a.chunk_slot[static_cast<std::size_t>(gpu)][page >> chunk_shift_];
  if (s != kNoSlot) {
    PhysicalChunk& c = mem.chunk(s);
    if (hold && !c.busy) c.busy = true, busy_chunks_.emplace_back(gpu, s);
    return s;
  }
  // A replay that evicts at every chunk it needs, in line.
  if (replaces_first_chunk(gpu)) return s = replace_first_chunk(gpu, slot, page, now, hold);
  const std::uint64_t first = (page >> chunk_shift_) << chunk_shift_;
  if (mem.has_free()) {
    s = mem.take(slot, first, /*pinned=*/false);
    if (hold) hold_chunk(gpu, mem.chunk(s));
    chunk_allocated(ChunkInfo{gpu, s, slot, first}, now);
    return s;
  }
  if (mem.pinned() + busy_chunks_.size() >= mem.capacity()) throw_nothing_evictable(gpu);
  const std::uint32_t victim = choose_victim(IncomingChunk{gpu, slot, first}, now);
  if (victim == kNoVictim || !mem.evictable(victim)) throw_no_victim(gpu, victim);
  // The victim is written back, released and taken again for `page`: a full
  // memory's free list is empty, so take would return the slot just released.
  // The policy hears both in one call (on_chunk_replaced).
  PhysicalChunk& c = mem.chunk(victim);
  write_back_chunk(gpu, c, now);
  const ChunkInfo evicted{gpu, victim, c.alloc, c.first_page};
  forget_chunk_slot(gpu, c);
  mem.retake(c, slot, first);
  s = victim;
  if (hold) hold_chunk(gpu, c);
  chunk_replaced(evicted, ChunkInfo{gpu, victim, slot, first}, now);
  if (prefetch_ahead_) prefetch_upcoming_victims(gpu);
  return s;
}

Nanos Engine::move_pages(AllocSlot slot, std::uint64_t block, const PageMask& pages, Processor dest, bool duplicate,
                         Nanos ready, Bytes* transferred) {
  Allocation& a = allocs_[slot];
  const std::uint64_t base = block * kPagesPerBlock;
  const ProcessorMask dbit = processor_bit(dest);
  Nanos t = ready;  // evictions to make room happen first, synchronously
  std::uint64_t zero_filled = 0;  // pages populated on a GPU destination (or in an APU's one memory)
  Processor run_from = Processor::none();
  std::uint64_t run_end = 0;
  Bytes run = 0;
  auto flush = [&] {
    if (run) add_copy(copy_batches_, run_from, dest, run);
    run = 0;
  };
  // The destination chunk of the previous page's region. It stays for the whole
  // call: chunk_for marks it busy, and busy chunks are never evicted.
  std::uint64_t chunk_region = ~std::uint64_t{0};
  std::uint32_t region_chunk = kNoSlot;
  PhysicalChunk* region = nullptr;  // region_chunk's record (deque elements never move)
  // The block's pages resident on a GPU destination (its bits set a word at a time).
  PageMask* const resident_here =
      dest.is_gpu() && !a.gpu_resident.empty() ? &a.gpu_resident[static_cast<std::size_t>(dest.gpu_index())][block]
                                               : nullptr;
  for_each_page(pages, [&](std::uint32_t i) {
    const std::uint64_t page = base + i;
    if (page >= a.page_count) return false;
    PageState& st = a.pages[page];
    if (st.copies & dbit) {  // already there: collapse other copies unless duplicating
      if (!duplicate)
        for (ProcessorMask o = static_cast<ProcessorMask>(st.copies & ~dbit); o; o &= static_cast<ProcessorMask>(o - 1))
          drop_copy(a, page, first_processor(o));
      st.mapped = mappings_for(a, st);
      return true;
    }
    std::uint32_t chunk = kNoSlot;
    if (dest.is_gpu()) {
      if ((page >> chunk_shift_) != chunk_region) {
        region_chunk = chunk_for(slot, a, dest.gpu_index(), page, t);
        chunk_region = page >> chunk_shift_;
        region = region_chunk == kNoSlot
                     ? nullptr
                     : &gpus_[static_cast<std::size_t>(dest.gpu_index())].memory.chunk(region_chunk);
      }
      chunk = region_chunk;
    }
    if (st.copies) {
      const Processor from = copy_source(st.copies, dest);
      if (from != run_from || page != run_end) flush();
      run_from = from;
      run_end = page + 1;
      run += kPageSize;
      if (!duplicate)  // every other copy goes (the CPU's too: drop_copy clears its bit and read-only flag)
        for (ProcessorMask o = st.copies; o; o &= static_cast<ProcessorMask>(o - 1)) drop_copy(a, page, first_processor(o));
    } else {
      flush();  // first touch: populated (zero-filled) at the destination, nothing copied
      a.mark_populated(page);
      if (dest.is_gpu() || vendor_.single_memory_pool) ++zero_filled;
    }
    st.copies |= dbit;
    st.mapped = mappings_for(a, st);
    if (chunk != kNoSlot) {
      PhysicalChunk& c = *region;
      if (c.resident++ == 0 && !c.fresh)
        eviction_->on_chunk_residency_changed(ChunkInfo{dest.gpu_index(), chunk, slot, c.first_page}, true, t);
      c.fresh = false;
      set_mask_word(*resident_here, i / 64, mask_word(*resident_here, i / 64) | std::uint64_t{1} << (i % 64));
    }
    return true;
  });
  flush();
  Nanos done = issue_copies(copy_batches_, t, transferred);
  // The GPU zero-fills the pages it populates (in parallel with the copies); on
  // an APU, the fault service zero-fills pages it populates in the shared memory.
  if (const Nanos fill = profile_.zero_fill_ns(zero_filled); fill > 0) done = std::max(done, t + fill);
  clear_busy_chunks();
  return done;
}

}  // namespace umsim::sim
