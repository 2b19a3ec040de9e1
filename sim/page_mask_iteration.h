// Visiting the set pages of a PageMask in ascending order, one 64-bit word at a
// time: std::bitset::_Find_next searches again from the bit position on every
// call, which shows on the fault path (512-page masks with few pages set).
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "sim/types.h"

namespace umsim::sim {

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

}  // namespace umsim::sim
