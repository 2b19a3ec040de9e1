// Sorts entries ascending by their 64-bit `key` (or by its bits from
// `from_bit` up: entries equal there stay in no particular order) with a
// least-significant-digit radix sort over the bits in which the keys differ:
// a fault batch's scattered keys (alloc << 40 | page, up to 256 of them)
// differ in the low twenty-odd bits, and their VA blocks (the bits from 9 up)
// in a dozen: two or three passes without a branch per entry, where a
// comparison sort mispredicts about every other comparison of random keys.
// Short inputs go to std::sort (by the whole key).
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace umsim::sim {

template <class Entry>
void radix_sort_by_key(std::vector<Entry>& v, std::vector<Entry>& scratch, int from_bit = 0) {
  constexpr std::size_t kShortInput = 64;  // below it, counting 2 x 2^digit buckets per pass costs more
  const std::size_t n = v.size();
  if (n < kShortInput) {
    std::sort(v.begin(), v.end(), [](const Entry& x, const Entry& y) { return x.key < y.key; });
    return;
  }
  std::uint64_t differ = 0;
  for (const Entry& e : v) differ |= e.key ^ v.front().key;
  differ &= ~std::uint64_t{0} << from_bit;
  if (differ == 0) return;
  const int low = __builtin_ctzll(differ), high = 64 - __builtin_clzll(differ);
  const int passes = (high - low + 7) / 8;
  const int digit = (high - low + passes - 1) / passes;  // at most 8 bits
  const std::uint64_t mask = (std::uint64_t{1} << digit) - 1;
  scratch.resize(n);
  Entry* from = v.data();
  Entry* to = scratch.data();
  for (int p = 0, shift = low; p < passes; ++p, shift += digit) {
    std::uint32_t start[256] = {};
    for (std::size_t i = 0; i < n; ++i) ++start[(from[i].key >> shift) & mask];
    std::uint32_t sum = 0;
    for (std::uint64_t b = 0; b <= mask; ++b) {
      const std::uint32_t c = start[b];
      start[b] = sum;
      sum += c;
    }
    for (std::size_t i = 0; i < n; ++i) to[start[(from[i].key >> shift) & mask]++] = from[i];
    std::swap(from, to);
  }
  if (from != v.data()) std::copy(from, from + n, v.data());
}

}  // namespace umsim::sim
