// Example policy (see docs/policies.md): "most recently used" eviction, the
// right choice for a cyclic scan larger than GPU memory, where LRU and FIFO
// evict exactly the chunk needed next. It lives in its own Bazel target and
// needs no change anywhere else: the registrar below makes `--evict mru` work in
// every binary that links //policies/examples:mru.
#include <cstdint>
#include <vector>

#include "policies/policy_kinds.h"

namespace umsim::policies::examples {
namespace {

class MruEviction final : public sim::EvictionPolicy {
 public:
  explicit MruEviction(const Params& p) : on_access_(p.get_bool("on_access")) {}

  // Access callbacks cost a virtual call per resident hit: ask only when needed.
  bool wants_access_callbacks() const override { return on_access_; }

  void attach(const sim::EvictionContext& ctx) override {
    EvictionPolicy::attach(ctx);
    last_use_.assign(ctx.gpus, {});
  }
  void on_chunk_allocated(const sim::ChunkInfo& c, sim::Nanos) override { stamp(c.gpu, c.slot) = ++clock_; }
  void on_chunk_accessed(const sim::ChunkInfo& c, std::uint64_t, sim::Nanos) override {
    stamp(c.gpu, c.slot) = ++clock_;
  }
  void on_chunk_freed(const sim::ChunkInfo& c) override { stamp(c.gpu, c.slot) = kFree; }

  // A linear scan keeps the example short; real policies keep an intrusive list.
  std::uint32_t choose_victim(int gpu, sim::Nanos) override {
    std::uint32_t victim = sim::kNoVictim;
    std::uint64_t newest = 0;
    const auto& stamps = last_use_[static_cast<std::size_t>(gpu)];
    for (std::uint32_t slot = 0; slot < stamps.size(); ++slot) {
      const std::uint64_t s = stamps[slot];
      if (s == kFree || s <= newest) continue;
      if (ctx_.evictable && !ctx_.evictable(gpu, slot)) continue;
      newest = s;
      victim = slot;
    }
    return victim;
  }

 private:
  static constexpr std::uint64_t kFree = 0;
  std::uint64_t& stamp(int gpu, std::uint32_t slot) {
    auto& v = last_use_[static_cast<std::size_t>(gpu)];
    if (v.size() <= slot) v.resize(slot + 1, kFree);  // slots in use only, not the GPU's capacity
    return v[slot];
  }
  bool on_access_;
  std::uint64_t clock_ = 0;
  std::vector<std::vector<std::uint64_t>> last_use_;  // [gpu][slot] -> last use stamp, kFree if unallocated
};

}  // namespace

UMSIM_REGISTER_POLICY(sim::EvictionPolicy, MruEviction, "mru",
                      "example: evict the most recently used chunk (good for cyclic scans larger than memory)",
                      {{"on_access", ParamType::kBool, "true",
                        "count GPU accesses as uses (false: allocation order only, i.e. LIFO)"}});

}  // namespace umsim::policies::examples
