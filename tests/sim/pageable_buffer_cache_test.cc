// sim/pageable_buffer_cache.h: which of the pageable buffer's leading bytes a
// copy finds in the host's cache (copied twice before, or once), after copies
// and other host traffic.
#include "sim/pageable_buffer_cache.h"

#include <gtest/gtest.h>

#include "traces/trace_builder.h"

namespace umsim::sim {
namespace {

using namespace trace::literals;

// What a copy of `bytes` finds, as {copied twice, copied once}.
std::pair<Bytes, Bytes> found(const PageableBufferCache& cache, Bytes bytes) {
  const auto hit = cache.hit(bytes);
  return {hit.cached, hit.warming};
}

TEST(PageableBufferCache, BytesWarmOverTwoCopies) {
  PageableBufferCache cache(8_MiB);
  EXPECT_EQ(found(cache, 4_MiB), std::make_pair(Bytes{0}, Bytes{0}));
  cache.copied(4_MiB);
  EXPECT_EQ(found(cache, 4_MiB), std::make_pair(Bytes{0}, 4_MiB));
  cache.copied(4_MiB);
  EXPECT_EQ(found(cache, 4_MiB), std::make_pair(4_MiB, Bytes{0}));
  cache.copied(4_MiB);  // a third copy changes nothing
  EXPECT_EQ(found(cache, 4_MiB), std::make_pair(4_MiB, Bytes{0}));
  EXPECT_EQ(found(cache, 1_MiB), std::make_pair(1_MiB, Bytes{0}));
  EXPECT_EQ(found(cache, 6_MiB), std::make_pair(4_MiB, Bytes{0}));
}

TEST(PageableBufferCache, ALongerCopyWarmsOnlyWhatWasCopiedBefore) {
  PageableBufferCache cache(8_MiB);
  cache.copied(1_MiB);
  cache.copied(1_MiB);
  cache.copied(4_MiB);  // its first MiB was copied twice already, the next 3 never
  EXPECT_EQ(found(cache, 6_MiB), std::make_pair(1_MiB, 3_MiB));
  cache.copied(2_MiB);  // the second MiB now twice; 2-4 MiB still once
  EXPECT_EQ(found(cache, 6_MiB), std::make_pair(2_MiB, 2_MiB));
  cache.copied(8_MiB);  // exactly the capacity still fits
  EXPECT_EQ(found(cache, 16_MiB), std::make_pair(4_MiB, 4_MiB));
}

TEST(PageableBufferCache, ALongerCopyStreamsThrough) {
  PageableBufferCache cache(8_MiB);
  cache.copied(4_MiB);
  cache.copied(4_MiB);
  cache.copied(8_MiB + 4_KiB);
  EXPECT_EQ(found(cache, 4_MiB), std::make_pair(Bytes{0}, Bytes{0}));
  cache.copied(4_MiB);  // the warm-up starts again
  EXPECT_EQ(found(cache, 4_MiB), std::make_pair(Bytes{0}, 4_MiB));
}

TEST(PageableBufferCache, OtherTrafficTakesTheOldestLines) {
  PageableBufferCache cache(8_MiB);
  cache.copied(4_MiB);
  cache.copied(2_MiB);
  cache.other_traffic(4_MiB);  // both fit
  EXPECT_EQ(found(cache, 4_MiB), std::make_pair(2_MiB, 2_MiB));
  cache.other_traffic(7_MiB);  // 8 - 7 of the buffer's lines can stay
  EXPECT_EQ(found(cache, 4_MiB), std::make_pair(1_MiB, Bytes{0}));
  cache.other_traffic(64_MiB);
  EXPECT_EQ(found(cache, 4_MiB), std::make_pair(Bytes{0}, Bytes{0}));
}

TEST(PageableBufferCache, NoCapacityCachesNothing) {
  PageableBufferCache cache;
  cache.copied(4_KiB);
  cache.copied(4_KiB);
  EXPECT_EQ(found(cache, 4_KiB), std::make_pair(Bytes{0}, Bytes{0}));
  cache.copied(0);
  EXPECT_EQ(found(cache, 4_KiB), std::make_pair(Bytes{0}, Bytes{0}));
}

}  // namespace
}  // namespace umsim::sim
