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
// whole key). radix_group_by_key sorts the same way and, where it takes one
// pass, gives the runs of equal keys from that pass's bucket counts.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace umsim::sim {

namespace radix_detail {
constexpr std::size_t kShortInput = 64;  // below it, counting 2 x 2^digit buckets per pass costs more
constexpr int kMaxDigit = 10;            // 1,024 buckets (4 KiB on the stack)

// The passes over the bits (from `from_bit` up) in which v's keys differ:
// passes 0 where they differ in none.
struct Plan {
  int low = 0, digit = 0, passes = 0;
};

template <class Entry>
Plan plan(const std::vector<Entry>& v, int from_bit) {
  const std::size_t n = v.size();
  // Four entries a step, on four words (the loop's count and branch once per
  // four: a fault batch's 256 keys cost about 3.75 instructions each, not 6).
  const Entry* const e = v.data();
  const std::uint64_t first = e[0].key;
  std::uint64_t d[4] = {};
  std::size_t i = 0;
  for (; i + 4 <= n; i += 4)
    for (int k = 0; k < 4; ++k) d[k] |= e[i + k].key ^ first;
  for (; i < n; ++i) d[0] |= e[i].key ^ first;
  std::uint64_t differ = (d[0] | d[1]) | (d[2] | d[3]);
  differ &= ~std::uint64_t{0} << from_bit;
  if (differ == 0) return {};
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
  return {low, (bits + passes - 1) / passes, passes};  // a digit of at most kMaxDigit bits
}

// Moves n entries from `from` to `to` in order of their digit at `shift`
// (mask: the digit's bits), stably; `start` holds the digit's counts and
// leaves with each bucket's end.
template <class Entry>
void scatter(const Entry* from, Entry* to, std::size_t n, int shift, std::uint64_t mask, std::uint32_t* start) {
#pragma GCC unroll 4  // the loop's count and branch once per four entries: about 12 -> 10 instructions an entry
  for (std::size_t i = 0; i < n; ++i) to[start[(from[i].key >> shift) & mask]++] = from[i];
}

// The plan's passes (at least one) over v, a long input.
template <class Entry>
void sort_in_passes(std::vector<Entry>& v, std::vector<Entry>& scratch, const Plan& p) {
  const std::size_t n = v.size();
  const std::uint64_t mask = (std::uint64_t{1} << p.digit) - 1;
  scratch.resize(n);
  Entry* from = v.data();
  Entry* to = scratch.data();
  std::uint32_t start[std::size_t{1} << kMaxDigit];
  for (int pass = 0, shift = p.low; pass < p.passes; ++pass, shift += p.digit) {
    std::fill_n(start, mask + 1, 0u);
    for (std::size_t i = 0; i < n; ++i) ++start[(from[i].key >> shift) & mask];
    std::uint32_t sum = 0;
    for (std::uint64_t b = 0; b <= mask; ++b) {
      const std::uint32_t c = start[b];
      start[b] = sum;
      sum += c;
    }
    scatter(from, to, n, shift, mask, start);
    std::swap(from, to);
  }
  if (from != v.data()) v.swap(scratch);  // an odd pass count leaves the sorted entries in scratch
}

// Sets bit b of `filled` for each bucket b of `count` that is not zero, over
// `buckets` counts rounded up to 16 (the caller zeroes the counts past its
// last bucket; `filled` starts zeroed). A bit set per entry in the count pass
// cost five instructions an entry; sixteen counts at a time cost about
// eleven: a fault batch's 256 entries over 512 buckets, 1,300 -> 350.
inline void mark_filled_buckets(const std::uint32_t* count, std::size_t buckets, std::uint64_t* filled) {
  for (std::size_t b = 0; b < buckets; b += 16) {
#if defined(__SSE2__)
    // Signed saturation keeps a count that is not zero so: packed to bytes, compared with zero.
    auto words = [&](std::size_t at) { return _mm_load_si128(reinterpret_cast<const __m128i*>(count + at)); };
    const __m128i bytes = _mm_packs_epi16(_mm_packs_epi32(words(b), words(b + 4)), _mm_packs_epi32(words(b + 8), words(b + 12)));
    const auto empty = static_cast<std::uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(bytes, _mm_setzero_si128())));
    const std::uint64_t bits = ~empty & 0xffffu;
#else
    std::uint64_t bits = 0;
    for (std::size_t k = 0; k < 16; ++k) bits |= std::uint64_t{count[b + k] != 0} << k;
#endif
    filled[b / 64] |= bits << (b % 64);
  }
}

