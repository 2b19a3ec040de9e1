// Sorts entries ascending by their 64-bit `key` (or by its bits from
// `from_bit` up: entries equal there stay in no particular order) with a
// least-significant-digit radix sort over the bits in which the keys differ:
// a fault batch's scattered keys (alloc << 40 | page, up to 256 of them)
// differ in the low twenty-odd bits, and their VA blocks (the bits from 9 up)
// in a dozen: one to three passes without a branch per entry, where a
// comparison sort mispredicts about every other comparison of random keys.
// The pass count trades passes over the entries against buckets to clear and
// sum per pass (a batch of 256 over 9-10 bits of blocks: one pass of 512-1024
// buckets costs less than two of 32). Short inputs go to std::sort (by the
// whole key).
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace umsim::sim {

template <class Entry>
void radix_sort_by_key(std::vector<Entry>& v, std::vector<Entry>& scratch, int from_bit = 0) {
  constexpr std::size_t kShortInput = 64;  // below it, counting 2 x 2^digit buckets per pass costs more
  constexpr int kMaxDigit = 10;            // 1,024 buckets (4 KiB on the stack)
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
  const int bits = high - low;
  // In quarter instructions, as callgrind counted them: about 18 per entry and
  // pass (count and scatter), about 3.25 per bucket and pass (clear and sum).
  auto cost = [&](int passes) {
    const int digit = (bits + passes - 1) / passes;
    return static_cast<std::uint64_t>(passes) * (72 * n + 13 * (std::uint64_t{1} << digit));
  };
  int passes = (bits + kMaxDigit - 1) / kMaxDigit;
  for (int p = passes + 1; p <= (bits + 7) / 8; ++p)
    if (cost(p) < cost(passes)) passes = p;
  const int digit = (bits + passes - 1) / passes;  // at most kMaxDigit bits
  const std::uint64_t mask = (std::uint64_t{1} << digit) - 1;
  scratch.resize(n);
  Entry* from = v.data();
  Entry* to = scratch.data();
  std::uint32_t start[std::size_t{1} << kMaxDigit];
  for (int p = 0, shift = low; p < passes; ++p, shift += digit) {
    std::fill_n(start, mask + 1, 0u);
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
  if (from != v.data()) v.swap(scratch);  // an odd pass count leaves the sorted entries in scratch
}

}  // namespace umsim::sim
