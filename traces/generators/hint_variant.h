// Helpers shared by generators: hint variants and size arithmetic.
#pragma once

#include <cstdint>
#include <string>

#include "traces/event.h"

namespace umsim::gen {

// Rounds up to whole 4 KiB pages: generators lay allocations out on page
// boundaries so a page never belongs to two logical buffers.
constexpr std::uint64_t page_align(std::uint64_t bytes) {
  return (bytes + trace::kPageSize - 1) / trace::kPageSize * trace::kPageSize;
}
constexpr std::uint64_t page_floor(std::uint64_t bytes) { return bytes / trace::kPageSize * trace::kPageSize; }

// [begin, end) of part `i` of `n` equal parts of `total`, split on page boundaries.
struct Span {
  std::uint64_t begin = 0, end = 0;
  std::uint64_t size() const { return end - begin; }
};
inline Span page_split(std::uint64_t total, std::uint64_t n, std::uint64_t i) {
  const std::uint64_t pages = (total + trace::kPageSize - 1) / trace::kPageSize;
  Span s{pages * i / n * trace::kPageSize, pages * (i + 1) / n * trace::kPageSize};
  if (s.end > total) s.end = total;
  if (s.begin > total) s.begin = total;
  return s;
}

}  // namespace umsim::gen
