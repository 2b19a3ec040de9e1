// Uniformly random evictable chunk, from a seeded generator (runs are repeatable).
#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "policies/eviction/chunk_slots.h"
#include "policies/eviction/granularity.h"
#include "policies/policy_kinds.h"

namespace umsim::policies {
namespace {

class RandomEviction final : public sim::EvictionPolicy {
 public:
  explicit RandomEviction(const Params& p)
      : granularity_(checked_granularity("random", p.get_bytes("granularity"))),
        rng_(static_cast<std::uint64_t>(p.get_int("seed"))) {}

  sim::Bytes granularity() const override { return granularity_; }
  void attach(const sim::EvictionContext& ctx) override {
    EvictionPolicy::attach(ctx);
    allocated_.assign(ctx.gpus, {});
    position_.assign(ctx.gpus, {});
  }
  void on_chunk_allocated(const sim::ChunkInfo& c, sim::Nanos) override {
    auto& pos = position(c.gpu, c.slot);
    if (pos != kAbsent) return;
    pos = static_cast<std::uint32_t>(allocated_[c.gpu].size());
    allocated_[c.gpu].push_back(c.slot);
  }
  void on_chunk_freed(const sim::ChunkInfo& c) override {
    auto& pos = position(c.gpu, c.slot);
    if (pos == kAbsent) return;
    auto& v = allocated_[c.gpu];
    const std::uint32_t last = v.back();
    v[pos] = last;
    position(c.gpu, last) = pos;
    v.pop_back();
    pos = kAbsent;
  }
  std::uint32_t choose_victim(int gpu, sim::Nanos) override {
    const auto& v = allocated_[gpu];
    if (v.empty()) return sim::kNoVictim;
    // Modulo rather than std::uniform_int_distribution: the same sequence on every library.
    const std::size_t start = rng_() % v.size();
    for (std::size_t i = 0; i < v.size(); ++i) {
      const std::uint32_t slot = v[(start + i) % v.size()];
      if (evictable(ctx_, gpu, slot)) return slot;
    }
    return sim::kNoVictim;
  }

 private:
  static constexpr std::uint32_t kAbsent = 0xffffffffu;
  std::uint32_t& position(int gpu, std::uint32_t slot) {
    auto& v = position_[static_cast<std::size_t>(gpu)];
    if (v.size() <= slot) v.resize(std::max<std::size_t>(slot + 1, v.size() * 2), kAbsent);  // slots in use only
    return v[slot];
  }
  sim::Bytes granularity_;
  std::mt19937_64 rng_;
  std::vector<std::vector<std::uint32_t>> allocated_;  // per GPU: allocated slots, dense
  std::vector<std::vector<std::uint32_t>> position_;   // [gpu][slot] -> index in allocated_
};

}  // namespace

UMSIM_REGISTER_POLICY(sim::EvictionPolicy, RandomEviction, "random",
                      "uniformly random evictable chunk (seeded, repeatable)",
                      {{"seed", ParamType::kInt, "1", "random generator seed"},
                       {"granularity", ParamType::kBytes, "2MiB", "chunk size, power of two from 4KiB to 2MiB"}});

}  // namespace umsim::policies
