// The short path of a VA block service whose faulted pages all simply migrate
// from host memory (or are populated) to the faulting GPU: every fault of a
// page-granular replay over a large footprint, where a block gets one or a
// few of a batch's scattered faults. service_block handles any set of pages,
// placements, prefetch and thrashing policies through 512-page masks; these
// pages need none of that: the same arithmetic over the list of pages, with
// the copy runs summed in place instead of through copy batches (measured
// with callgrind on //bench:zipf_cache_bench and //bench:sim_replay_bench).
// It applies only where the result is identical by construction (see the
// conditions). A fault service's migrations with a prefetch policy's pages,
// when they all come from host memory or nowhere, move a word at a time
// (sim/host_block_move.cc).
#include <algorithm>

#include "sim/engine.h"
#include "sim/first_chunk_replacement.h"
#include "sim/page_mask_iteration.h"

namespace umsim::sim {

bool Engine::short_path_applies() const {
  // No prefetch policy (it could add pages), no thrashing policy (throttles,
  // pins and remote mappings come only from it), no migration policy of its
  // own, and the NVIDIA-like driver: no fault window, one memory per processor.
  return !prefetch_ && !thrashing_ && !decide_callbacks_ && !vendor_.single_memory_pool &&
         vendor_.gpu_fault_window_pages <= 1;
}

// move_pages for pages (ascending) of one block that are in host memory or
// nowhere, to a GPU; their flags `cleared` are cleared on the way.
[[gnu::always_inline]] inline Nanos Engine::move_host_pages(AllocSlot slot, Allocation& a, std::uint64_t block,
                                                            const std::uint32_t* pages, std::uint32_t n,
                                                            std::uint8_t cleared, Processor dest, Nanos ready) {
  Nanos t = ready;  // evictions to make room happen first, synchronously
  const int g = dest.gpu_index();
  GpuState& gpu = gpus_[static_cast<std::size_t>(g)];
  const ProcessorMask dbit = processor_bit(dest);
  const std::uint64_t base = block * kPagesPerBlock;
  PageMask& resident = a.gpu_resident[static_cast<std::size_t>(g)][block];
  // The host's copies are read in contiguous runs, as one copy operation on
  // the GPU's host-to-device engines (add_copy's sum for one batch).
  Bytes run = 0, copied = 0;
  Nanos busy = 0;
  std::uint64_t run_end = 0, zero_filled = 0;
  auto end_run = [&] {
    copied += run;
    busy += run_ns_h2d_[run / kPageSize];
    run = 0;
  };
  // Each chunk found stays for the call: it is held busy while a later page
  // may still need a chunk (and so evict), as move_pages holds it.
  const std::uint64_t last_region = (base + pages[n - 1]) >> chunk_shift_;
  std::uint64_t region = ~std::uint64_t{0};
  std::uint32_t chunk = kNoSlot;
  PhysicalChunk* c = nullptr;
  for (std::uint32_t k = 0; k < n; ++k) {
    const std::uint32_t i = pages[k];
    const std::uint64_t page = base + i;
    if ((page >> chunk_shift_) != region) {
      region = page >> chunk_shift_;
      std::uint32_t& s = a.chunk_slot[static_cast<std::size_t>(g)][region];
      const bool hold = region != last_region;
      // chunk_for's case of a full GPU, without its call: every fault of a replay over a large footprint.
      // Where faults are scattered the victim most often holds the one page it
      // was taken for, whether this block has one faulted page or a few: that
      // page leaves without a mask walk (replace_first_chunk<true>).
      if (s == kNoSlot && replaces_first_chunk(g)) chunk = s = replace_first_chunk<true>(g, slot, page, t, hold);
      else chunk = chunk_for(slot, a, g, page, t, hold);
      c = &gpu.memory.chunk(chunk);
    }
    PageState& st = a.pages[page];
    st.flags &= static_cast<std::uint8_t>(~cleared);
    if (st.copies) {  // the host's copy is read; otherwise zero-filled at the destination
      if (run && page != run_end) end_run();
      run += kPageSize;
      run_end = page + 1;
    } else {
      if (run) end_run();
      a.mark_populated(page);
      ++zero_filled;
    }
    st.copies = dbit;
    st.mapped = mappings_for(a, st);
    if (c->resident++ == 0 && !c->fresh)
      eviction_->on_chunk_residency_changed(ChunkInfo{g, chunk, slot, c->first_page}, true, t);
    c->fresh = false;
    set_mask_word(resident, i / 64, mask_word(resident, i / 64) | std::uint64_t{1} << (i % 64));
  }
  if (run) end_run();
  return land_host_moves(gpu, t, copied, busy, zero_filled);
}

// Inlined into its two callers below: service_page's single page folds the loops away.
template <bool kScattered, bool kOneGpu>
[[gnu::always_inline]] inline bool Engine::try_service_short(AllocSlot slot, std::uint64_t block,
                                                             const std::uint32_t* pages, std::uint32_t n) {
  if (!short_path_) return false;
  Allocation& a = allocs_[slot];
  const std::uint64_t base = block * kPagesPerBlock;
  PageState* const block_pages = a.pages.data() + base;
  // Unadvised and nowhere but in host memory (or nowhere yet): the driver's
  // default migrates each to the requester, whatever the access type.
  std::uint32_t copied = 0;
  for (std::uint32_t k = 0; k < n; ++k) {
    const PageState& st = block_pages[pages[k]];
    if (st.advised() || (st.copies != 0 && st.copies != kCpuBit)) return false;
    copied += st.copies != 0;
  }
  BlockState& bs = a.blocks[block];
  const Processor requester = Processor::gpu(kOneGpu ? 0 : kernel_.gpu);
  Nanos& now = kernel_.now;
  if (bs.throttle_until > now) now = bs.throttle_until;
  // A block with nothing to copy is only populated (service_block's block
  // cost); one page's costs are summed once per run (short_costs_).
  if constexpr (kScattered) now += short_costs_.one_page[copied];
  else now += short_costs_.block[copied != 0] + profile_.fault_page_ns * n;
  kernel_counters_.gpu_fault_pages += n;
  if (bs.last_destination == requester.code) bs.fault_migrations += n;
  else bs.fault_migrations = n, bs.last_destination = requester.code;
  // The fault-buffer flags go, and an expired thrashing pin (as service_block clears them).
  const auto cleared =
      static_cast<std::uint8_t>(kInFaultBuffer | kFaultWrite | (bs.pin_until <= now ? kPinned : 0));
  if constexpr (kScattered) {
    if (copied) now += short_costs_.copied_extra;  // its migrated-page cost and its one run
  } else if (profile_.fault_migrated_page_ns != 0) {
    now += static_cast<Nanos>(copied) * profile_.fault_migrated_page_ns;
  }
  if (!kScattered && profile_.fault_run_ns && copied) {
    // Runs of consecutive pages with a host copy (service_block's copy_runs).
    std::uint32_t runs = 0;
    for (std::uint32_t k = 0; k < n; ++k)
      if (block_pages[pages[k]].copies &&
          (k == 0 || pages[k - 1] + 1 != pages[k] || !block_pages[pages[k - 1]].copies))
        ++runs;
    now += static_cast<Nanos>(runs) * *profile_.fault_run_ns;
  }
  now = move_host_pages(slot, a, block, pages, n, cleared, requester, now);
  return true;
}

void Engine::service_page(AllocSlot slot, std::uint64_t block, std::uint32_t i) {
  if (try_service_short<true>(slot, block, &i, 1)) return;
  PageMask faulted;
  faulted.set(i);
  service_block(slot, block, faulted, 1);
}

// Scattered faults make runs of one page each: serviced in one loop, without
// a call (and its register saves) per page.
std::size_t Engine::service_page_runs(std::size_t r) {
  for (; r < fault_runs_.size(); ++r) {
    const FaultRun& run = fault_runs_[r];
    if (run.end - run.begin != 1) break;
    const FaultEntry entry = fault_buffer_[run.begin];
    const std::uint64_t block = entry.page() / kPagesPerBlock;
    const auto i = static_cast<std::uint32_t>(entry.page() % kPagesPerBlock);
    if (try_service_short<true>(entry.alloc(), block, &i, 1)) continue;
    // service_block's first try, without its mask and frame (a replay at
    // random under the NVIDIA policies: every fault); where it declines, it
    // changed nothing and service_block goes on without it.
    if (quiet_pages_ && service_quiet_pages(entry.alloc(), block, &i, 1)) continue;
    PageMask faulted;
    faulted.set(i);
    service_block(entry.alloc(), block, faulted, 1, /*quiet_tried=*/true);
  }
  return r;
}

bool Engine::service_short(AllocSlot slot, std::uint64_t block, const std::uint32_t* pages, std::uint32_t n) {
  // With one GPU its index is a constant, as in service_lone_runs.
  if (gpus_.size() == 1) return try_service_short<false, true>(slot, block, pages, n);
  return try_service_short<false>(slot, block, pages, n);
}

}  // namespace umsim::sim
