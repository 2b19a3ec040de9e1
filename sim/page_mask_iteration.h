// Visiting the set pages of a PageMask in ascending order, one 64-bit word at a
// time: std::bitset::_Find_next searches again from the bit position on every
// call, which shows on the fault path (512-page masks with few pages set).
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "sim/types.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace umsim::sim {

// Whether any page is set, and the lowest set page (kPagesPerBlock if none):
// std::bitset::any and _Find_first test the words one by one with a branch
// each, and the fault path asks of masks that are mostly empty several times
// a block service. The OR of the eight words takes no branch (unrolled: GCC
// keeps the loop at -O2, at five instructions a word).
inline bool any_page(const PageMask& mask) {
  std::uint64_t any = 0;
#pragma GCC unroll 8
  for (std::uint32_t w = 0; w < kPagesPerBlock / 64; ++w) any |= mask_word(mask, w);
  return any != 0;
}
inline std::uint32_t first_page(const PageMask& mask) {
  for (std::uint32_t w = 0; w < kPagesPerBlock / 64; ++w)
    if (const std::uint64_t x = mask_word(mask, w)) return w * 64 + static_cast<std::uint32_t>(std::countr_zero(x));
  return kPagesPerBlock;
}

// The mask of words [first, end) of `words`, its other words empty: a mask
// built a word at a time, for a caller that takes a PageMask.
inline PageMask mask_of_words(const std::uint64_t* words, std::uint32_t first, std::uint32_t end) {
  PageMask mask;
  for (std::uint32_t w = first; w < end; ++w) set_mask_word(mask, w, words[w]);
  return mask;
}

// The mask of `words`' words whose bits are set in `word_set` (bit w: word
// w), its other words empty.
inline PageMask mask_of_word_set(const std::uint64_t* words, std::uint32_t word_set) {
  PageMask mask;
  for (; word_set != 0; word_set &= word_set - 1) {
    const auto w = static_cast<std::uint32_t>(std::countr_zero(word_set));
    set_mask_word(mask, w, words[w]);
  }
  return mask;
}

// The mask of word w alone.
inline PageMask mask_of_word(std::uint32_t w, std::uint64_t x) {
  PageMask mask;
  set_mask_word(mask, w, x);
  return mask;
}

// The number of set pages of a mask word. The default x86-64 target has no
// POPCNT instruction: std::bitset::count and std::popcount call libgcc per
// word, where this counts in a dozen instructions.
[[gnu::always_inline]] inline std::uint32_t count_word(std::uint64_t x) {
  x = x - ((x >> 1) & 0x5555555555555555ull);
  x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
  x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0full;
  return static_cast<std::uint32_t>((x * 0x0101010101010101ull) >> 56);
}

// The number of set pages, a word at a time (empty words skipped).
inline std::uint32_t count_pages(const PageMask& mask) {
  std::uint32_t n = 0;
  for (std::uint32_t w = 0; w < kPagesPerBlock / 64; ++w)
    if (const std::uint64_t x = mask_word(mask, w)) n += count_word(x);
  return n;
}

// Calls fn(page) for every set page, lowest first. A fn returning bool stops
// the visit by returning false.
template <typename Fn>
void for_each_page(const PageMask& mask, Fn&& fn) {
  constexpr std::uint32_t kWords = kPagesPerBlock / 64;
  // libstdc++ stores bitset<512> as exactly eight 64-bit words, bit i in word i / 64.
  static_assert(sizeof(PageMask) == kWords * sizeof(std::uint64_t), "unexpected std::bitset layout");
  std::uint64_t words[kWords];
  std::memcpy(words, &mask, sizeof(words));
  for (std::uint32_t w = 0; w < kWords; ++w) {
    for (std::uint64_t x = words[w]; x != 0; x &= x - 1) {
      const std::uint32_t page = w * 64 + static_cast<std::uint32_t>(std::countr_zero(x));
      if constexpr (std::is_same_v<std::invoke_result_t<Fn&, std::uint32_t>, bool>) {
        if (!fn(page)) return;
      } else {
        fn(page);
      }
    }
  }
}

