// The fault batch's radix sort against std::sort: keys that differ in a few
// bits or in all 64, short and long inputs, duplicates, already sorted input.
#include <algorithm>
#include <random>

#include <gtest/gtest.h>

#include "sim/radix_sort_by_key.h"

namespace umsim::sim {
namespace {

struct Entry {
  std::uint64_t key;
};

std::vector<std::uint64_t> keys_of(const std::vector<Entry>& v) {
  std::vector<std::uint64_t> out;
  for (const Entry& e : v) out.push_back(e.key);
  return out;
}

TEST(RadixSortByKey, SortsAsStdSort) {
  std::mt19937_64 rng(12);
  std::vector<Entry> scratch;
  int sorted_by_radix = 0;
  for (const std::size_t n : {0u, 1u, 2u, 63u, 64u, 65u, 200u, 256u, 1000u})
    for (const int bits : {1, 7, 8, 9, 21, 33, 64})
      for (const std::uint64_t base : {std::uint64_t{0}, std::uint64_t{3} << 40, ~std::uint64_t{0} << 50})
        for (int round = 0; round < 3; ++round) {
          std::vector<Entry> v;
          const std::uint64_t mask = bits == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << bits) - 1;
          // round 1 shifts the varying bits up (low bits equal); round 2 starts sorted
          for (std::size_t i = 0; i < n; ++i)
            v.push_back({base ^ ((rng() & mask) << (round == 1 && bits < 40 ? 12 : 0))});
          if (round == 2) std::sort(v.begin(), v.end(), [](Entry x, Entry y) { return x.key < y.key; });
          std::vector<std::uint64_t> expected = keys_of(v);
          std::sort(expected.begin(), expected.end());
          radix_sort_by_key(v, scratch);
          EXPECT_EQ(keys_of(v), expected) << "n " << n << " bits " << bits << " round " << round;
          sorted_by_radix += n >= 64;
        }
  EXPECT_GT(sorted_by_radix, 200);
}

// Sorting by the bits from 9 up (a fault batch by VA block): ascending there,
// the same entries.
TEST(RadixSortByKey, SortsByTheHighBits) {
  std::mt19937_64 rng(13);
  std::vector<Entry> scratch;
  for (const std::size_t n : {2u, 63u, 64u, 256u, 1000u})
    for (const int bits : {9, 10, 21, 33}) {
      std::vector<Entry> v;
      for (std::size_t i = 0; i < n; ++i)
        v.push_back({(std::uint64_t{3} << 40) | (rng() & ((std::uint64_t{1} << bits) - 1))});
      std::vector<std::uint64_t> expected = keys_of(v);
      std::sort(expected.begin(), expected.end());
      radix_sort_by_key(v, scratch, 9);
      for (std::size_t i = 1; i < n; ++i) EXPECT_LE(v[i - 1].key >> 9, v[i].key >> 9) << "n " << n << " bits " << bits;
      std::vector<std::uint64_t> got = keys_of(v);
      std::sort(got.begin(), got.end());
      EXPECT_EQ(got, expected) << "n " << n << " bits " << bits;
    }
}


struct Group {
  std::uint64_t key;
  std::uint32_t begin, end;
};

// Sorting and grouping: the entries in radix_sort_by_key's order and, where
// it takes one pass, the groups a scan of them finds; elsewhere false with
// the groups untouched.
TEST(RadixSortByKey, GroupsAsAScanOfTheSortedEntries) {
  std::mt19937_64 rng(14);
  std::vector<Entry> scratch;
  std::vector<Group> groups;
  int grouped = 0, refused = 0;
  for (const std::size_t n : {2u, 63u, 64u, 65u, 256u, 1000u})
    for (const int bits : {9, 10, 12, 14, 21, 33})
      for (const std::uint64_t base : {std::uint64_t{3} << 40, std::uint64_t{5} << 20}) {
        std::vector<Entry> v;
        for (std::size_t i = 0; i < n; ++i) v.push_back({base | (rng() & ((std::uint64_t{1} << bits) - 1))});
        std::vector<Entry> sorted = v;
        radix_sort_by_key(sorted, scratch, 9);
        groups.assign(1, Group{12345, 0, 0});
        const bool in_groups = radix_group_by_key(v, scratch, 9, groups);
        EXPECT_EQ(keys_of(v), keys_of(sorted)) << "n " << n << " bits " << bits;
        if (!in_groups) {
          ASSERT_EQ(groups.size(), 1u);
          EXPECT_EQ(groups[0].key, 12345u);
          ++refused;
          continue;
        }
        ++grouped;
        std::vector<Group> expected;
        for (std::uint32_t b = 0; b < n;) {
          std::uint32_t e = b + 1;
          while (e < n && (sorted[e].key >> 9) == (sorted[b].key >> 9)) ++e;
          expected.push_back({sorted[b].key >> 9, b, e});
          b = e;
        }
        ASSERT_EQ(groups.size(), expected.size()) << "n " << n << " bits " << bits;
        for (std::size_t g = 0; g < groups.size(); ++g) {
          EXPECT_EQ(groups[g].key, expected[g].key);
          EXPECT_EQ(groups[g].begin, expected[g].begin);
          EXPECT_EQ(groups[g].end, expected[g].end);
        }
      }
  // One block: one group.
  std::vector<Entry> one_block;
  for (std::uint64_t i = 0; i < 100; ++i) one_block.push_back({(std::uint64_t{7} << 9) | (99 - i)});
  ASSERT_TRUE(radix_group_by_key(one_block, scratch, 9, groups));
  ASSERT_EQ(groups.size(), 1u);
  EXPECT_EQ(groups[0].key, 7u);
  EXPECT_EQ(groups[0].end, 100u);
  EXPECT_GT(grouped, 10);
  EXPECT_GT(refused, 10);
}

// A bucket of more entries than a 16-bit or 8-bit count holds is still found
// (mark_filled_buckets packs the counts with saturation).
TEST(RadixSortByKey, GroupsABucketOfManyEntries) {
  std::vector<Entry> v, scratch;
  std::vector<Group> groups;
  for (std::uint64_t i = 0; i < 70000; ++i) v.push_back({(i % 7 == 0 ? 3u : 1u) << 9 | (i % 512)});
  ASSERT_TRUE(radix_group_by_key(v, scratch, 9, groups));
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_EQ(groups[0].key, 1u);
  EXPECT_EQ(groups[0].end, 60000u);
  EXPECT_EQ(groups[1].key, 3u);
  EXPECT_EQ(groups[1].begin, 60000u);
  EXPECT_EQ(groups[1].end, 70000u);
}

}  // namespace
}  // namespace umsim::sim
