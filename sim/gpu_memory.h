// Physical memory of one GPU, in chunks of the eviction policy's granularity
// (2 MiB root chunks by default). Chunk records are created lazily (slot pages
// that never move, so intrusive links stay valid) and released chunks go on a
// Boost.Intrusive free list: no allocation per list operation. Which pages of a
// chunk are resident is kept per VA block in the allocation (Allocation::gpu_resident).
#pragma once

#include <boost/intrusive/list.hpp>

#include "sim/slot_array.h"
#include "sim/types.h"

namespace umsim::sim {

struct PhysicalChunk
    : boost::intrusive::list_base_hook<boost::intrusive::link_mode<boost::intrusive::normal_link>> {
  std::uint32_t slot = 0;        // its own index
  AllocSlot alloc = 0;
  std::uint64_t first_page = 0;  // first page (within alloc) the chunk backs
  std::uint16_t resident = 0;    // pages of the chunk with a copy on this GPU (at most a block's 512)
  // The page (within its VA block) that a block-sized chunk was last taken
  // for on a full memory by a block's only faulted page (replace_first_chunk
  // for service_page_runs): evicted with one resident page, the chunk most
  // often holds just that one, taken without a walk of the block's mask
  // (checked against the mask: a stale value only means the walk).
  std::uint16_t taken_for = 0;
  bool allocated = false;
  bool pinned = false;           // device allocations: never evicted
  bool busy = false;             // being filled by the current operation
  bool fresh = false;            // allocated and not yet given its first page
};

class GpuMemory {
 public:
  explicit GpuMemory(std::uint32_t capacity_chunks) : capacity_(capacity_chunks) {}
  GpuMemory(const GpuMemory&) = delete;
  GpuMemory& operator=(const GpuMemory&) = delete;
  GpuMemory(GpuMemory&&) = default;

  std::uint32_t capacity() const { return capacity_; }
  std::uint32_t allocated() const { return allocated_; }
  std::uint32_t pinned() const { return pinned_; }
  bool has_free() const { return allocated_ < capacity_; }

  // Takes a free slot (has_free() must hold) for (alloc, first_page): the
  // longest free one, else a new one. In line: once per fault of a replay
  // that evicts on every fault.
  std::uint32_t take(AllocSlot alloc, std::uint64_t first_page, bool pinned) {
    std::uint32_t slot;
    if (!free_.empty()) {
      slot = free_.front().slot;
      free_.pop_front();
    } else {
      slot = new_slot();
    }
    assign(chunks_[slot], alloc, first_page, pinned);
    ++allocated_;
    if (pinned) ++pinned_;
    return slot;
  }
  void release(std::uint32_t slot) {
    PhysicalChunk& c = chunks_[slot];
    --allocated_;
    if (c.pinned) --pinned_;
    c.allocated = false;
    c.pinned = false;
    c.busy = false;
    c.resident = 0;
    free_.push_back(c);
  }

  // release(slot) and take(alloc, first_page, false) at once, for an evicted
  // chunk of a full memory (whose free list is empty, so take would return the
  // slot just released): the fault that evicted it takes it. The caller has
  // the chunk's record at hand (chunk(slot)): not looked up again.
  void retake(PhysicalChunk& c, AllocSlot alloc, std::uint64_t first_page) {
    assign(c, alloc, first_page, /*pinned=*/false);
  }

  // In line: GCC kept the const one out of line in the victim look-ahead (twice per eviction).
  [[gnu::always_inline]] PhysicalChunk& chunk(std::uint32_t slot) { return chunks_[slot]; }
  [[gnu::always_inline]] const PhysicalChunk& chunk(std::uint32_t slot) const { return chunks_[slot]; }
  std::uint32_t slots_created() const { return slots_created_; }
  // Whether the slot holds a chunk that may be evicted now (not pinned, not being filled).
  [[gnu::always_inline]] bool evictable(std::uint32_t slot) const {
    if (slot >= slots_created_) return false;
    const PhysicalChunk& c = chunks_[slot];
    return c.allocated && !c.pinned && !c.busy;
  }

 private:
  std::uint32_t new_slot();  // creates the next slot's record
  // A taken chunk's record, for (alloc, first_page), with nothing resident yet.
  static void assign(PhysicalChunk& c, AllocSlot alloc, std::uint64_t first_page, bool pinned) {
    c.alloc = alloc;
    c.first_page = first_page;
    c.resident = 0;
    c.allocated = true;
    c.pinned = pinned;
    c.busy = false;
    c.fresh = true;
  }
  std::uint32_t capacity_;
  std::uint32_t allocated_ = 0;
  std::uint32_t pinned_ = 0;
  std::uint32_t slots_created_ = 0;
  SlotArray<PhysicalChunk> chunks_;
  boost::intrusive::list<PhysicalChunk> free_;
};

}  // namespace umsim::sim
