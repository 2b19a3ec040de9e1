// The short path of a VA block service with one faulted page (every fault of
// a page-granular replay over a large footprint, and of a batch of one under
// the `ideal` profile). service_block handles any set of pages, placements,
// prefetch and thrashing policies through 512-page masks; a single page that
// simply migrates from host memory (or is populated) to the faulting GPU needs
// none of that: the same arithmetic in straight-line code, a fifth of the
// instructions (measured with callgrind on //bench:zipf_cache_bench). It applies
// only where the result is identical by construction (see the conditions).
#include <algorithm>

#include "sim/engine.h"

namespace umsim::sim {

bool Engine::single_page_path_applies() const {
  // No prefetch policy (it could add pages), no thrashing policy (throttles,
  // pins and remote mappings come only from it), no migration policy of its
  // own, and the NVIDIA-like driver: no fault window, one memory per processor.
  return !prefetch_ && !thrashing_ && !decide_callbacks_ && !vendor_.single_memory_pool &&
         vendor_.gpu_fault_window_pages <= 1;
}

bool Engine::try_service_single_page(AllocSlot slot, std::uint64_t block, std::uint32_t i) {
  Allocation& a = allocs_[slot];
  const std::uint64_t page = block * kPagesPerBlock + i;
  PageState& st = a.pages[page];
  // Unadvised and nowhere but in host memory (or nowhere yet): the driver's
  // default migrates it to the requester, whatever the access type.
  if (!single_page_path_ || st.advised() || (st.copies != 0 && st.copies != kCpuBit)) return false;
  BlockState& bs = a.blocks[block];
  const Processor requester = Processor::gpu(kernel_.gpu);
  Nanos& now = kernel_.now;
  if (bs.throttle_until > now) now = bs.throttle_until;
  const bool populate = st.copies == 0;
  now += (populate ? profile_.populate_block_ns() : profile_.fault_va_block_ns) + profile_.fault_page_ns;
  ++kernel_counters_.gpu_fault_pages;
  st.flags &= static_cast<std::uint8_t>(~(kInFaultBuffer | kFaultWrite));
  if ((st.flags & kPinned) && bs.pin_until <= now) st.flags &= static_cast<std::uint8_t>(~kPinned);
  if (bs.last_destination == requester.code) ++bs.fault_migrations;
  else bs.fault_migrations = 1, bs.last_destination = requester.code;
  if (!populate) now += profile_.fault_migrated_page_ns;
  now = move_single_page(slot, a, page, requester, now);
  return true;
}

// move_pages for one page that is in host memory or nowhere, to a GPU.
Nanos Engine::move_single_page(AllocSlot slot, Allocation& a, std::uint64_t page, Processor dest, Nanos ready) {
  Nanos t = ready;  // evictions to make room happen first, synchronously
  const int g = dest.gpu_index();
  GpuState& gpu = gpus_[static_cast<std::size_t>(g)];
  // Nothing is evicted after this chunk is found: it need not be held busy.
  const std::uint32_t chunk = chunk_for(slot, a, g, page, t, /*hold=*/false);
  PageState& st = a.pages[page];
  const bool copy = st.copies != 0;  // the host's copy is read; otherwise zero-filled at the destination
  if (!copy) a.mark_populated(page);
  st.copies = processor_bit(dest);
  st.mapped = mappings_for(a, st);
  PhysicalChunk& c = gpu.memory.chunk(chunk);
  if (c.resident++ == 0 && !c.fresh) eviction_->on_chunk_residency_changed(ChunkInfo{g, chunk, slot, c.first_page}, true, t);
  c.fresh = false;
  a.gpu_resident[static_cast<std::size_t>(g)][page / kPagesPerBlock].set(page % kPagesPerBlock);
  if (copy) {
    counters().bytes_h2d += kPageSize;
    return std::max(t, gpu.h2d.schedule(t, profile_.h2d.latency_ns + run_ns_h2d_[1]));
  }
  return t + profile_.zero_fill_ns(1);
}

}  // namespace umsim::sim
