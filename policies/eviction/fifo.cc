// NVIDIA driver eviction order (uvm_pmm_gpu.c): root chunks are evicted in the
// order their VA block started using them, not by access recency. A chunk moves
// to the tail of the "used" list when its block becomes resident on the GPU; a
// chunk whose block no longer has resident pages moves to the "unused" list,
// which is evicted first. Free chunks are used before any eviction (the engine
// only asks for a victim when none is free). The chunk size is a parameter
// (2 MiB as the driver; 4 KiB makes it a FIFO page cache).
//
// The two lists are index-linked slot lists (sim::SlotList, 8 bytes a slot), as
// LRU's: a hook relinks a slot in place, where per-slot nodes on intrusive lists
// cost a node lookup and a list's size upkeep on every move.
#include <vector>

#include "policies/eviction/chunk_slots.h"
#include "policies/eviction/granularity.h"
#include "policies/policy_kinds.h"
#include "sim/slot_list.h"

namespace umsim::policies {
namespace {

class FifoEviction final : public sim::EvictionPolicy {
 public:
  explicit FifoEviction(const Params& p)
      : granularity_(checked_granularity("fifo", p.get_bytes("granularity"))), unused_first_(p.get_bool("unused_first")) {}

  sim::Bytes granularity() const override { return granularity_; }

  void attach(const sim::EvictionContext& ctx) override {
    EvictionPolicy::attach(ctx);
    lists_.assign(static_cast<std::size_t>(ctx.gpus), Lists{});
  }
  void on_chunk_allocated(const sim::ChunkInfo& c, sim::Nanos) override { move_to_used_tail(lists(c.gpu), c.slot); }
  void on_chunk_residency_changed(const sim::ChunkInfo& c, bool has_resident_pages, sim::Nanos) override {
    if (!unused_first_) return;  // without the unused list: allocation order only
    Lists& l = lists(c.gpu);
    if (has_resident_pages) {
      if (l.used.contains(c.slot) || l.unused.contains(c.slot)) move_to_used_tail(l, c.slot);
    } else if (l.used.contains(c.slot)) {
      l.used.erase(c.slot);
      l.unused.push_back(c.slot);
    } else if (l.unused.contains(c.slot)) {
      l.unused.move_to_back(c.slot);
    }
  }
  void on_chunk_freed(const sim::ChunkInfo& c) override {
    Lists& l = lists(c.gpu);
    if (l.used.contains(c.slot)) l.used.erase(c.slot);
    else if (l.unused.contains(c.slot)) l.unused.erase(c.slot);
  }
  // The freed slot, taken again, goes to the used tail: unlinked and appended in one step.
  void on_chunk_replaced(const sim::ChunkInfo&, const sim::ChunkInfo& incoming, sim::Nanos now) override {
    on_chunk_allocated(incoming, now);
  }
  // Most evictions take the oldest used chunk with no unused one waiting: that
  // case is answered from the engine's records in line, a leaf call with no
  // frame; the walk (and its residency and evictable callbacks) is out of line.
  std::uint32_t choose_victim(int gpu, sim::Nanos) override {
    const Lists& l = lists(gpu);
    const std::uint32_t oldest = l.used.front();
    if (l.unused.empty() && oldest != sim::SlotList::kNone && ctx_.memory && ctx_.memory[gpu]->evictable(oldest))
      return oldest;
    return first_evictable_in_order(gpu);
  }
  // The engine keeps the used list in line and asks for victims only while
  // the unused list holds a chunk (on_chunk_residency_changed keeps both).
  sim::SlotList* eviction_order(int gpu) override { return &lists(gpu).used; }
  sim::SlotList* preferred_victims(int gpu) override { return &lists(gpu).unused; }
  std::size_t upcoming_victims(int gpu, std::uint32_t (&out)[2]) const override {
    const Lists& l = lists_[static_cast<std::size_t>(gpu)];
    std::size_t n = 0;
    for (std::uint32_t s = l.unused.front(); s != sim::SlotList::kNone && n < 2; s = l.unused.next(s)) out[n++] = s;
    for (std::uint32_t s = l.used.front(); s != sim::SlotList::kNone && n < 2; s = l.used.next(s)) out[n++] = s;
    return n;
  }

 private:
  struct Lists {
    sim::SlotList unused;  // chunks whose block has no resident pages, evicted first
    sim::SlotList used;    // the rest, in the order their block became resident
  };
  Lists& lists(int gpu) { return lists_[static_cast<std::size_t>(gpu)]; }
  // choose_victim's walk: the unused list first, then the used list.
  [[gnu::noinline]] std::uint32_t first_evictable_in_order(int gpu) {
    Lists& l = lists(gpu);
    // A chunk on the unused list whose block became resident again without the engine
    // reporting it goes back to the used tail first, as the driver's block_mark_memory_used.
    for (std::uint32_t s = l.unused.front(); s != sim::SlotList::kNone;) {
      const std::uint32_t next = l.unused.next(s);
      if (ctx_.resident_pages && ctx_.resident_pages(gpu, s) != 0) {
        l.unused.erase(s);
        l.used.push_back(s);
      } else if (evictable(ctx_, gpu, s)) {
        return s;
      }
      s = next;
    }
    for (std::uint32_t s = l.used.front(); s != sim::SlotList::kNone; s = l.used.next(s))
      if (evictable(ctx_, gpu, s)) return s;
    return sim::kNoVictim;
  }
  // The slot leaves whichever list holds it and is appended to the used list.
  static void move_to_used_tail(Lists& l, std::uint32_t slot) {
    if (l.used.contains(slot)) return l.used.move_to_back(slot);
    append_to_used(l, slot);
  }
  // move_to_used_tail for a slot not on the used list, out of line: the list's
  // growth there would give every move (one per eviction) a frame to build.
  [[gnu::noinline]] static void append_to_used(Lists& l, std::uint32_t slot) {
    if (l.unused.contains(slot)) l.unused.erase(slot);
    l.used.push_back(slot);
  }

  sim::Bytes granularity_;
  bool unused_first_;
  std::vector<Lists> lists_;  // per GPU
};

}  // namespace

UMSIM_REGISTER_POLICY(sim::EvictionPolicy, FifoEviction, "fifo",
                      "NVIDIA driver: evict 2 MiB root chunks in the order their blocks became resident "
                      "(chunks with no resident pages first)",
                      {{"unused_first", ParamType::kBool, "true",
                        "evict chunks whose block has no resident pages before used ones, as the driver"},
                       {"granularity", ParamType::kBytes, "2MiB",
                        "chunk size GPU memory is managed in: 4KiB, 64KiB or 2MiB (any power of two in between)"}});

}  // namespace umsim::policies
