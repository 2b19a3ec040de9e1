// An ordered list of a GPU's chunk slots kept as two arrays of 32-bit slot
// numbers (previous, next): 8 bytes per slot, so the links of 200,000 4 KiB
// chunks fit in 1.6 MB, where pointer-linked nodes with their payload take six
// times that and miss the cache on every move. The arrays grow to the highest
// slot used (memory follows the chunks in use, as GpuMemory's records do).
#pragma once

#include <cstdint>
#include <vector>

#include "sim/cache_hint.h"

namespace umsim::sim {

class SlotList {
 public:
  static constexpr std::uint32_t kNone = 0xffffffffu;

  bool contains(std::uint32_t slot) const { return slot < next_.size() && next_[slot] != kNotListed; }
  bool empty() const { return head_ == kNone; }
  std::uint32_t front() const { return head_; }
  std::uint32_t back() const { return tail_; }
  std::uint32_t next(std::uint32_t slot) const { return next_[slot]; }

  // Appends the slot at the tail (it must not be listed).
  void push_back(std::uint32_t slot) {
    if (slot >= next_.size()) {
      next_.resize(slot + 1, kNotListed);
      prev_.resize(slot + 1, kNone);
    }
    prev_[slot] = tail_;
    next_[slot] = kNone;
    if (tail_ == kNone) head_ = slot;
    else next_[tail_] = slot;
    tail_ = slot;
  }
  // Unlinks a listed slot.
  void erase(std::uint32_t slot) {
    const std::uint32_t p = prev_[slot], n = next_[slot];
    if (p == kNone) head_ = n;
    else next_[p] = n;
    if (n == kNone) tail_ = p;
    else prev_[n] = p;
    next_[slot] = kNotListed;
  }
  // Moves a listed slot to the tail (most recent); nothing when it is there already.
  void move_to_back(std::uint32_t slot) {
    if (slot == tail_) return;
    erase(slot);
    push_back(slot);
  }
  // The first two slots (fewer when the list is shorter); returns how many.
  std::size_t first_two(std::uint32_t (&out)[2]) const {
    if (head_ == kNone) return 0;
    out[0] = head_;
    out[1] = next_[head_];
    if (out[1] == kNone) return 1;
    prefetch(out[1]);  // the links erase(head) rewrites next
    return 2;
  }
  // Hints the cache to fetch the slot's links (a hit about to move it).
  void prefetch(std::uint32_t slot) const {
    if (slot < next_.size()) {
      prefetch_for_read(&next_[slot]);
      prefetch_for_read(&prev_[slot]);
    }
  }

 private:
  // next_ of a slot not in the list; distinct from kNone, the end of the list.
  static constexpr std::uint32_t kNotListed = 0xfffffffeu;
  std::vector<std::uint32_t> next_, prev_;
  std::uint32_t head_ = kNone, tail_ = kNone;
};

}  // namespace umsim::sim
