// Per-slot metadata shared by the list-based eviction policies (FIFO, LRU, CLOCK,
// tree pre-eviction): nodes indexed by (gpu, slot), created when a slot is first
// used (memory follows the chunks in use, not the GPU's capacity), each carrying
// a Boost.Intrusive list hook, so list operations never allocate.
#pragma once

#include <cstdint>
#include <vector>

#include <boost/intrusive/list.hpp>

#include "sim/eviction_policy.h"
#include "sim/slot_array.h"

namespace umsim::policies {

namespace bi = boost::intrusive;

struct ChunkNode : bi::list_base_hook<bi::link_mode<bi::normal_link>> {
  std::uint32_t slot = 0;
  sim::AllocSlot alloc = 0;
  std::uint64_t first_page = 0;
  std::uint64_t stamp = 0;  // policy-defined (allocation order, access count, ...)
  std::uint8_t list = 0xff;  // which list holds the node; kNotListed if none
  bool referenced = false;  // CLOCK reference bit
  bool queued = false;      // tree pre-eviction: scheduled for eviction
  static constexpr std::uint8_t kNotListed = 0xff;
};

using ChunkList = bi::list<ChunkNode, bi::constant_time_size<true>>;

// Node storage for every GPU's chunk slots plus `Lists` intrusive lists per GPU.
template <int Lists>
class ChunkSlots {
 public:
  void attach(const sim::EvictionContext& ctx) {
    for (auto& per_gpu : lists_)
      for (auto& l : per_gpu) l.clear();
    nodes_.clear();
    nodes_.resize(static_cast<std::size_t>(ctx.gpus));
    lists_.assign(ctx.gpus, {});
  }

  ChunkNode& node(int gpu, std::uint32_t slot) {
    return nodes_[static_cast<std::size_t>(gpu)].at(slot, [](ChunkNode& n, std::uint32_t s) { n.slot = s; });
  }
  ChunkList& list(int gpu, int which) { return lists_[gpu].l[which]; }
  const ChunkList& list(int gpu, int which) const { return lists_[gpu].l[which]; }

  // Appends the node to the tail of list `which` (unlinking it from any list first).
  void push_back(int gpu, ChunkNode& n, int which) {
    unlink(gpu, n);
    lists_[gpu].l[which].push_back(n);
    n.list = static_cast<std::uint8_t>(which);
  }
  void unlink(int gpu, ChunkNode& n) {
    if (n.list == ChunkNode::kNotListed) return;
    auto& l = lists_[gpu].l[n.list];
    l.erase(l.iterator_to(n));
    n.list = ChunkNode::kNotListed;
  }
  bool listed(const ChunkNode& n) const { return n.list != ChunkNode::kNotListed; }

  ~ChunkSlots() {
    for (auto& per_gpu : lists_)
      for (auto& l : per_gpu.l) l.clear();
  }

 private:
  struct PerGpu {
    ChunkList l[Lists];
    PerGpu() = default;
    PerGpu(const PerGpu&) {}  // lists are never copied with content (only empty ones in assign)
    PerGpu& operator=(const PerGpu&) { return *this; }
    auto begin() { return l; }
    auto end() { return l + Lists; }
  };
  std::vector<sim::SlotArray<ChunkNode>> nodes_;  // per GPU
  std::vector<PerGpu> lists_;
};

inline bool evictable(const sim::EvictionContext& ctx, int gpu, std::uint32_t slot) {
  return ctx.can_evict(gpu, slot);
}

// First evictable node of `list`, or nullptr.
inline ChunkNode* first_evictable(ChunkList& list, const sim::EvictionContext& ctx, int gpu) {
  for (auto& n : list)
    if (evictable(ctx, gpu, n.slot)) return &n;
  return nullptr;
}

// The first two slots of `first` followed by `then` (the upcoming_victims hint
// of a policy that evicts from the front of one list, then of another).
inline std::size_t first_two_slots(const ChunkList& first, const ChunkList& then, std::uint32_t (&out)[2]) {
  std::size_t n = 0;
  for (const ChunkList* l : {&first, &then})
    for (auto it = l->begin(); it != l->end() && n < 2; ++it) out[n++] = it->slot;
  return n;
}

}  // namespace umsim::policies
