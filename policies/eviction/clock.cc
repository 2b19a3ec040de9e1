// CLOCK (second chance): chunks sit on a circular list swept by a hand; a GPU
// access sets the chunk's reference bit, the hand clears set bits and evicts
// the first chunk found with a clear bit.
#include "policies/eviction/chunk_slots.h"
#include "policies/eviction/granularity.h"
#include "policies/policy_kinds.h"

namespace umsim::policies {
namespace {

class ClockEviction final : public sim::EvictionPolicy {
 public:
  explicit ClockEviction(const Params& p) : granularity_(checked_granularity("clock", p.get_bytes("granularity"))) {}

  sim::Bytes granularity() const override { return granularity_; }
  bool wants_access_callbacks() const override { return true; }
  void attach(const sim::EvictionContext& ctx) override {
    EvictionPolicy::attach(ctx);
    slots_.attach(ctx);
    hand_.assign(ctx.gpus, nullptr);
  }
  void on_chunk_allocated(const sim::ChunkInfo& c, sim::Nanos) override {
    auto& n = slots_.node(c.gpu, c.slot);
    if (slots_.listed(n)) release(c.gpu, n);
    n.referenced = false;
    auto& l = slots_.list(c.gpu, 0);
    // New chunks go just behind the hand: the last position it reaches.
    if (hand_[c.gpu] == nullptr) {
      l.push_back(n);
    } else {
      l.insert(l.iterator_to(*hand_[c.gpu]), n);
    }
    n.list = 0;
  }
  void on_chunk_accessed(const sim::ChunkInfo& c, std::uint64_t, sim::Nanos) override {
    slots_.node(c.gpu, c.slot).referenced = true;
  }
  void on_chunk_freed(const sim::ChunkInfo& c) override {
    auto& n = slots_.node(c.gpu, c.slot);
    if (slots_.listed(n)) release(c.gpu, n);
  }
  std::uint32_t choose_victim(int gpu, sim::Nanos) override {
    auto& l = slots_.list(gpu, 0);
    if (l.empty()) return sim::kNoVictim;
    if (hand_[gpu] == nullptr) hand_[gpu] = &l.front();
    // Two full sweeps clear every bit; a third finds nothing only if nothing is evictable.
    for (std::size_t steps = 0, limit = 2 * l.size() + 1; steps < limit; ++steps) {
      ChunkNode& n = *hand_[gpu];
      advance(gpu);
      if (!evictable(ctx_, gpu, n.slot)) continue;
      if (n.referenced) {
        n.referenced = false;
        continue;
      }
      return n.slot;
    }
    return sim::kNoVictim;
  }

 private:
  void advance(int gpu) {
    auto& l = slots_.list(gpu, 0);
    auto it = std::next(l.iterator_to(*hand_[gpu]));
    hand_[gpu] = it == l.end() ? &l.front() : &*it;
  }
  void release(int gpu, ChunkNode& n) {
    if (hand_[gpu] == &n) {
      advance(gpu);
      if (hand_[gpu] == &n) hand_[gpu] = nullptr;  // it was the only chunk
    }
    slots_.unlink(gpu, n);
  }
  sim::Bytes granularity_;
  ChunkSlots<1> slots_;
  std::vector<ChunkNode*> hand_;  // per GPU: the next chunk the hand examines
};

}  // namespace

UMSIM_REGISTER_POLICY(sim::EvictionPolicy, ClockEviction, "clock",
                      "CLOCK / second chance: reference bit set on access, cleared by the sweeping hand",
                      {{"granularity", ParamType::kBytes, "2MiB", "chunk size, power of two from 4KiB to 2MiB"}});

}  // namespace umsim::policies
