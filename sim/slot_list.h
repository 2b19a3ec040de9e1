// An ordered list of a GPU's chunk slots kept as one array of 32-bit slot
// number pairs (previous, next): 8 bytes per slot, so the links of 200,000
// 4 KiB chunks fit in 1.6 MB, where pointer-linked nodes with their payload
// take six times that and miss the cache on every move. A slot's two links
// share one cache line (a move reads one line per slot it relinks). The array
// grows to the highest slot used (memory follows the chunks in use, as
// GpuMemory's records do).
#pragma once

#include <cstdint>
#include <vector>

#include "sim/cache_hint.h"
#include "sim/huge_page_allocator.h"

namespace umsim::sim {

class SlotList {
 public:
  static constexpr std::uint32_t kNone = 0xffffffffu;

  bool contains(std::uint32_t slot) const { return slot < size_ && links_[slot].next != kNotListed; }
  bool empty() const { return head_ == kNone; }
  std::uint32_t front() const { return head_; }
  std::uint32_t back() const { return tail_; }
  std::uint32_t next(std::uint32_t slot) const { return links_[slot].next; }

  // Appends the slot at the tail (it must not be listed).
  void push_back(std::uint32_t slot) {
    if (slot >= size_) {
      links_.resize(slot + 1, Links{kNone, kNotListed});
      size_ = slot + 1;
    }
    links_[slot] = Links{tail_, kNone};
    if (tail_ == kNone) head_ = slot;
    else links_[tail_].next = slot;
    tail_ = slot;
  }
  // Unlinks a listed slot.
  void erase(std::uint32_t slot) {
    const Links l = links_[slot];
    if (l.prev == kNone) head_ = l.next;
    else links_[l.prev].next = l.next;
    if (l.next == kNone) tail_ = l.prev;
    else links_[l.next].prev = l.prev;
    links_[slot].next = kNotListed;
  }
  // Moves a listed slot to the tail (most recent); nothing when it is there already.
  [[gnu::always_inline]] void move_to_back(std::uint32_t slot) {
    if (slot != tail_) relink_at_back(slot, links_[slot]);
  }
  // A hit's recency move: the slot, if listed and not the tail already, moves
  // to the tail. One load of its links decides both (next is kNotListed off
  // the list, kNone at the tail); a slot past the array (kNone too) is not listed.
  void move_to_back_if_listed(std::uint32_t slot) {
    if (slot >= size_) return;
    const Links l = links_[slot];
    static_assert(kNone == kNotListed + 1);
    if (l.next < kNotListed) relink_at_back(slot, l);
  }
  // The first two slots (fewer when the list is shorter); returns how many.
  std::size_t first_two(std::uint32_t (&out)[2]) const {
    if (head_ == kNone) return 0;
    out[0] = head_;
    out[1] = links_[head_].next;
    if (out[1] == kNone) return 1;
    prefetch(out[1]);  // the links erase(head) rewrites next
    return 2;
  }
  // Hints the cache to fetch the slot's links (a hit about to move it); a
  // slot past the list only wastes the hint.
  void prefetch(std::uint32_t slot) const { prefetch_element(links_.data(), slot); }

 private:
  // next of a slot not in the list; distinct from kNone, the end of the list.
  static constexpr std::uint32_t kNotListed = 0xfffffffeu;
  struct Links {
    std::uint32_t prev, next;
  };
  // Moves a listed slot that is not the tail, whose links are `l`, to the tail
  // (erase and push_back without their checks).
  [[gnu::always_inline]] void relink_at_back(std::uint32_t slot, Links l) {
    if (l.prev == kNone) head_ = l.next;
    else links_[l.prev].next = l.next;
    links_[l.next].prev = l.prev;  // not the tail: it has a next
    links_[slot] = Links{tail_, kNone};
    links_[tail_].next = slot;
    tail_ = slot;
  }
  HugePageVector<Links> links_;
  // links_.size(), which a hit's bounds check compares with in one instruction
  // (the vector's own is a difference of two pointers, shifted).
  std::uint32_t size_ = 0;
  std::uint32_t head_ = kNone, tail_ = kNone;
};

}  // namespace umsim::sim
