// A fault service's migrations to a GPU whose pages are all in host memory or
// nowhere: on a replay over a large footprint, the faulted page and the
// prefetcher's 64 KiB around it, about 20 pages of a block at every fault.
// Their records are read once (host_only_pages), and the service's counts take
// the pages with a host copy as a mask. move_host_pages follows a short list of
// faulted pages page by page; here the page records still change one by one,
// but the block's resident and populated masks, the chunk's resident count and
// the copy runs (sim/page_runs.h) change a mask word at a time, with the same
// result.
#include <algorithm>
#include <bit>
#include <cstring>

#include "sim/engine.h"
#include "sim/host_words_move.h"
#include "sim/page_mask_iteration.h"

namespace umsim::sim {

namespace {
constexpr std::uint32_t kWords = kPagesPerBlock / 64;
}  // namespace

bool Engine::host_only_pages(const Allocation& a, std::uint64_t block, const PageMask& pages,
                             PageMask& with_copy) const {
  const std::uint32_t in_block = a.pages_in_block(block);
  const PageState* const block_pages = a.pages.data() + block * kPagesPerBlock;
  for (std::uint32_t w = 0; w < kWords; ++w) {
    const std::uint64_t x = mask_word(pages, w);
    if (x == 0) continue;
    if (x & ~pages_below_in_word(in_block, w)) return false;
    // Every word checked at once: a host copy is bit 0 of `copies` (kCpuBit).
    std::uint64_t copy = 0;
    ProcessorMask any = 0;
    for (std::uint64_t y = x; y != 0; y &= y - 1) {
      const auto i = static_cast<std::uint32_t>(std::countr_zero(y));
      const ProcessorMask copies = block_pages[w * 64 + i].copies;
      any |= copies;
      copy |= static_cast<std::uint64_t>(copies & kCpuBit) << i;
    }
    if (any & ~kCpuBit) return false;
    set_mask_word(with_copy, w, copy);
  }
  return true;
}

Nanos Engine::move_host_block(AllocSlot slot, Allocation& a, std::uint64_t block, const PageMask& pages,
                              const PageMask& with_copy, Processor dest, Nanos ready) {
  std::uint64_t want[kWords], copied[kWords];
  std::memcpy(want, &pages, sizeof(want));
  std::memcpy(copied, &with_copy, sizeof(copied));
  std::uint32_t word_set = 0;
  for (std::uint32_t w = 0; w < kWords; ++w) word_set |= static_cast<std::uint32_t>(want[w] != 0) << w;
  return move_host_words(slot, a, block, want, copied, 0, kWords, word_set, dest, ready);
}


}  // namespace umsim::sim
