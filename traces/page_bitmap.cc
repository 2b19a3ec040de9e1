#include "traces/page_bitmap.h"

#include <algorithm>
#include <bit>

namespace umsim::trace {

PageBitmap::PageBitmap(std::uint64_t pages) : pages_(pages) {}

std::uint64_t* PageBitmap::block(std::uint64_t index) {
  const std::uint64_t d = index / kBlocksPerDirectory;
  if (d >= directories_.size()) directories_.resize(d + 1);
  auto& dir = directories_[d];
  if (!dir) dir = std::make_unique<Block[]>(kBlocksPerDirectory);
  auto& b = dir[index % kBlocksPerDirectory];
  if (!b) b = std::make_unique<std::uint64_t[]>(kWordsPerBlock);  // zeroed
  return b.get();
}

const std::uint64_t* PageBitmap::find_block(std::uint64_t index) const {
  const std::uint64_t d = index / kBlocksPerDirectory;
  if (d >= directories_.size() || !directories_[d]) return nullptr;
  return directories_[d][index % kBlocksPerDirectory].get();
}

void PageBitmap::set_range(std::uint64_t first, std::uint64_t last) {
  std::uint64_t p = first;
  while (p <= last) {
    std::uint64_t* words = block(p / kPagesPerBlock);
    const std::uint64_t in_block = p % kPagesPerBlock;
    const std::uint64_t word = in_block / 64;
    const unsigned bit = static_cast<unsigned>(in_block % 64);
    // Bits [bit, end_bit) of this word.
    const std::uint64_t span = std::min<std::uint64_t>(64 - bit, last - p + 1);
    const std::uint64_t mask = (span == 64 ? ~0ull : ((1ull << span) - 1)) << bit;
    count_ += static_cast<std::uint64_t>(std::popcount(mask & ~words[word]));
    words[word] |= mask;
    p += span;
  }
}

bool PageBitmap::test(std::uint64_t page) const {
  const std::uint64_t* b = find_block(page / kPagesPerBlock);
  if (!b) return false;
  const std::uint64_t in_block = page % kPagesPerBlock;
  return (b[in_block / 64] >> (in_block % 64)) & 1;
}

std::uint64_t PageBitmap::count_union(const PageBitmap& other) const {
  std::uint64_t total = 0;
  const std::size_t dirs = std::max(directories_.size(), other.directories_.size());
  for (std::size_t d = 0; d < dirs; ++d) {
    const Block* da = d < directories_.size() ? directories_[d].get() : nullptr;
    const Block* db = d < other.directories_.size() ? other.directories_[d].get() : nullptr;
    if (da == nullptr && db == nullptr) continue;
    for (std::uint64_t k = 0; k < kBlocksPerDirectory; ++k) {
      const std::uint64_t* a = da ? da[k].get() : nullptr;
      const std::uint64_t* b = db ? db[k].get() : nullptr;
      if (a == nullptr && b == nullptr) continue;
      for (std::uint64_t w = 0; w < kWordsPerBlock; ++w)
        total += static_cast<std::uint64_t>(std::popcount((a ? a[w] : 0) | (b ? b[w] : 0)));
    }
  }
  return total;
}

}  // namespace umsim::trace
