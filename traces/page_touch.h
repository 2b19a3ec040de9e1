// The bytes an access touches inside one page (traces/FORMAT.md, "Bytes
// touched"): with stride 0 every byte of [offset, offset + length); with a
// stride s > 0 one 4-byte word at offset + k*s for every k with
// offset + k*s < offset + length. The set of pages touched is unchanged
// (for_each_page_once in event.h); a page the range overlaps that holds no
// word still counts as touched, with one word at the range's first byte in it.
//
// The GPU moves data in fixed transaction units (32-byte sectors, 128-byte
// lines); a model charges the units a touch covers, not the whole page, so a
// kernel reading one word per page costs one sector per page, locally or over
// a remote mapping. The HIP backend replays exactly these bytes.
#pragma once

#include <cstdint>

#include "traces/event.h"

namespace umsim::trace {

inline constexpr Bytes kWordSize = 4;

// What one pass of an access touches in one page: `count` contiguous bytes
// from `first` (step 0), or `count` words at first + j*step (step > 0), each
// the aligned 4-byte word holding that byte.
struct PageTouch {
  std::uint32_t first = 0;  // byte offset in the page
  std::uint32_t count = 0;  // bytes (step 0) or words (step > 0)
  std::uint32_t step = 0;   // bytes between words; 0 = contiguous bytes

  Bytes bytes() const { return step ? count * kWordSize : count; }
  bool whole_page() const { return step == 0 && first == 0 && count == kPageSize; }
};

// The touch of one pass of `e` in `page` (a page for_each_page_once visits).
PageTouch page_touch(const Event& e, std::uint64_t page);

// Transaction units (of `unit` bytes, a power of two dividing the page size)
// a touch covers; at least one.
std::uint64_t touched_units(const PageTouch& t, Bytes unit);

// Units one pass of `e` covers over all its pages; equal to the sum of
// touched_units(page_touch(e, p), unit) over the pages, in O(1).
std::uint64_t touched_units_per_pass(const Event& e, Bytes unit);

}  // namespace umsim::trace
