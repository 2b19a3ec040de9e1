// One trace allocation: flat page and block arrays, and per GPU the physical
// chunk slot backing each chunk-sized region (kNoSlot when none).
#pragma once

#include <string>
#include <vector>

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

  std::vector<PageState> pages;
  std::vector<BlockState> blocks;
  std::vector<std::vector<std::uint32_t>> chunk_slot;  // [gpu][region]

  bool managed() const { return kind == trace::AllocKind::kManaged; }
  std::uint32_t pages_in_block(std::uint64_t block) const {
    const std::uint64_t first = block * kPagesPerBlock;
    return static_cast<std::uint32_t>(std::min<std::uint64_t>(kPagesPerBlock, page_count - first));
  }
};

}  // namespace umsim::sim
