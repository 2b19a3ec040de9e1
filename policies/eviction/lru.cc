// Least recently used chunk, at a configurable chunk granularity (4 KiB, 64 KiB
// or 2 MiB). Recency is updated on every resident hit and on allocation.
#include "policies/eviction/chunk_slots.h"
#include "policies/eviction/granularity.h"
#include "policies/policy_kinds.h"
#include "sim/slot_list.h"

namespace umsim::policies {
namespace {

class LruEviction final : public sim::EvictionPolicy {
 public:
  explicit LruEviction(const Params& p) : granularity_(checked_granularity("lru", p.get_bytes("granularity"))) {}

  sim::Bytes granularity() const override { return granularity_; }
  bool wants_access_callbacks() const override { return true; }
  void attach(const sim::EvictionContext& ctx) override {
    EvictionPolicy::attach(ctx);
    order_.assign(static_cast<std::size_t>(ctx.gpus), sim::SlotList{});
  }
  void on_chunk_allocated(const sim::ChunkInfo& c, sim::Nanos) override {
    sim::SlotList& l = order_[static_cast<std::size_t>(c.gpu)];
    if (l.contains(c.slot)) l.erase(c.slot);
    l.push_back(c.slot);
  }
  // Every resident hit: the chunk becomes the most recent. The engine does it
  // itself through recency_order; these serve callers without it (tests).
  void on_access(const sim::ChunkAccess& a) override { touch(a.chunk.gpu, a.chunk.slot); }
  void on_chunk_accessed(const sim::ChunkInfo& c, std::uint64_t, sim::Nanos) override { touch(c.gpu, c.slot); }
  sim::SlotList* recency_order(int gpu) override { return &order_[static_cast<std::size_t>(gpu)]; }
  // Allocation, eviction and the victim are the list's alone: the engine keeps it in line.
  sim::SlotList* eviction_order(int gpu) override { return &order_[static_cast<std::size_t>(gpu)]; }
  // Eviction and choice are overridden directly (not through the defaults that
  // forward to on_chunk_freed / choose_victim), for callers without eviction_order (tests).
  void on_chunk_evicted(const sim::ChunkInfo& c, sim::Nanos) override { forget(c); }
  void on_chunk_freed(const sim::ChunkInfo& c) override { forget(c); }
  std::uint32_t choose_victim(int gpu, sim::Nanos) override { return oldest_evictable(gpu); }
  std::uint32_t choose_victim_for(const sim::IncomingChunk& incoming, sim::Nanos) override {
    return oldest_evictable(incoming.gpu);
  }
  std::size_t upcoming_victims(int gpu, std::uint32_t (&out)[2]) const override {
    return order_[static_cast<std::size_t>(gpu)].first_two(out);
  }

 private:
  void touch(int gpu, std::uint32_t slot) {
    sim::SlotList& l = order_[static_cast<std::size_t>(gpu)];
    l.move_to_back_if_listed(slot);
  }
  void forget(const sim::ChunkInfo& c) {
    sim::SlotList& l = order_[static_cast<std::size_t>(c.gpu)];
    if (l.contains(c.slot)) l.erase(c.slot);
  }
  std::uint32_t oldest_evictable(int gpu) const {
    const sim::SlotList& l = order_[static_cast<std::size_t>(gpu)];
    for (std::uint32_t s = l.front(); s != sim::SlotList::kNone; s = l.next(s))
      if (evictable(ctx_, gpu, s)) return s;
    return sim::kNoVictim;
  }

  sim::Bytes granularity_;
  std::vector<sim::SlotList> order_;  // per GPU, least recent first
};

}  // namespace

UMSIM_REGISTER_POLICY(sim::EvictionPolicy, LruEviction, "lru",
                      "least recently used chunk (recency updated on every GPU access)",
                      {{"granularity", ParamType::kBytes, "2MiB",
                        "chunk size GPU memory is managed in: 4KiB, 64KiB or 2MiB (any power of two in between)"}});

}  // namespace umsim::policies
