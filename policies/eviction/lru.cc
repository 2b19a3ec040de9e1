// Least recently used chunk, at a configurable chunk granularity (4 KiB, 64 KiB
// or 2 MiB). Recency is updated on every resident hit and on allocation.
#include "policies/eviction/chunk_slots.h"
#include "policies/eviction/granularity.h"
#include "policies/policy_kinds.h"

namespace umsim::policies {
namespace {

class LruEviction final : public sim::EvictionPolicy {
 public:
  explicit LruEviction(const Params& p) : granularity_(checked_granularity("lru", p.get_bytes("granularity"))) {}

  sim::Bytes granularity() const override { return granularity_; }
  bool wants_access_callbacks() const override { return true; }
  void attach(const sim::EvictionContext& ctx) override {
    EvictionPolicy::attach(ctx);
    slots_.attach(ctx);
  }
  void on_chunk_allocated(const sim::ChunkInfo& c, sim::Nanos) override {
    slots_.push_back(c.gpu, slots_.node(c.gpu, c.slot), 0);
  }
  void on_chunk_accessed(const sim::ChunkInfo& c, std::uint64_t, sim::Nanos) override {
    auto& n = slots_.node(c.gpu, c.slot);
    auto& l = slots_.list(c.gpu, 0);
    if (slots_.listed(n) && &l.back() != &n) {  // already most recent: nothing to do
      l.erase(l.iterator_to(n));
      l.push_back(n);
    }
  }
  void on_chunk_freed(const sim::ChunkInfo& c) override { slots_.unlink(c.gpu, slots_.node(c.gpu, c.slot)); }
  std::uint32_t choose_victim(int gpu, sim::Nanos) override {
    auto* n = first_evictable(slots_.list(gpu, 0), ctx_, gpu);
    return n ? n->slot : sim::kNoVictim;
  }

 private:
  sim::Bytes granularity_;
  ChunkSlots<1> slots_;
};

}  // namespace

UMSIM_REGISTER_POLICY(sim::EvictionPolicy, LruEviction, "lru",
                      "least recently used chunk (recency updated on every GPU access)",
                      {{"granularity", ParamType::kBytes, "2MiB",
                        "chunk size GPU memory is managed in: 4KiB, 64KiB or 2MiB (any power of two in between)"}});

}  // namespace umsim::policies
