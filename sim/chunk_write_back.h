// Engine::write_back_chunk, in line where a chunk is evicted (evict_chunk in
// migration.cc, replace_first_chunk in first_chunk_replacement.h): its resident
// pages leave the GPU, sole copies written back to the CPU in contiguous runs
// as one copy on the GPU's device-to-host engines, duplicates dropped.
#pragma once

#include <algorithm>

#include "sim/engine.h"
#include "sim/page_mask_iteration.h"
#include "sim/page_runs.h"
#include "sim/page_word_records.h"

namespace umsim::sim {

// An evicted chunk of a page or three (scattered faults' evictions) goes page
// by page: fewer instructions than its runs found word by word.
inline constexpr std::uint32_t kFewestPagesByWord = 4;

template <bool kScattered>
[[gnu::always_inline]] inline void Engine::write_back_chunk(int gpu, PhysicalChunk& c, Nanos& now) {
  Allocation& a = allocs_[c.alloc];
  const ProcessorMask gbit = processor_bit(Processor::gpu(gpu));
  const std::uint64_t block = c.first_page / kPagesPerBlock;
  const std::uint64_t base = block * kPagesPerBlock;
  PageMask& resident = a.gpu_resident[static_cast<std::size_t>(gpu)][block];
  Bytes run = 0, written = 0;
  Nanos busy = 0;  // the runs' transfer times (add_copy's sum for one batch)
  std::uint64_t run_end = 0;
  auto end_run = [&] {
    written += run;
    busy += run_ns_d2h_[run / kPageSize];
    run = 0;
  };
  // The visit stops at the chunk's last resident page (c.resident of them): a
  // 2 MiB chunk evicted with a few pages need not scan its whole mask.
  std::uint32_t left = c.resident;
  auto leave = [&](std::uint32_t i) __attribute__((always_inline)) {  // page i, out of the resident mask already
    const std::uint64_t p = base + i;
    PageState& st = a.pages[p];
    const bool sole = st.copies == gbit;
    if (run && (!sole || p != run_end)) end_run();
    if (sole) run += kPageSize, run_end = p + 1;
    st.copies = sole ? kCpuBit : static_cast<ProcessorMask>(st.copies & ~gbit);
    st.mapped = mappings_for(a, st);  // AccessedBy GPUs keep a remote mapping (map_remote_on_eviction)
    st.flags &= static_cast<std::uint8_t>(~kPinned);
  };
  auto visit = [&](std::uint32_t i) __attribute__((always_inline)) {
    set_mask_word(resident, i / 64, mask_word(resident, i / 64) & ~(std::uint64_t{1} << (i % 64)));  // no bounds check
    leave(i);
    return --left != 0;
  };
  const auto first_in_block = static_cast<std::uint32_t>(c.first_page - base);
  if (left == 1 && pages_per_chunk_ == 1) visit(first_in_block);  // a 4 KiB chunk: its page, no mask walk
  else if (pages_per_chunk_ == kPagesPerBlock) {  // the chunk is the block
    // Where faults are scattered, its one page is most often the one it was
    // taken for: then no mask walk (the mask holds c.resident pages).
    const std::uint32_t taken_for = c.taken_for;
    if (kScattered && left == 1 && (mask_word(resident, taken_for / 64) >> (taken_for % 64) & 1)) visit(taken_for);
    else if (left >= kFewestPagesByWord && evicts_sole_copies(a)) {
      // Every page is a sole copy, written back: the runs are the mask's,
      // and each record is only written (mappings_for: the CPU's copy, no
      // AccessedBy advice).
      const auto host_mapping = static_cast<ProcessorMask>(kCpuBit | a.always_mapped);
      PageRunSum runs(run_ns_d2h_.data());
      PageState* const block_pages = a.pages.data() + base;
      take_page_words(resident, [&](std::uint32_t w, std::uint64_t x) __attribute__((always_inline)) {
        runs.add_word(w, x, [&](std::uint32_t at, std::uint32_t len) __attribute__((always_inline)) {
          set_run_records(block_pages + w * 64 + at, len, kCpuBit, host_mapping, kPinned);
        });
      });
      runs.finish();
      written = runs.bytes;
      busy = runs.busy;
    } else {
      take_pages(resident, leave);
    }
  }
  else if (left) for_each_page_in(resident, first_in_block, pages_per_chunk_, visit);
  if (run) end_run();
  if (c.resident) {
    Counters& cnt = counters();
    now += profile_.eviction_chunk_ns;
    if (written) {  // as issue_copies does for a GPU-to-CPU batch
      SharedLink& out = gpus_[static_cast<std::size_t>(gpu)].d2h;
      now = std::max(now, out.schedule(copy_client_, now, profile_.d2h.latency_ns + busy));
      cnt.bytes_d2h += written;
    }
    ++cnt.evictions;
    cnt.bytes_evicted += written;
  }
  c.resident = 0;
}

}  // namespace umsim::sim
