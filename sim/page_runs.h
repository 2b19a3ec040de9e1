// Contiguous runs of pages in a block's mask, found a word at a time. A block's
// copy in one direction is one operation whose transfer time is the sum of its
// runs' times (add_copy's sum for one batch): only the runs' lengths matter,
// so a move sums the runs of the pages it copies a mask word at a time
// (PageRunSum), instead of tracking the open run page by page.
#pragma once

#include <bit>
#include <cstdint>

#include "sim/types.h"

namespace umsim::sim {

// Calls fn(at, len) for every run of consecutive set bits of x, lowest first:
// bits at to at + len - 1 (a run reaching bit 63 ends there).
template <typename Fn>
[[gnu::always_inline]] inline void for_each_run_in_word(std::uint64_t x, Fn&& fn) {
  std::uint32_t at = 0;
  while (x != 0) {
    const auto gap = static_cast<std::uint32_t>(std::countr_zero(x));
    at += gap;
    x >>= gap;
    const auto len = static_cast<std::uint32_t>(std::countr_one(x));
    fn(at, len);
    at += len;
    x = len == 64 ? 0 : x >> len;
  }
}

// Sums the runs of consecutive set pages of a block's mask given a word at a
// time, lowest first (empty words may be left out; a run may cross words):
// bytes, each run's size, and busy, run_ns[its pages] for each run. An
// evicted chunk's write-back feeds it the words it takes, without a branch
// per page.
class PageRunSum {
 public:
  explicit PageRunSum(const Nanos* run_ns) : run_ns_(run_ns) {}

  // Word w of the mask (pages w * 64 to w * 64 + 63), after every lower word
  // given; each_run(at, len) is called for the word's runs (pages w * 64 + at
  // on), which a caller that writes the pages' records takes a run at a time.
  template <typename EachRun>
  [[gnu::always_inline]] void add_word(std::uint32_t w, std::uint64_t x, EachRun&& each_run) {
    for_each_run_in_word(x, [&](std::uint32_t at, std::uint32_t len) __attribute__((always_inline)) {
      const std::uint32_t first = w * 64 + at;
      if (first != open_end_) close();  // the open run ended before this one starts
      open_ += len;
      open_end_ = first + len;
      each_run(at, len);
    });
  }
  [[gnu::always_inline]] void add_word(std::uint32_t w, std::uint64_t x) {
    add_word(w, x, [](std::uint32_t, std::uint32_t) {});
  }
  // After the last word: the open run ends.
  [[gnu::always_inline]] void finish() { close(); }

  Bytes bytes = 0;
  Nanos busy = 0;

 private:
  [[gnu::always_inline]] void close() {
    if (open_ == 0) return;
    bytes += Bytes{open_} * kPageSize;
    busy += run_ns_[open_];
    open_ = 0;
  }

  const Nanos* run_ns_;
  std::uint32_t open_ = 0;      // pages of the run not yet closed
  std::uint32_t open_end_ = 0;  // the page after it
};

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

// count_page_runs over the words whose bits are set in `word_set` (bit w: word
// w), the others empty.
inline std::uint32_t count_page_runs_of_set(const std::uint64_t* words, std::uint32_t word_set) {
  std::uint32_t runs = 0;
  std::uint64_t prev = 0;         // the previous word given
  std::uint32_t prev_w = 64;      // its index (none yet)
  for (; word_set != 0; word_set &= word_set - 1) {
    const auto w = static_cast<std::uint32_t>(std::countr_zero(word_set));
    const std::uint64_t x = words[w];
    const std::uint64_t carry = prev_w + 1 == w ? prev >> 63 : 0;
    runs += static_cast<std::uint32_t>(std::popcount(x & ~((x << 1) | carry)));
    prev = x;
    prev_w = w;
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
