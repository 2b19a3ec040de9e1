// Engine::move_host_words, in line where a fault service moves pages from
// the host (service_quiet_pages, every fault of a replay over a large
// footprint; move_host_block): its call, with nine arguments and a frame of
// its own, cost about 45 instructions a service.
#pragma once

#include <algorithm>
#include <bit>
#include <type_traits>

#include "sim/engine.h"
#include "sim/first_chunk_replacement.h"
#include "sim/page_mask_iteration.h"
#include "sim/page_runs.h"
#include "sim/page_word_records.h"

namespace umsim::sim {

// A mask's only word a move reads (move_host_words' words [w, w + 1)), held
// as a value: the quiet service's one-word moves (80% of its services) keep
// it in a register, where an array indexed by w lives in memory.
struct OneMaskWord {
  std::uint64_t x;
  std::uint64_t operator[](std::uint32_t /*w*/) const { return x; }
};

namespace host_words_move {
// The first set page of `words` at or after `from`, in words before
// `end_word`; kPagesPerBlock if none.
template <typename Words>
inline std::uint32_t next_page(const Words& words, std::uint32_t from, std::uint32_t end_word) {
  for (std::uint32_t w = from / 64; w < end_word; ++w) {
    std::uint64_t x = words[w];
    if (w * 64 < from) x &= ~std::uint64_t{0} << (from - w * 64);
    if (x != 0) return w * 64 + static_cast<std::uint32_t>(std::countr_zero(x));
  }
  return kPagesPerBlock;
}
}  // namespace host_words_move

template <typename Words>
[[gnu::always_inline]] inline Nanos Engine::move_host_words(AllocSlot slot, Allocation& a, std::uint64_t block,
                                                           const Words& want, const Words& copied,
                                                           std::uint32_t first_word, std::uint32_t end_word,
                                                           std::uint32_t word_set, Processor dest, Nanos ready) {
  // One word as a value: the caller has checked that regions are of 64 pages
  // or more (one word, one region), so the walk over regions is left out.
  constexpr bool kOneWord = std::is_same_v<Words, OneMaskWord>;
  Nanos t = ready;  // evictions to make room happen first, synchronously
  const int g = dest.gpu_index();
  const auto gi = static_cast<std::size_t>(g);
  GpuState& gpu = gpus_[gi];
  const ProcessorMask dbit = processor_bit(dest);
  const std::uint64_t base = block * kPagesPerBlock;
  PageState* const block_pages = a.pages.data() + base;
  PageMask& resident = a.gpu_resident[gi][block];
  PageMask& populated = a.populated[block];
  std::uint64_t zero_filled = 0;
  // mappings_for's value for a page without AccessedBy advice, once.
  const auto unadvised_mapping = static_cast<ProcessorMask>(dbit | a.always_mapped);
  // The copied pages' runs (`copied` holds moving pages only), fed with each
  // region's words in page order as the records are written.
  PageRunSum copy_runs(run_ns_h2d_.data());
  // The chunk of page i's region; a full GPU's case in line.
  auto chunk_of = [&](std::uint32_t i, bool hold) __attribute__((always_inline)) {
    std::uint32_t& s = a.chunk_slot[gi][(base + i) >> chunk_shift_];
    return s == kNoSlot && replaces_first_chunk(g) ? (s = replace_first_chunk(g, slot, base + i, t, hold))
                                                   : chunk_for(slot, a, g, base + i, t, hold);
  };
  // Pages x of word w (all in one region) moved: their records, the masks
  // and the copy runs; returns how many.
  auto move_word = [&](std::uint32_t w, std::uint64_t x) __attribute__((always_inline)) {
    std::uint32_t moved = 0;
    // No page's mapping depends on its advice: the records are only written, a run at a time.
    auto write_run = [&](std::uint32_t at, std::uint32_t len) __attribute__((always_inline)) {
      set_run_records(block_pages + w * 64 + at, len, dbit, unadvised_mapping, 0);
      moved += len;
    };
    const std::uint64_t from_host = x & copied[w];
    if (from_host == x && !a.accessed_by_advised) {
      copy_runs.add_word(w, x, write_run);  // every page copied: the copies' runs are the records' runs
    } else {
      copy_runs.add_word(w, from_host);
      if (!a.accessed_by_advised) {
        for_each_run_in_word(x, write_run);
      } else {
        for (std::uint64_t y = x; y != 0; y &= y - 1, ++moved) {
          PageState& st = block_pages[w * 64 + static_cast<std::uint32_t>(std::countr_zero(y))];
          st.copies = dbit;
          st.mapped = st.accessed_by == 0 ? unadvised_mapping : mappings_for(a, st);
        }
      }
    }
    const std::uint64_t filled = x & ~from_host;  // zero-filled at the destination
    if (filled) {
      set_mask_word(populated, w, mask_word(populated, w) | filled);
      for (std::uint64_t y = filled; y != 0; y &= y - 1) ++zero_filled;
    }
    set_mask_word(resident, w, mask_word(resident, w) | x);
    return moved;
  };
  // The policy hears of a chunk's first resident page with the count at one,
  // as move_pages tells it page by page.
  auto count_moved = [&](std::uint32_t chunk, std::uint32_t moved) __attribute__((always_inline)) {
    PhysicalChunk& c = gpu.memory.chunk(chunk);
    if (c.resident == 0 && !c.fresh) {
      c.resident = 1;
      eviction_->on_chunk_residency_changed(ChunkInfo{g, chunk, slot, c.first_page}, true, t);
      c.resident += moved - 1;
    } else {
      c.resident += moved;
    }
    c.fresh = false;
  };
  // Regions of 64 pages or more start and end on mask-word boundaries: their
  // words need no window cut out.
  const bool whole_words = kOneWord || pages_per_chunk_ >= 64;
  if (kOneWord || (whole_words && end_word == first_word + 1)) {
    // Most moves of a fault service: one word (a faulted page and the
    // prefetcher's big page around it), so one region, without the walk.
    const std::uint64_t x = want[first_word];
    const std::uint32_t chunk = chunk_of(first_word * 64 + static_cast<std::uint32_t>(std::countr_zero(x)), false);
    count_moved(chunk, move_word(first_word, x));
  } else if constexpr (!kOneWord) {
    if (whole_words) {
      // Regions of whole words: the words with pages to move (word_set's
      // bits), a region's at a time, lowest first; the empty words between
      // them are not visited.
      std::uint32_t bits = word_set;
      const std::uint64_t last_region = (base + (31 - std::countl_zero(bits)) * 64) >> chunk_shift_;
      while (bits != 0) {
        auto w = static_cast<std::uint32_t>(std::countr_zero(bits));
        const std::uint32_t i = w * 64 + static_cast<std::uint32_t>(std::countr_zero(want[w]));
        const std::uint64_t region = (base + i) >> chunk_shift_;
        const auto end = static_cast<std::uint32_t>(std::min<std::uint64_t>(((region + 1) << chunk_shift_) - base, kPagesPerBlock));
        const std::uint32_t chunk = chunk_of(i, region != last_region);
        std::uint32_t moved = 0;
        do {
          moved += move_word(w, want[w]);
          bits &= bits - 1;
          w = static_cast<std::uint32_t>(std::countr_zero(bits));  // 32 where none is left
        } while (w * 64 < end);
        count_moved(chunk, moved);
      }
      copy_runs.finish();
      return land_host_moves(gpu, t, copy_runs.bytes, copy_runs.busy, zero_filled);
    }
    std::uint32_t last_word = end_word - 1;
    while (want[last_word] == 0) --last_word;
    const std::uint32_t last = last_word * 64 + 63 - static_cast<std::uint32_t>(std::countl_zero(want[last_word]));
    const std::uint64_t last_region = (base + last) >> chunk_shift_;
    // A chunk's region at a time, lowest first (i: its first page to move).
    for (std::uint32_t i = host_words_move::next_page(want, first_word * 64, end_word); i < kPagesPerBlock;) {
      const std::uint64_t region = (base + i) >> chunk_shift_;
      const auto end = static_cast<std::uint32_t>(std::min<std::uint64_t>(((region + 1) << chunk_shift_) - base, kPagesPerBlock));
      // Each chunk found stays held busy while a later region may still need a
      // chunk (and so evict), as move_pages holds it.
      const std::uint32_t chunk = chunk_of(i, region != last_region);
      std::uint32_t moved = 0;
      for (std::uint32_t w = i / 64; w * 64 < end && w <= last_word; ++w) {
        std::uint64_t x = want[w];
        if (!whole_words) {  // the region's window of the word
          if (w * 64 < i) x &= ~std::uint64_t{0} << (i - w * 64);
          if (end < w * 64 + 64) x &= (std::uint64_t{1} << (end - w * 64)) - 1;
        }
        if (x != 0) moved += move_word(w, x);
      }
      count_moved(chunk, moved);
      i = host_words_move::next_page(want, end, last_word + 1);
    }
  }
  copy_runs.finish();
  return land_host_moves(gpu, t, copy_runs.bytes, copy_runs.busy, zero_filled);
}

}  // namespace umsim::sim
