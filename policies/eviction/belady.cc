// Belady's MIN (offline oracle): evict the chunk whose next GPU access lies
// furthest in the future. Needs the trace's future (the engine builds a
// FutureOracle in a pre-pass). Each chunk's next use is kept as the key of an
// intrusive ordered set and refreshed when the chunk is accessed; keys that have
// fallen into the past (an access the engine did not report) are refreshed
// before a victim is chosen.
#include <algorithm>
#include <cstdint>
#include <vector>

#include <boost/intrusive/set.hpp>

#include "policies/eviction/chunk_slots.h"
#include "policies/eviction/granularity.h"
#include "policies/policy_kinds.h"

namespace umsim::policies {
namespace {

struct BeladyNode : bi::set_base_hook<bi::link_mode<bi::normal_link>> {
  std::uint64_t next_use = 0;
  sim::AllocSlot alloc = 0;
  std::uint64_t first_page = 0;
  std::uint32_t slot = 0;
  bool linked = false;
  friend bool operator<(const BeladyNode& a, const BeladyNode& b) {
    return a.next_use != b.next_use ? a.next_use < b.next_use : a.slot < b.slot;
  }
};
using BeladySet = bi::multiset<BeladyNode>;

class BeladyEviction final : public sim::EvictionPolicy {
 public:
  explicit BeladyEviction(const Params& p) : granularity_(checked_granularity("belady", p.get_bytes("granularity"))) {}
  ~BeladyEviction() override {
    for (auto& s : sets_) s.clear();
  }

  sim::Bytes granularity() const override { return granularity_; }
  bool wants_access_callbacks() const override { return true; }
  bool needs_future() const override { return true; }
  void attach(const sim::EvictionContext& ctx) override {
    if (ctx.future == nullptr) throw PolicyError("evict policy 'belady': the engine provided no future oracle");
    EvictionPolicy::attach(ctx);
    for (auto& s : sets_) s.clear();
    sets_ = std::vector<BeladySet>(ctx.gpus);
    nodes_.clear();
    nodes_.resize(static_cast<std::size_t>(ctx.gpus));
  }
  void on_chunk_allocated(const sim::ChunkInfo& c, sim::Nanos) override {
    auto& n = node(c.gpu, c.slot);
    remove(c.gpu, n);
    n.alloc = c.alloc;
    n.first_page = c.first_page;
    n.next_use = ctx_.future->next_use(c.gpu, c.alloc, c.first_page, current_seq());
    sets_[c.gpu].insert(n);
    n.linked = true;
  }
  void on_chunk_accessed(const sim::ChunkInfo& c, std::uint64_t seq, sim::Nanos) override {
    if (seq > last_seq_) last_seq_ = seq;
    auto& n = node(c.gpu, c.slot);
    if (!n.linked) return;
    sets_[c.gpu].erase(sets_[c.gpu].iterator_to(n));
    n.next_use = ctx_.future->next_use(c.gpu, n.alloc, n.first_page, seq);
    sets_[c.gpu].insert(n);
  }
  void on_chunk_freed(const sim::ChunkInfo& c) override { remove(c.gpu, node(c.gpu, c.slot)); }
  std::uint32_t choose_victim(int gpu, sim::Nanos) override {
    auto& s = sets_[gpu];
    const std::uint64_t now = current_seq();
    // Refresh keys at or before `now`: their recorded next use has happened.
    while (!s.empty() && s.begin()->next_use <= now) {
      BeladyNode& n = *s.begin();
      s.erase(s.begin());
      n.next_use = ctx_.future->next_use(gpu, n.alloc, n.first_page, now);
      if (n.next_use <= now) n.next_use = UINT64_MAX;  // defensive: an oracle must answer strictly after `now`
      s.insert(n);
    }
    for (auto it = s.rbegin(); it != s.rend(); ++it)
      if (evictable(ctx_, gpu, it->slot)) return it->slot;
    return sim::kNoVictim;
  }

 private:
  std::uint64_t current_seq() const {
    return ctx_.access_seq ? std::max(*ctx_.access_seq, last_seq_) : last_seq_;
  }
  BeladyNode& node(int gpu, std::uint32_t slot) {
    return nodes_[static_cast<std::size_t>(gpu)].at(slot, [](BeladyNode& n, std::uint32_t s) { n.slot = s; });
  }
  void remove(int gpu, BeladyNode& n) {
    if (!n.linked) return;
    sets_[gpu].erase(sets_[gpu].iterator_to(n));
    n.linked = false;
  }
  sim::Bytes granularity_;
  std::uint64_t last_seq_ = 0;
  std::vector<sim::SlotArray<BeladyNode>> nodes_;  // per GPU, created as slots are used
  std::vector<BeladySet> sets_;
};

}  // namespace

UMSIM_REGISTER_POLICY(sim::EvictionPolicy, BeladyEviction, "belady",
                      "Belady MIN oracle: evict the chunk next used furthest in the future (offline, uses the trace)",
                      {{"granularity", ParamType::kBytes, "2MiB", "chunk size, power of two from 4KiB to 2MiB"}});

}  // namespace umsim::policies
