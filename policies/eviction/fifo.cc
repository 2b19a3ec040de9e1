// NVIDIA driver eviction order (uvm_pmm_gpu.c): root chunks are evicted in the
// order their VA block started using them, not by access recency. A chunk moves
// to the tail of the "used" list when its block becomes resident on the GPU; a
// chunk whose block no longer has resident pages moves to the "unused" list,
// which is evicted first. Free chunks are used before any eviction (the engine
// only asks for a victim when none is free). The chunk size is a parameter
// (2 MiB as the driver; 4 KiB makes it a FIFO page cache).
#include "policies/eviction/chunk_slots.h"
#include "policies/eviction/granularity.h"
#include "policies/policy_kinds.h"

namespace umsim::policies {
namespace {

class FifoEviction final : public sim::EvictionPolicy {
 public:
  explicit FifoEviction(const Params& p)
      : granularity_(checked_granularity("fifo", p.get_bytes("granularity"))), unused_first_(p.get_bool("unused_first")) {}

  sim::Bytes granularity() const override { return granularity_; }

  void attach(const sim::EvictionContext& ctx) override {
    EvictionPolicy::attach(ctx);
    slots_.attach(ctx);
  }
  void on_chunk_allocated(const sim::ChunkInfo& c, sim::Nanos) override {
    auto& n = slots_.node(c.gpu, c.slot);
    n.alloc = c.alloc;
    n.first_page = c.first_page;
    slots_.push_back(c.gpu, n, kUsed);
  }
  void on_chunk_residency_changed(const sim::ChunkInfo& c, bool has_resident_pages, sim::Nanos) override {
    auto& n = slots_.node(c.gpu, c.slot);
    if (!slots_.listed(n) || !unused_first_) return;  // without the unused list: allocation order only
    slots_.push_back(c.gpu, n, has_resident_pages ? kUsed : kUnused);
  }
  void on_chunk_freed(const sim::ChunkInfo& c) override { slots_.unlink(c.gpu, slots_.node(c.gpu, c.slot)); }
  // The freed slot's node, taken again, goes to the used tail: unlinked and appended in one step.
  void on_chunk_replaced(const sim::ChunkInfo&, const sim::ChunkInfo& incoming, sim::Nanos now) override {
    on_chunk_allocated(incoming, now);
  }
  std::uint32_t choose_victim(int gpu, sim::Nanos) override {
    // A chunk on the unused list whose block became resident again without the engine
    // reporting it goes back to the used tail first, as the driver's block_mark_memory_used.
    auto& unused = slots_.list(gpu, kUnused);
    for (auto it = unused.begin(); it != unused.end();) {
      ChunkNode& n = *it++;
      if (ctx_.resident_pages && ctx_.resident_pages(gpu, n.slot) != 0) {
        slots_.push_back(gpu, n, kUsed);
        continue;
      }
      if (evictable(ctx_, gpu, n.slot)) return n.slot;
    }
    if (auto* n = first_evictable(slots_.list(gpu, kUsed), ctx_, gpu)) return n->slot;
    return sim::kNoVictim;
  }
  std::size_t upcoming_victims(int gpu, std::uint32_t (&out)[2]) const override {
    return first_two_slots(slots_.list(gpu, kUnused), slots_.list(gpu, kUsed), out);
  }

 private:
  static constexpr int kUnused = 0;
  static constexpr int kUsed = 1;
  sim::Bytes granularity_;
  bool unused_first_;
  ChunkSlots<2> slots_;
};

}  // namespace

UMSIM_REGISTER_POLICY(sim::EvictionPolicy, FifoEviction, "fifo",
                      "NVIDIA driver: evict 2 MiB root chunks in the order their blocks became resident "
                      "(chunks with no resident pages first)",
                      {{"unused_first", ParamType::kBool, "true",
                        "evict chunks whose block has no resident pages before used ones, as the driver"},
                       {"granularity", ParamType::kBytes, "2MiB",
                        "chunk size GPU memory is managed in: 4KiB, 64KiB or 2MiB (any power of two in between)"}});

}  // namespace umsim::policies
