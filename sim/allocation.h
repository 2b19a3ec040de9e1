// One trace allocation: flat page and block arrays, and per GPU the physical
// chunk slot backing each chunk-sized region (kNoSlot when none) and the pages
// resident there per VA block.
#pragma once

#include <string>
#include <vector>

#include "sim/huge_page_allocator.h"
#include "sim/page_state.h"
#include "traces/event.h"

namespace umsim::sim {

struct Allocation {
  std::string name;
  trace::AllocKind kind = trace::AllocKind::kManaged;
  Bytes size = 0;
  std::uint64_t page_count = 0;
  std::uint64_t block_count = 0;
  Processor home;                 // device allocations: their GPU
  ProcessorMask always_mapped = 0;  // mappings never removed (zero-copy kinds, XNACK-off managed)
  bool live = true;
  bool read_mostly_advised = false;  // some page was advised ReadMostly (its flag may since be unset)
  bool accessed_by_advised = false;  // some page was advised AccessedBy (its mask may since be empty)
  // GPUs a prefetch of this allocation went to, or found holding its pages
  // (prefetch.first_on_gpu_cost: the driver's first mapping of the range there).
  ProcessorMask prefetch_seen_on = 0;

  HugePageVector<PageState> pages;  // huge pages: a page-granular replay reads them at random
  std::vector<BlockState> blocks;
  std::vector<PageMask> populated;  // per block: pages that have ever held data (copies != 0)
  std::vector<HugePageVector<std::uint32_t>> chunk_slot;  // [gpu][region]
  // [gpu][block]: pages with a copy on that GPU, kept as copies change, so a
  // fault service and an eviction read one mask instead of visiting chunks.
  std::vector<std::vector<PageMask>> gpu_resident;

  [[gnu::always_inline]] void mark_populated(std::uint64_t page) {
    populated[page / kPagesPerBlock].set(page % kPagesPerBlock);
  }
  void mark_all_populated() {
    for (std::uint64_t b = 0; b < block_count; ++b) {
      populated[b].set();
      if (pages_in_block(b) < kPagesPerBlock) populated[b] >>= kPagesPerBlock - pages_in_block(b);
    }
  }

  // Pages that page-fault and migrate: managed memory, and system memory
  // (malloc / new), which HMM and AMD's SVM treat alike (a GPU may touch
  // system memory only where the vendor can fault: not with XNACK off).
  bool managed() const { return kind == trace::AllocKind::kManaged || kind == trace::AllocKind::kSystem; }
  std::uint32_t pages_in_block(std::uint64_t block) const {
    const std::uint64_t first = block * kPagesPerBlock;
    return static_cast<std::uint32_t>(std::min<std::uint64_t>(kPagesPerBlock, page_count - first));
  }
};

}  // namespace umsim::sim
