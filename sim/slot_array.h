// Records indexed by a dense slot number that are created on first use, in
// fixed pages of 4096, so memory follows the slots actually used (not the
// GPU's capacity in chunks: 36.8 M slots for 141 GiB at 4 KiB) and a record
// never moves (intrusive list hooks inside it stay valid). Indexing is a shift,
// a mask and two loads; std::deque would give 512-byte pages, a few records each.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace umsim::sim {

template <typename T>
class SlotArray {
 public:
  SlotArray() = default;
  SlotArray(SlotArray&&) noexcept = default;
  SlotArray& operator=(SlotArray&&) noexcept = default;

  // The record of `slot`, default-constructed (then passed to `init`) when new.
  // In line where the record exists (a shift, a compare and two loads: the
  // eviction policies look a node up per eviction); the first use of a page is
  // out of line.
  template <typename Init>
  [[gnu::always_inline]] T& at(std::uint32_t slot, Init&& init) {
    const std::size_t page = slot >> kShift;
    if (page >= pages_.size() || !pages_[page]) [[unlikely]]
      create_page(page, init);
    return pages_[page][slot & (kPage - 1)];
  }
  T& at(std::uint32_t slot) {
    return at(slot, [](T&, std::uint32_t) {});
  }
  // A record that exists (at() made it).
  // Always in line: GCC left it out of line in lone_fault.cc's grown unit (a call per fault).
  [[gnu::always_inline]] T& operator[](std::uint32_t slot) { return pages_[slot >> kShift][slot & (kPage - 1)]; }
  [[gnu::always_inline]] const T& operator[](std::uint32_t slot) const {
    return pages_[slot >> kShift][slot & (kPage - 1)];
  }
  bool contains(std::uint32_t slot) const {
    const std::size_t page = slot >> kShift;
    return page < pages_.size() && pages_[page] != nullptr;
  }
  // Every record (existing pages) is destroyed; the lists holding them must be cleared first.
  void clear() { pages_.clear(); }

 private:
  template <typename Init>
  [[gnu::noinline, gnu::cold]] void create_page(std::size_t page, Init& init) {
    if (page >= pages_.size()) pages_.resize(page + 1);
    pages_[page] = std::make_unique<T[]>(kPage);
    for (std::uint32_t i = 0; i < kPage; ++i) init(pages_[page][i], static_cast<std::uint32_t>(page << kShift) + i);
  }
  static constexpr std::uint32_t kShift = 12;
  static constexpr std::uint32_t kPage = 1u << kShift;
  std::vector<std::unique_ptr<T[]>> pages_;
};

}  // namespace umsim::sim
