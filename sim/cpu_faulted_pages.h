// The pages the CPU's latest faults migrated in. The copy leaves their lines
// in the host's cache, so the CPU's touches right after cost the profile's
// faulted-page cost, not a resident page's ([cpu] faulted_page_read_cost /
// faulted_page_write_cost). A few recent migrations are kept (each within one
// VA block, at most 2 MiB), so a loop over two buffers that fault in turn
// keeps each buffer's latest migration; an older one is forgotten as the
// cache would have moved on.
#pragma once

#include <array>
#include <cstdint>

#include "sim/types.h"

namespace umsim::sim {

class CpuFaultedPages {
 public:
  void note(AllocSlot slot, std::uint64_t block, const PageMask& pages) {
    for (Entry& e : recent_)
      if (e.live && e.slot == slot && e.block == block) {  // the block faulted again: its latest pages
        e.pages = pages;
        return;
      }
    recent_[next_] = Entry{slot, block, pages, true};
    next_ = (next_ + 1) % recent_.size();
  }

  bool contains(AllocSlot slot, std::uint64_t page) const {
    const std::uint64_t block = page / kPagesPerBlock;
    for (const Entry& e : recent_)
      if (e.live && e.slot == slot && e.block == block) return e.pages.test(page % kPagesPerBlock);
    return false;
  }

  // A freed allocation's slot can be reused by a new one.
  void forget(AllocSlot slot) {
    for (Entry& e : recent_)
      if (e.slot == slot) e.live = false;
  }

 private:
  struct Entry {
    AllocSlot slot = 0;
    std::uint64_t block = 0;
    PageMask pages;
    bool live = false;
  };
  std::array<Entry, 4> recent_{};
  std::size_t next_ = 0;
};

}  // namespace umsim::sim
