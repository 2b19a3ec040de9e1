// Least frequently used chunk (at a configurable granularity): the chunk with the fewest GPU accesses since it
// was allocated; ties go to the chunk allocated first. Counts live in the
// per-slot nodes of an intrusive ordered set (no allocation per access).
#include <cstdint>
#include <vector>

#include <boost/intrusive/set.hpp>

#include "policies/eviction/chunk_slots.h"
#include "policies/eviction/granularity.h"
#include "policies/policy_kinds.h"

namespace umsim::policies {
namespace {

struct LfuNode : bi::set_base_hook<bi::link_mode<bi::normal_link>> {
  std::uint64_t count = 0;
  std::uint64_t order = 0;  // allocation order, breaks ties
  std::uint32_t slot = 0;
  bool linked = false;
  friend bool operator<(const LfuNode& a, const LfuNode& b) {
    return a.count != b.count ? a.count < b.count : a.order < b.order;
  }
};
using LfuSet = bi::multiset<LfuNode>;

class LfuEviction final : public sim::EvictionPolicy {
 public:
  explicit LfuEviction(const Params& p) : granularity_(checked_granularity("lfu", p.get_bytes("granularity"))) {}
  ~LfuEviction() override {
    for (auto& s : sets_) s.clear();
  }

  sim::Bytes granularity() const override { return granularity_; }
  bool wants_access_callbacks() const override { return true; }
  void attach(const sim::EvictionContext& ctx) override {
    EvictionPolicy::attach(ctx);
    for (auto& s : sets_) s.clear();
    sets_ = std::vector<LfuSet>(ctx.gpus);
    nodes_.clear();
    nodes_.resize(static_cast<std::size_t>(ctx.gpus));
  }
  void on_chunk_allocated(const sim::ChunkInfo& c, sim::Nanos) override {
    auto& n = node(c);
    remove(c.gpu, n);
    n.count = 0;
    n.order = next_order_++;
    sets_[c.gpu].insert(n);
    n.linked = true;
  }
  void on_chunk_accessed(const sim::ChunkInfo& c, std::uint64_t, sim::Nanos) override {
    auto& n = node(c);
    if (!n.linked) return;
    sets_[c.gpu].erase(sets_[c.gpu].iterator_to(n));
    ++n.count;
    sets_[c.gpu].insert(n);
  }
  void on_chunk_freed(const sim::ChunkInfo& c) override { remove(c.gpu, node(c)); }
  std::uint32_t choose_victim(int gpu, sim::Nanos) override {
    for (auto& n : sets_[gpu])
      if (evictable(ctx_, gpu, n.slot)) return n.slot;
    return sim::kNoVictim;
  }

 private:
  LfuNode& node(const sim::ChunkInfo& c) {
    return nodes_[static_cast<std::size_t>(c.gpu)].at(c.slot, [](LfuNode& n, std::uint32_t s) { n.slot = s; });
  }
  void remove(int gpu, LfuNode& n) {
    if (!n.linked) return;
    sets_[gpu].erase(sets_[gpu].iterator_to(n));
    n.linked = false;
  }
  sim::Bytes granularity_;
  std::vector<sim::SlotArray<LfuNode>> nodes_;  // per GPU, created as slots are used
  std::vector<LfuSet> sets_;
  std::uint64_t next_order_ = 0;
};

}  // namespace

UMSIM_REGISTER_POLICY(sim::EvictionPolicy, LfuEviction, "lfu",
                      "least frequently used chunk (GPU accesses since allocation; ties: oldest)",
                      {{"granularity", ParamType::kBytes, "2MiB", "chunk size, power of two from 4KiB to 2MiB"}});

}  // namespace umsim::policies
