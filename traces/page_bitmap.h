// A set of page indices within one allocation: flat bit words, allocated in
// 128 MiB blocks (32768 pages) on first touch so sparse use of a huge
// allocation stays small. No hashing of page numbers.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

namespace umsim::trace {

class PageBitmap {
 public:
  explicit PageBitmap(std::uint64_t pages);

  // Marks pages [first, last] (inclusive, last < pages()).
  void set_range(std::uint64_t first, std::uint64_t last);
  void set(std::uint64_t page) { set_range(page, page); }
  bool test(std::uint64_t page) const;
  std::uint64_t count() const { return count_; }
  std::uint64_t pages() const { return pages_; }
  // Pages set in this bitmap or in `other` (same page count).
  std::uint64_t count_union(const PageBitmap& other) const;

  static constexpr std::uint64_t kPagesPerBlock = 1 << 15;

 private:
  static constexpr std::uint64_t kWordsPerBlock = kPagesPerBlock / 64;
  std::uint64_t* block(std::uint64_t index);

  std::uint64_t pages_;
  std::uint64_t count_ = 0;
  std::vector<std::unique_ptr<std::uint64_t[]>> blocks_;
};

}  // namespace umsim::trace
