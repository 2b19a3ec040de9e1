// The replay loop's single-page test against its definition, written out the
// long way, over the edges: length 0, a wrapping end, the last page, a whole
// page, one byte at either end of a page, strides and pass counts.
#include "sim/single_page_pass.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

namespace umsim::sim {
namespace {

using trace::Bytes;
using trace::Event;
using trace::kPageSize;

// One pass, no stride, 1 to kPageSize bytes, first and last byte in one page
// (without wrapping past 2^64), the last byte within the allocation.
bool by_definition(const Event& e, Bytes size) {
  if (e.count != 1 || e.stride != 0 || e.length == 0 || e.length > kPageSize) return false;
  if (e.offset > std::numeric_limits<Bytes>::max() - (e.length - 1)) return false;  // the end wraps
  const Bytes last = e.offset + (e.length - 1);
  return e.offset / kPageSize == last / kPageSize && last < size;
}

Event access(Bytes offset, Bytes length, std::uint32_t count = 1, Bytes stride = 0) {
  Event e;
  e.kind = trace::EventKind::kGpuAccess;
  e.offset = offset;
  e.length = length;
  e.count = count;
  e.stride = stride;
  return e;
}

TEST(SinglePagePass, Edges) {
  constexpr Bytes size = 3 * kPageSize + 100;  // a last page partly in the allocation
  EXPECT_TRUE(is_single_page_pass(access(0, kPageSize), size));
  EXPECT_TRUE(is_single_page_pass(access(0, 1), size));
  EXPECT_TRUE(is_single_page_pass(access(kPageSize - 1, 1), size));
  EXPECT_TRUE(is_single_page_pass(access(3 * kPageSize, 100), size));
  EXPECT_TRUE(is_single_page_pass(access(3 * kPageSize + 99, 1), size));
  EXPECT_FALSE(is_single_page_pass(access(0, 0), size));               // length 0
  EXPECT_FALSE(is_single_page_pass(access(5, 0), size));
  EXPECT_FALSE(is_single_page_pass(access(0, kPageSize + 1), size));   // longer than a page
  EXPECT_FALSE(is_single_page_pass(access(kPageSize - 1, 2), size));   // across a page boundary
  EXPECT_FALSE(is_single_page_pass(access(1, kPageSize), size));
  EXPECT_FALSE(is_single_page_pass(access(3 * kPageSize, 101), size)); // past the allocation's end
  EXPECT_FALSE(is_single_page_pass(access(size, 1), size));
  EXPECT_FALSE(is_single_page_pass(access(0, 1, 0), size));            // count 0 and 2
  EXPECT_FALSE(is_single_page_pass(access(0, 1, 2), size));
  EXPECT_FALSE(is_single_page_pass(access(0, 1, 1, 1), size));         // strided
  EXPECT_FALSE(is_single_page_pass(access(0, 1, 1, kPageSize), size));
  constexpr Bytes top = std::numeric_limits<Bytes>::max();
  EXPECT_FALSE(is_single_page_pass(access(top, 2), top));              // the end wraps
  EXPECT_FALSE(is_single_page_pass(access(top - 10, kPageSize), top));
  EXPECT_FALSE(is_single_page_pass(access(top, 1), top));              // the last byte is past size
  EXPECT_TRUE(is_single_page_pass(access(top - 1, 1), top));
}

TEST(SinglePagePass, AgreesWithTheDefinition) {
  const Bytes top = std::numeric_limits<Bytes>::max();
  const Bytes offsets[] = {0, 1, 2, 100, kPageSize - 2, kPageSize - 1, kPageSize, kPageSize + 1, 5 * kPageSize - 1,
                           top - kPageSize - 1, top - kPageSize, top - kPageSize + 1, top - 5, top - 1, top};
  const Bytes lengths[] = {0, 1, 2, 3, 100, kPageSize - 2, kPageSize - 1, kPageSize, kPageSize + 1, 2 * kPageSize,
                           top / 2, top - kPageSize, top - 1, top};
  const Bytes sizes[] = {0, 1, kPageSize - 1, kPageSize, kPageSize + 1, 5 * kPageSize, top - 1, top};
  for (const Bytes offset : offsets)
    for (const Bytes length : lengths)
      for (const Bytes size : sizes)
        for (const std::uint32_t count : {0u, 1u, 2u})
          for (const Bytes stride : {Bytes{0}, Bytes{1}, kPageSize, top}) {
            const Event e = access(offset, length, count, stride);
            EXPECT_EQ(is_single_page_pass(e, size), by_definition(e, size))
                << "offset " << offset << " length " << length << " size " << size << " count " << count
                << " stride " << stride;
          }
}

}  // namespace
}  // namespace umsim::sim
