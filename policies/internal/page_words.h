// Word-level view of a 512-page block mask. sim::PageMask is a std::bitset, whose
// per-bit API is too slow for range counts and fills on the fault path; policies
// copy it into eight 64-bit words, work on those, and copy back.
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>

#include "sim/types.h"

namespace umsim::policies {

// Population count without a libgcc call: the default x86-64 target has no POPCNT
// instruction, and std::popcount then costs a function call per word.
inline std::uint32_t popcount64(std::uint64_t x) {
  x = x - ((x >> 1) & 0x5555555555555555ull);
  x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
  x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0full;
  return static_cast<std::uint32_t>((x * 0x0101010101010101ull) >> 56);
}

struct PageWords {
  static constexpr std::uint32_t kWords = sim::kPagesPerBlock / 64;
  std::uint64_t w[kWords] = {};

  // libstdc++ stores bitset<512> as exactly eight 64-bit words, bit i in word i/64.
  static_assert(sizeof(sim::PageMask) == kWords * sizeof(std::uint64_t), "unexpected std::bitset layout");

  static PageWords of(const sim::PageMask& m) {
    PageWords p;
    std::memcpy(p.w, &m, sizeof(p.w));
    return p;
  }
  sim::PageMask mask() const {
    sim::PageMask m;
    std::memcpy(&m, w, sizeof(w));
    return m;
  }

  bool test(std::uint32_t page) const { return (w[page >> 6] >> (page & 63)) & 1u; }
  void set(std::uint32_t page) { w[page >> 6] |= std::uint64_t{1} << (page & 63); }
  bool none() const {  // in a tree of ORs (a loop takes twice the instructions)
    static_assert(kWords == 8);
    return ((w[0] | w[1]) | (w[2] | w[3]) | ((w[4] | w[5]) | (w[6] | w[7]))) == 0;
  }
  std::uint32_t count() const {
    std::uint32_t n = 0;
    for (auto x : w) n += popcount64(x);
    return n;
  }

  // Bits [first, end) of one word (first < end <= first word's end) as a mask.
  static std::uint64_t word_span(std::uint32_t first, std::uint32_t end) {
    const std::uint32_t len = end - first;
    const std::uint64_t ones = len >= 64 ? ~std::uint64_t{0} : ((std::uint64_t{1} << len) - 1);
    return ones << (first & 63);
  }

  // Number of set pages in [first, end).
  std::uint32_t count(std::uint32_t first, std::uint32_t end) const {
    std::uint32_t n = 0;
    while (first < end) {
      const std::uint32_t word_end = std::min<std::uint32_t>((first | 63) + 1, end);
      n += popcount64(w[first >> 6] & word_span(first, word_end));
      first = word_end;
    }
    return n;
  }
  bool any(std::uint32_t first, std::uint32_t end) const {
    while (first < end) {
      const std::uint32_t word_end = std::min<std::uint32_t>((first | 63) + 1, end);
      if (w[first >> 6] & word_span(first, word_end)) return true;
      first = word_end;
    }
    return false;
  }
  void fill(std::uint32_t first, std::uint32_t end) {
    while (first < end) {
      const std::uint32_t word_end = std::min<std::uint32_t>((first | 63) + 1, end);
      w[first >> 6] |= word_span(first, word_end);
      first = word_end;
    }
  }
  // Keeps only pages [0, pages).
  void truncate(std::uint32_t pages) {
    if (pages >= sim::kPagesPerBlock) return;  // a whole block: nothing to drop
    for (std::uint32_t i = 0; i < kWords; ++i) {
      const std::uint32_t lo = i * 64;
      if (pages <= lo) w[i] = 0;
      else if (pages < lo + 64) w[i] &= (std::uint64_t{1} << (pages - lo)) - 1;
    }
  }

  PageWords& operator|=(const PageWords& o) {
    for (std::uint32_t i = 0; i < kWords; ++i) w[i] |= o.w[i];
    return *this;
  }
  PageWords& operator&=(const PageWords& o) {
    for (std::uint32_t i = 0; i < kWords; ++i) w[i] &= o.w[i];
    return *this;
  }
  PageWords& clear(const PageWords& o) {  // this &= ~o
    for (std::uint32_t i = 0; i < kWords; ++i) w[i] &= ~o.w[i];
    return *this;
  }

  // Calls fn(page) for every set page in ascending order.
  template <typename Fn>
  void for_each(Fn&& fn) const {
    for (std::uint32_t i = 0; i < kWords; ++i) {
      for (std::uint64_t x = w[i]; x != 0; x &= x - 1) fn(i * 64 + static_cast<std::uint32_t>(std::countr_zero(x)));
    }
  }
};

}  // namespace umsim::policies
