#include "traces/generators/page_touch_set.h"

#include <algorithm>
#include <bit>
#include <stdexcept>

namespace umsim::gen {

std::size_t PageTouchSet::add(std::string name, Bytes size) {
  Alloc a;
  a.name = std::move(name);
  a.size = size;
  a.pages = (size + trace::kPageSize - 1) / trace::kPageSize;
  for (auto& b : a.by_type) b.words.assign((a.pages + 63) / 64, 0);
  allocs_.push_back(std::move(a));
  return allocs_.size() - 1;
}

void PageTouchSet::touch_page(std::size_t alloc, std::uint64_t page, AccessType type) {
  Alloc& a = allocs_.at(alloc);
  if (page >= a.pages) throw std::logic_error("page touch beyond allocation '" + a.name + "'");
  Bits& b = a.by_type[static_cast<int>(type)];
  std::uint64_t& w = b.words[page / 64];
  if (w == 0) b.dirty.push_back(static_cast<std::uint32_t>(page / 64));
  w |= std::uint64_t{1} << (page % 64);
}

void PageTouchSet::touch(std::size_t alloc, Bytes offset, Bytes length, AccessType type) {
  const Alloc& a = allocs_.at(alloc);
  if (length == 0 || offset >= a.size) return;
  const Bytes end = std::min(a.size, offset + length);
  for (std::uint64_t p = offset / trace::kPageSize, last = (end - 1) / trace::kPageSize; p <= last; ++p)
    touch_page(alloc, p, type);
}

bool PageTouchSet::empty() const {
  for (const auto& a : allocs_)
    for (const auto& b : a.by_type)
      if (!b.dirty.empty()) return false;
  return true;
}

std::uint64_t PageTouchSet::pages_collected() const {
  std::uint64_t n = 0;
  for (const auto& a : allocs_) {
    std::vector<std::uint64_t> merged(a.by_type[0].words.size(), 0);
    for (const auto& b : a.by_type)
      for (std::uint32_t i : b.dirty) merged[i] |= b.words[i];
    for (std::uint64_t w : merged) n += std::popcount(w);
  }
  return n;
}

void PageTouchSet::flush(TraceEmitter& out) {
  for (auto& a : allocs_) {
    for (int t = 0; t < 3; ++t) {
      Bits& b = a.by_type[t];
      if (b.dirty.empty()) continue;
      std::sort(b.dirty.begin(), b.dirty.end());
      std::uint64_t run_start = 0, run_end = 0;  // pages [run_start, run_end)
      bool open = false;
      auto close_run = [&] {
        const Bytes offset = run_start * trace::kPageSize;
        const Bytes length = std::min(a.size, run_end * trace::kPageSize) - offset;
        out.access(a.name, static_cast<AccessType>(t), offset, length);
      };
      for (std::uint32_t wi : b.dirty) {
        std::uint64_t w = b.words[wi];
        b.words[wi] = 0;
        while (w != 0) {
          const std::uint64_t page = std::uint64_t{wi} * 64 + std::countr_zero(w);
          w &= w - 1;
          if (open && page == run_end) {
            ++run_end;
          } else {
            if (open) close_run();
            run_start = page;
            run_end = page + 1;
            open = true;
          }
        }
      }
      if (open) close_run();
      b.dirty.clear();
    }
  }
}

}  // namespace umsim::gen
