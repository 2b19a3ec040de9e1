#include "traces/page_touch.h"

#include <algorithm>

namespace umsim::trace {

namespace {

Bytes align_down(Bytes x, Bytes unit) { return x & ~(unit - 1); }

// Units covering [lo, hi) (hi > lo), both inside one page or spanning pages:
// pages are whole multiples of the unit, so a unit never straddles a page.
std::uint64_t units_spanned(Bytes lo, Bytes hi, Bytes unit) {
  return (align_down(hi - 1, unit) - align_down(lo, unit)) / unit + 1;
}

}  // namespace

PageTouch page_touch(const Event& e, std::uint64_t page) {
  const Bytes page_lo = page * kPageSize, page_hi = page_lo + kPageSize;
  const Bytes end = e.offset + e.length;
  const Bytes lo = std::max(e.offset, page_lo), hi = std::min(end, page_hi);
  PageTouch t;
  if (e.stride == 0) {
    t.first = static_cast<std::uint32_t>(lo - page_lo);
    t.count = static_cast<std::uint32_t>(hi > lo ? hi - lo : 1);
    return t;
  }
  // First word at or after lo: offset + k*stride with k = ceil((lo - offset) / stride).
  const Bytes k0 = (lo - e.offset + e.stride - 1) / e.stride;
  const Bytes w0 = e.offset + k0 * e.stride;
  if (w0 >= hi) {  // the range overlaps the page but no word falls in it
    t.first = static_cast<std::uint32_t>(lo - page_lo);
    t.count = 1;
    t.step = kWordSize;
    return t;
  }
  t.first = static_cast<std::uint32_t>(w0 - page_lo);
  t.count = static_cast<std::uint32_t>((hi - 1 - w0) / e.stride + 1);
  t.step = static_cast<std::uint32_t>(std::min(e.stride, kPageSize));
  return t;
}

std::uint64_t touched_units(const PageTouch& t, Bytes unit) {
  if (t.step == 0) return units_spanned(t.first, t.first + std::max<std::uint32_t>(t.count, 1), unit);
  if (t.step >= unit) return t.count;  // aligned words, each in a unit of its own
  // Words closer than a unit leave no unit between the first and last word untouched.
  return units_spanned(align_down(t.first, kWordSize),
                       align_down(t.first + Bytes{t.count - 1} * t.step, kWordSize) + kWordSize, unit);
}

std::uint64_t touched_units_per_pass(const Event& e, Bytes unit) {
  if (e.length == 0) return 0;
  const Bytes end = e.offset + e.length;
  if (e.stride == 0) return units_spanned(e.offset, end, unit);
  const std::uint64_t words = (e.length - 1) / e.stride + 1;
  if (e.stride > kPageSize) return words;  // one word per page touched
  const Bytes last_word = e.offset + (words - 1) * e.stride;
  // A last page the range overlaps without holding a word still counts one unit.
  const std::uint64_t empty_last = (end - 1) / kPageSize > last_word / kPageSize ? 1 : 0;
  if (e.stride >= unit) return words + empty_last;
  return units_spanned(align_down(e.offset, kWordSize), align_down(last_word, kWordSize) + kWordSize, unit) +
         empty_last;
}

}  // namespace umsim::trace
