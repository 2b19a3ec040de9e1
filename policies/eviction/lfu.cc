// Least frequently used chunk: the chunk with the fewest GPU accesses since it
// was allocated; ties go to the chunk allocated first. Counts live in the
// per-slot nodes of an intrusive ordered set (no allocation per access).
#include <cstdint>
#include <vector>

#include <boost/intrusive/set.hpp>

#include "policies/eviction/chunk_slots.h"
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
  explicit LfuEviction(const Params&) {}
  ~LfuEviction() override {
    for (auto& s : sets_) s.clear();
  }

  bool wants_access_callbacks() const override { return true; }
  void attach(const sim::EvictionContext& ctx) override {
    EvictionPolicy::attach(ctx);
    for (auto& s : sets_) s.clear();
    sets_ = std::vector<LfuSet>(ctx.gpus);
    nodes_.assign(static_cast<std::size_t>(ctx.gpus) * ctx.chunks_per_gpu, LfuNode{});
    for (std::size_t i = 0; i < nodes_.size(); ++i) nodes_[i].slot = static_cast<std::uint32_t>(i % ctx.chunks_per_gpu);
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
  LfuNode& node(const sim::ChunkInfo& c) { return nodes_[static_cast<std::size_t>(c.gpu) * ctx_.chunks_per_gpu + c.slot]; }
  void remove(int gpu, LfuNode& n) {
    if (!n.linked) return;
    sets_[gpu].erase(sets_[gpu].iterator_to(n));
    n.linked = false;
  }
  std::vector<LfuNode> nodes_;
  std::vector<LfuSet> sets_;
  std::uint64_t next_order_ = 0;
};

}  // namespace

UMSIM_REGISTER_POLICY(sim::EvictionPolicy, LfuEviction, "lfu",
                      "least frequently used 2 MiB chunk (GPU accesses since allocation; ties: oldest)", {});

}  // namespace umsim::policies