template <class Entry>
void sort_short(std::vector<Entry>& v) {
  std::sort(v.begin(), v.end(), [](const Entry& x, const Entry& y) { return x.key < y.key; });
}
}  // namespace radix_detail

template <class Entry>
void radix_sort_by_key(std::vector<Entry>& v, std::vector<Entry>& scratch, int from_bit = 0) {
  using namespace radix_detail;
  if (v.size() < kShortInput) return sort_short(v);
  if (const Plan p = plan(v, from_bit); p.passes != 0) sort_in_passes(v, scratch, p);
}

// radix_sort_by_key(v, scratch, from_bit), which where it sorts in one pass
// (long inputs whose keys differ in at most a digit's bits from `from_bit`
// up) also fills `groups` with one Group{key >> from_bit, begin, end} per run
// of entries equal there, in order, and returns true. The buckets the count
// pass filled are marked (mark_filled_buckets), and only those are summed and
// give a group: a batch of 256 faults over 512 VA blocks fills about 200 of
// 512 buckets, and the pass over the sorted entries that would find the runs
// (a branch at each run's end) is not needed. Elsewhere it returns false with `groups`
// untouched (the caller finds the runs in the sorted entries).
template <class Entry, class Group>
bool radix_group_by_key(std::vector<Entry>& v, std::vector<Entry>& scratch, int from_bit, std::vector<Group>& groups) {
  using namespace radix_detail;
  const std::size_t n = v.size();
  if (n < kShortInput) {
    sort_short(v);
    return false;
  }
  const Plan p = plan(v, from_bit);
  if (p.passes > 1) {
    sort_in_passes(v, scratch, p);
    return false;
  }
  if (p.passes == 0) {
    groups.assign(1, Group{v.front().key >> from_bit, 0, static_cast<std::uint32_t>(n)});
    return true;
  }
  const std::uint64_t mask = (std::uint64_t{1} << p.digit) - 1;
  // A group's key: the keys' common bits (from_bit up), with the bucket's digit at `digit_at`.
  const int digit_at = p.low - from_bit;
  const std::uint64_t common = (v.front().key >> from_bit) & ~(mask << digit_at);
  alignas(16) std::uint32_t start[std::size_t{1} << kMaxDigit];
  std::uint64_t filled[(std::size_t{1} << kMaxDigit) / 64] = {};  // a bit per bucket
  const std::size_t counted = (mask + 16) & ~std::size_t{15};  // the buckets, rounded up to 16
  std::fill_n(start, counted, 0u);
#pragma GCC unroll 4  // as scatter's
  for (std::size_t i = 0; i < n; ++i) ++start[(v[i].key >> p.low) & mask];
  mark_filled_buckets(start, counted, filled);
  // At most n groups: the vector keeps its size between calls (only a longer
  // input's part is initialised) and is cut to the groups found.
  groups.resize(n);
  Group* const first = groups.data();
  Group* out = first;
  std::uint32_t sum = 0;
  for (std::size_t w = 0, words = (mask + 64) / 64; w < words; ++w)
    for (std::uint64_t x = filled[w]; x != 0; x &= x - 1) {
      const std::uint64_t b = w * 64 + static_cast<std::uint64_t>(__builtin_ctzll(x));
      const std::uint32_t c = start[b];
      start[b] = sum;  // the bucket's first place in the scatter
      *out++ = Group{common | (b << digit_at), sum, sum + c};
      sum += c;
    }
  groups.resize(static_cast<std::size_t>(out - first));
  scratch.resize(n);
  scatter(v.data(), scratch.data(), n, p.low, mask, start);
  v.swap(scratch);
  return true;
}

}  // namespace umsim::sim
