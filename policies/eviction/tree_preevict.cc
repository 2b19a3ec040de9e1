// Tree-based neighbourhood pre-eviction (UVMSmart's TBNe, ISCA'19): memory is
// managed in 64 KiB basic blocks; the victim is the least recently used basic
// block, and the 2 MiB block it belongs to is viewed as a binary tree over its
// 32 basic blocks. After the victim leaves, the tree is walked bottom-up: every
// node that still holds resident basic blocks but less than `threshold` percent
// (half) of its span has all of them scheduled for eviction, which lowers its
// ancestors' counts in turn. Scheduled basic blocks are the next victims on this
// GPU, so a sparsely used 2 MiB region is emptied as a whole.
#include <cstdint>
#include <deque>
#include <vector>

#include "policies/eviction/chunk_slots.h"
#include "policies/eviction/granularity.h"
#include "policies/policy_kinds.h"

namespace umsim::policies {
namespace {

class TreePreEviction final : public sim::EvictionPolicy {
 public:
  explicit TreePreEviction(const Params& p)
      : granularity_(checked_granularity("tree-preevict", p.get_bytes("granularity"))),
        threshold_(p.get_int("threshold")) {
    if (threshold_ < 1 || threshold_ > 100)
      throw PolicyError("evict policy 'tree-preevict': threshold must be 1..100, got " + std::to_string(threshold_));
    if (granularity_ == sim::kBlockSize)
      throw PolicyError("evict policy 'tree-preevict': granularity must be below 2MiB (the tree's leaves)");
    leaves_ = static_cast<std::uint32_t>(sim::kBlockSize / granularity_);
  }

  sim::Bytes granularity() const override { return granularity_; }
  bool wants_access_callbacks() const override { return true; }
  void attach(const sim::EvictionContext& ctx) override {
    EvictionPolicy::attach(ctx);
    slots_.attach(ctx);
    where_.assign(ctx.gpus, {});
    pending_.assign(ctx.gpus, {});
  }
  void on_chunk_allocated(const sim::ChunkInfo& c, sim::Nanos) override {
    auto& n = slots_.node(c.gpu, c.slot);
    n.alloc = c.alloc;
    n.first_page = c.first_page;
    n.queued = false;
    slots_.push_back(c.gpu, n, 0);
    leaf_ref(c.gpu, c.alloc, leaf_index(c.first_page)) = c.slot;
  }
  void on_chunk_accessed(const sim::ChunkInfo& c, std::uint64_t, sim::Nanos) override {
    auto& n = slots_.node(c.gpu, c.slot);
    auto& l = slots_.list(c.gpu, 0);
    if (slots_.listed(n) && &l.back() != &n) {
      l.erase(l.iterator_to(n));
      l.push_back(n);
    }
  }
  void on_chunk_freed(const sim::ChunkInfo& c) override {
    auto& n = slots_.node(c.gpu, c.slot);
    if (!slots_.listed(n)) return;
    slots_.unlink(c.gpu, n);
    n.queued = false;
    leaf_ref(c.gpu, n.alloc, leaf_index(n.first_page)) = kNone;
  }
  std::uint32_t choose_victim(int gpu, sim::Nanos) override {
    // Queued neighbours first (skipping any freed or re-used since they were queued).
    auto& q = pending_[gpu];
    while (!q.empty()) {
      const Pending p = q.front();
      q.pop_front();
      auto& n = slots_.node(gpu, p.slot);
      if (slots_.listed(n) && n.alloc == p.alloc && n.first_page == p.first_page) {
        if (evictable(ctx_, gpu, p.slot)) return p.slot;
        n.queued = false;  // pinned meanwhile: it stays, as UVMSmart skips blocks it cannot evict
      }
    }
    ChunkNode* victim = first_evictable(slots_.list(gpu, 0), ctx_, gpu);
    if (victim == nullptr) return sim::kNoVictim;
    queue_neighbours(gpu, *victim);
    return victim->slot;
  }

 private:
  static constexpr std::uint32_t kNone = 0xffffffffu;
  struct Pending {
    std::uint32_t slot;
    sim::AllocSlot alloc;
    std::uint64_t first_page;
  };

  std::uint64_t leaf_index(std::uint64_t first_page) const { return first_page * sim::kPageSize / granularity_; }
  std::uint32_t& leaf_ref(int gpu, sim::AllocSlot alloc, std::uint64_t leaf) {
    auto& per_alloc = where_[gpu];
    if (per_alloc.size() <= alloc) per_alloc.resize(alloc + 1);
    auto& v = per_alloc[alloc];
    if (v.size() <= leaf) v.resize((leaf / leaves_ + 1) * leaves_, kNone);  // whole trees at a time
    return v[leaf];
  }

  void queue_neighbours(int gpu, ChunkNode& victim) {
    const std::uint64_t leaf = leaf_index(victim.first_page);
    const std::uint64_t tree_first = leaf / leaves_ * leaves_;
    // Resident basic blocks of the tree, the victim and already scheduled ones excluded.
    std::uint32_t slot_of[sim::kPagesPerBlock];
    bool alive[sim::kPagesPerBlock];
    for (std::uint32_t i = 0; i < leaves_; ++i) {
      slot_of[i] = leaf_ref(gpu, victim.alloc, tree_first + i);
      alive[i] = slot_of[i] != kNone && tree_first + i != leaf && !slots_.node(gpu, slot_of[i]).queued;
    }
    for (std::uint32_t span = 2; span <= leaves_; span *= 2) {
      for (std::uint32_t first = 0; first < leaves_; first += span) {
        std::uint32_t resident = 0;
        for (std::uint32_t i = first; i < first + span; ++i) resident += alive[i];
        if (resident == 0 || resident * 100 >= span * static_cast<std::uint32_t>(threshold_)) continue;
        for (std::uint32_t i = first; i < first + span; ++i) {
          if (!alive[i]) continue;
          alive[i] = false;
          slots_.node(gpu, slot_of[i]).queued = true;
          pending_[gpu].push_back({slot_of[i], victim.alloc, (tree_first + i) * granularity_ / sim::kPageSize});
        }
      }
    }
  }

  sim::Bytes granularity_;
  std::int64_t threshold_;
  std::uint32_t leaves_ = 32;
  ChunkSlots<1> slots_;
  std::vector<std::vector<std::vector<std::uint32_t>>> where_;  // [gpu][alloc][basic block] -> slot
  std::vector<std::deque<Pending>> pending_;                    // per GPU: queued neighbours
};

}  // namespace

UMSIM_REGISTER_POLICY(sim::EvictionPolicy, TreePreEviction, "tree-preevict",
                      "UVMSmart tree-based neighbourhood eviction: LRU 64 KiB basic block, then every subtree "
                      "of its 2 MiB block left less than half resident, bottom-up",
                      {{"granularity", ParamType::kBytes, "64KiB", "basic block size (the tree's leaves)"},
                       {"threshold", ParamType::kInt, "50",
                        "percent: a subtree whose resident share falls below this is evicted whole"}});

}  // namespace umsim::policies
