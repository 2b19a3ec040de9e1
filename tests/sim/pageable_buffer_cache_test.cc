// sim/pageable_buffer_cache.h: which of the pageable buffer's leading bytes a
// copy finds in the host's cache, after copies and other host traffic.
#include "sim/pageable_buffer_cache.h"

#include <gtest/gtest.h>

#include "traces/trace_builder.h"

namespace umsim::sim {
namespace {

using namespace trace::literals;

TEST(PageableBufferCache, StartsEmptyAndKeepsWhatFits) {
  PageableBufferCache cache(8_MiB);
  EXPECT_EQ(cache.cached_part(4_MiB), 0u);
  cache.copied(4_MiB);
  EXPECT_EQ(cache.cached_part(4_MiB), 4_MiB);
  EXPECT_EQ(cache.cached_part(1_MiB), 1_MiB);
  EXPECT_EQ(cache.cached_part(6_MiB), 4_MiB);
  cache.copied(1_MiB);  // a shorter copy leaves the rest cached
  EXPECT_EQ(cache.cached_part(6_MiB), 4_MiB);
  cache.copied(8_MiB);  // exactly the capacity still fits
  EXPECT_EQ(cache.cached_part(16_MiB), 8_MiB);
}

TEST(PageableBufferCache, ALongerCopyStreamsThrough) {
  PageableBufferCache cache(8_MiB);
  cache.copied(4_MiB);
  cache.copied(8_MiB + 4_KiB);
  EXPECT_EQ(cache.cached_part(4_MiB), 0u);
}

TEST(PageableBufferCache, OtherTrafficTakesTheOldestLines) {
  PageableBufferCache cache(8_MiB);
  cache.copied(4_MiB);
  cache.other_traffic(4_MiB);  // both fit
  EXPECT_EQ(cache.cached_part(4_MiB), 4_MiB);
  cache.other_traffic(6_MiB);  // 8 - 6 of the buffer's lines can stay
  EXPECT_EQ(cache.cached_part(4_MiB), 2_MiB);
  cache.other_traffic(64_MiB);
  EXPECT_EQ(cache.cached_part(4_MiB), 0u);
}

TEST(PageableBufferCache, NoCapacityCachesNothing) {
  PageableBufferCache cache;
  cache.copied(4_KiB);
  EXPECT_EQ(cache.cached_part(4_KiB), 0u);
  cache.copied(0);
  EXPECT_EQ(cache.cached_part(4_KiB), 0u);
}

}  // namespace
}  // namespace umsim::sim