// for_each_page restricted to pages [first, first + count) (a chunk's window of
// its VA block): only the words of the window are read. A fn returning bool
// stops the visit by returning false. Always in line: a call would make fn
// reach its captures through memory (an eviction's page visit, at every fault).
template <typename Fn>
[[gnu::always_inline]] inline void for_each_page_in(const PageMask& mask, std::uint32_t first, std::uint32_t count, Fn&& fn) {
  static_assert(sizeof(PageMask) == kPagesPerBlock / 8, "unexpected std::bitset layout");
  const std::uint32_t end = first + count;
  for (std::uint32_t w = first / 64; w * 64 < end; ++w) {
    std::uint64_t x = mask_word(mask, w);  // the word alone: a 4 KiB chunk's window is one bit of one word
    if (x == 0) continue;  // most words of an evicted 2 MiB chunk with a few pages: no window arithmetic
    if (w * 64 < first) x &= ~std::uint64_t{0} << (first - w * 64);
    if (end < w * 64 + 64) x &= (std::uint64_t{1} << (end - w * 64)) - 1;
    for (; x != 0; x &= x - 1) {
      const std::uint32_t page = w * 64 + static_cast<std::uint32_t>(std::countr_zero(x));
      if constexpr (std::is_same_v<std::invoke_result_t<Fn&, std::uint32_t>, bool>) {
        if (!fn(page)) return;
      } else {
        fn(page);
      }
    }
  }
}

// Bit 2 * w set for every word w of the mask with a page set, found without
// a branch per word. With SSE2 the words' 32-bit halves are packed to bytes
// (signed saturation keeps a half that is not zero so) and compared with zero
// at once: about 15 instructions for the eight words, where a test per word
// took about 40 (an evicted 2 MiB chunk's mask, at every eviction of a replay
// over a large footprint).
[[gnu::always_inline]] inline std::uint32_t nonempty_words_at_even_bits(const PageMask& mask) {
#if defined(__SSE2__)
  static_assert(sizeof(PageMask) == 4 * sizeof(__m128i), "unexpected std::bitset layout");
  const auto* const at = reinterpret_cast<const unsigned char*>(&mask);
  auto pair = [&](std::uint32_t k) { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(at + k * sizeof(__m128i))); };
  const __m128i halves = _mm_packs_epi16(_mm_packs_epi32(pair(0), pair(1)), _mm_packs_epi32(pair(2), pair(3)));
  const auto empty = static_cast<std::uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(halves, _mm_setzero_si128())));
  const std::uint32_t full = ~empty & 0xffffu;  // bit 2w + h: half h of word w has a page
  return (full | full >> 1) & 0x5555u;
#else
  std::uint32_t words = 0;
#pragma GCC unroll 8
  for (std::uint32_t w = 0; w < kPagesPerBlock / 64; ++w) words |= std::uint32_t{mask_word(mask, w) != 0} << (2 * w);
  return words;
#endif
}

// Calls fn(w, x) for every non-empty word w of the mask, lowest first, with
// its pages x, and clears it: an evicted 2 MiB chunk's pages (its whole VA
// block's mask, with one or a few pages set), without for_each_page_in's
// window arithmetic or a store per page. The non-empty words are found first,
// without a branch per word: with a page or two at random places, a test per
// word mispredicted about once an eviction.
template <typename Fn>
[[gnu::always_inline]] inline void take_page_words(PageMask& mask, Fn&& fn) {
  for (std::uint32_t words = nonempty_words_at_even_bits(mask); words != 0; words &= words - 1) {
    const auto w = static_cast<std::uint32_t>(std::countr_zero(words)) / 2;
    const std::uint64_t x = mask_word(mask, w);
    set_mask_word(mask, w, 0);
    fn(w, x);
  }
}

// take_page_words calling fn(page) for each page, lowest first.
template <typename Fn>
[[gnu::always_inline]] inline void take_pages(PageMask& mask, Fn&& fn) {
  take_page_words(mask, [&](std::uint32_t w, std::uint64_t x) __attribute__((always_inline)) {
    for (; x != 0; x &= x - 1) fn(w * 64 + static_cast<std::uint32_t>(std::countr_zero(x)));
  });
}

}  // namespace umsim::sim
