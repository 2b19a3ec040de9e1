// Contiguous runs of pages in a block's mask, found a word at a time. A block's
// copy in one direction is one operation whose transfer time is the sum of its
// runs' times (add_copy's sum for one batch): only the runs' lengths matter,
// so a move can note which pages it copies as mask bits and sum the runs
// after, instead of tracking the open run page by page.
#pragma once

#include <bit>
#include <cstdint>

#include "sim/types.h"

namespace umsim::sim {

// For every run of consecutive set pages in words [first, end) of a block's
// mask (64 pages a word; a run may cross words): `bytes` += its size and
// `busy` += run_ns[its pages].
[[gnu::always_inline]] inline void add_page_runs(const std::uint64_t* words, std::uint32_t first, std::uint32_t end,
                                                 const Nanos* run_ns, Bytes& bytes, Nanos& busy) {
  std::uint32_t open = 0;  // pages of the run reaching the current position
  auto close = [&] {
    if (open == 0) return;
    bytes += Bytes{open} * kPageSize;
    busy += run_ns[open];
    open = 0;
  };
  for (std::uint32_t w = first; w < end; ++w) {
    std::uint64_t x = words[w];
    std::uint32_t pos = 0;
    while (x != 0) {
      const auto gap = static_cast<std::uint32_t>(std::countr_zero(x));
      if (gap != 0) close();
      x >>= gap;
      const auto len = static_cast<std::uint32_t>(std::countr_one(x));
      open += len;
      pos += gap + len;
      x = len == 64 ? 0 : x >> len;
    }
    if (pos < 64) close();  // the word's last run ends before the word does
  }
  close();
}

// The number of runs of consecutive set pages in words [first, end) of a
// block's mask (a run may cross words): a run starts at a set bit whose lower
// neighbour is clear.
inline std::uint32_t count_page_runs(const std::uint64_t* words, std::uint32_t first, std::uint32_t end) {
  std::uint32_t runs = 0;
  std::uint64_t carry = 0;  // the previous word's top bit
  for (std::uint32_t w = first; w < end; ++w) {
    const std::uint64_t x = words[w];
    runs += static_cast<std::uint32_t>(std::popcount(x & ~((x << 1) | carry)));
    carry = x >> 63;
  }
  return runs;
}

// count_page_runs over words [first, end) of a block's page mask.
inline std::uint32_t count_page_runs(const PageMask& mask, std::uint32_t first, std::uint32_t end) {
  std::uint64_t words[kPagesPerBlock / 64];
  for (std::uint32_t w = first; w < end; ++w) words[w] = mask_word(mask, w);
  return count_page_runs(words, first, end);
}

}  // namespace umsim::sim
