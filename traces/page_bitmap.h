// A set of page indices within one allocation: flat bit words, allocated in
// 128 MiB blocks (32768 pages) on first touch, found through directories of
// 1024 blocks (128 GiB) also made on first touch, so sparse use of a huge
// allocation stays small (a page touched in each of 1000 64 TiB allocations
// costs 1000 x 16 KiB, not 1000 x 4 MiB of block pointers). No hashing of page numbers.
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
  static constexpr std::uint64_t kBlocksPerDirectory = 1024;
  using Block = std::unique_ptr<std::uint64_t[]>;
  std::uint64_t* block(std::uint64_t index);
  const std::uint64_t* find_block(std::uint64_t index) const;

  std::uint64_t pages_;
  std::uint64_t count_ = 0;
  std::vector<std::unique_ptr<Block[]>> directories_;  // grows to the highest directory touched
};

}  // namespace umsim::trace
