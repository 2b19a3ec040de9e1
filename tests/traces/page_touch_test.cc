// The bytes an access touches per page (FORMAT.md, "Bytes touched"), and the
// closed-form per-pass count agreeing with the page-by-page sum.
#include "traces/page_touch.h"

#include <gtest/gtest.h>

#include <random>

namespace umsim::trace {
namespace {

Event access(Bytes offset, Bytes length, Bytes stride) {
  Event e;
  e.kind = EventKind::kGpuAccess;
  e.offset = offset;
  e.length = length;
  e.stride = stride;
  return e;
}

TEST(PageTouch, ContiguousBytesInEachPage) {
  const Event e = access(4000, 200, 0);  // 96 bytes in page 0, 104 in page 1
  const PageTouch a = page_touch(e, 0), b = page_touch(e, 1);
  EXPECT_EQ(a.first, 4000u);
  EXPECT_EQ(a.count, 96u);
  EXPECT_EQ(b.first, 0u);
  EXPECT_EQ(b.count, 104u);
  // 32-byte sectors: 3968..4095 -> sectors 125..127 (3); 0..103 -> 0..3 (4).
  EXPECT_EQ(touched_units(a, 32), 3u);
  EXPECT_EQ(touched_units(b, 32), 4u);
  EXPECT_EQ(touched_units_per_pass(e, 32), 7u);
  EXPECT_EQ(touched_units_per_pass(e, 4096), 2u);
}

TEST(PageTouch, WholePageIsEveryUnit) {
  const Event e = access(0, 8192, 0);
  EXPECT_TRUE(page_touch(e, 1).whole_page());
  EXPECT_EQ(touched_units_per_pass(e, 32), 256u);
  EXPECT_EQ(touched_units_per_pass(e, 128), 64u);
}

// One word every 128 bytes: 32 words per page, each in a sector of its own.
TEST(PageTouch, StridedWordsEachCostAUnit) {
  const Event e = access(0, 8192, 128);
  const PageTouch t = page_touch(e, 1);
  EXPECT_EQ(t.first, 0u);
  EXPECT_EQ(t.count, 32u);
  EXPECT_EQ(t.step, 128u);
  EXPECT_EQ(t.bytes(), 128u);
  EXPECT_EQ(touched_units(t, 32), 32u);
  EXPECT_EQ(touched_units(t, 128), 32u);
  EXPECT_EQ(touched_units(t, 256), 16u);  // two words share a 256-byte unit
  EXPECT_EQ(touched_units_per_pass(e, 32), 64u);
}

// A stride larger than a page: one word in each touched page.
TEST(PageTouch, LargeStrideTouchesOneWordPerPage) {
  const Event e = access(100, 1 << 20, 64 << 10);
  EXPECT_EQ(touched_units_per_pass(e, 32), 16u);
  const PageTouch t = page_touch(e, 16);  // 64 KiB + 100
  EXPECT_EQ(t.first, 100u);
  EXPECT_EQ(t.count, 1u);
}

// A last page the range overlaps without a word in it still counts (the
// page set of for_each_page_once is unchanged).
TEST(PageTouch, OverlappedPageWithoutAWordCountsOneUnit) {
  const Event e = access(0, 4097, 3000);  // words at 0 and 3000; byte 4096 in page 1
  EXPECT_EQ(page_touch(e, 1).count, 1u);
  EXPECT_EQ(touched_units_per_pass(e, 32), 3u);
}

// Property: the closed form equals the page-by-page sum for random accesses.
TEST(PageTouch, PerPassCountIsTheSumOverPages) {
  std::mt19937_64 rng(7);
  const Bytes strides[] = {0, 1, 4, 8, 24, 32, 64, 96, 128, 1000, 4096, 5000, 65536};
  for (int i = 0; i < 20000; ++i) {
    const Event e = access(rng() % 20000, 1 + rng() % 40000, strides[rng() % std::size(strides)]);
    for (Bytes unit : {Bytes{4}, Bytes{32}, Bytes{128}, Bytes{4096}}) {
      std::uint64_t sum = 0;
      for_each_page_once(e, [&](std::uint64_t p) { sum += touched_units(page_touch(e, p), unit); });
      ASSERT_EQ(sum, touched_units_per_pass(e, unit))
          << "offset " << e.offset << " length " << e.length << " stride " << e.stride << " unit " << unit;
    }
  }
}

}  // namespace
}  // namespace umsim::trace
