// Example eviction policy (see docs/policies.md): ARC, the adaptive
// replacement cache (Megiddo and Modha, FAST 2003), on GPU chunks. It shows the
// richer eviction API:
//  - on_access sees the kernel of each resident hit: a chunk counts as used
//    again only when a later kernel touches it (a kernel streaming through a
//    2 MiB chunk hits it hundreds of times, which is one use, not a pattern);
//  - choose_victim_for knows the incoming chunk: ARC's tie rule prefers T1
//    when the incoming chunk was recently evicted from T2;
//  - on_chunk_evicted and on_chunk_freed differ: an evicted chunk is
//    remembered as a ghost (B1/B2) so that its return adapts the target size
//    of T1; a chunk whose allocation is freed is forgotten.
// T1 holds chunks used by one kernel since they arrived, T2 chunks used again;
// p is T1's target size. Ghosts live in flat per-allocation arrays (one entry
// per chunk-sized region and GPU), linked into intrusive lists: no hashing, no
// allocation per event.
#include <algorithm>
#include <cstdint>
#include <vector>

#include <boost/intrusive/list.hpp>

#include "policies/policy_kinds.h"

namespace umsim::policies::examples {
namespace {

namespace bi = boost::intrusive;

enum class Where : std::uint8_t { kNone, kT1, kT2, kB1, kB2 };

struct Entry : bi::list_base_hook<bi::link_mode<bi::normal_link>> {
  Where where = Where::kNone;
  std::uint32_t slot = 0;           // resident entries: the chunk slot
  sim::AllocSlot alloc = 0;         // resident entries: the chunk's allocation and region
  std::uint64_t region = 0;
  std::uint64_t kernel = kNoKernel; // resident entries: the kernel that last used the chunk
  static constexpr std::uint64_t kNoKernel = ~std::uint64_t{0};
};
using EntryList = bi::list<Entry, bi::constant_time_size<true>>;

class ArcEviction final : public sim::EvictionPolicy {
 public:
  explicit ArcEviction(const Params& p) : granularity_(p.get_bytes("granularity")) {
    if (granularity_ < 4096 || granularity_ > (2u << 20) || (granularity_ & (granularity_ - 1)))
      throw PolicyError("evict policy 'arc': granularity must be a power of two from 4KiB to 2MiB");
  }
  ~ArcEviction() override { clear_lists(); }

  sim::Bytes granularity() const override { return granularity_; }
  bool wants_access_callbacks() const override { return true; }

  void attach(const sim::EvictionContext& ctx) override {
    EvictionPolicy::attach(ctx);
    clear_lists();
    gpus_.assign(static_cast<std::size_t>(ctx.gpus), {});
    resident_.assign(static_cast<std::size_t>(ctx.gpus) * ctx.chunks_per_gpu, Entry{});
    for (std::size_t i = 0; i < resident_.size(); ++i) resident_[i].slot = static_cast<std::uint32_t>(i % ctx.chunks_per_gpu);
    pages_per_chunk_ = ctx.chunk_bytes / 4096;
  }
  void on_allocation_created(sim::AllocSlot alloc, std::uint64_t pages) override {
    if (ghosts_.size() <= alloc) ghosts_.resize(alloc + 1);
    const std::uint64_t regions = (pages + pages_per_chunk_ - 1) / pages_per_chunk_;
    ghosts_[alloc].assign(regions * gpus_.size(), Entry{});
  }
  void on_allocation_freed(sim::AllocSlot alloc) override {
    if (alloc >= ghosts_.size()) return;
    for (std::size_t i = 0; i < ghosts_[alloc].size(); ++i) unlink(static_cast<int>(i % gpus_.size()), ghosts_[alloc][i]);
    std::vector<Entry>().swap(ghosts_[alloc]);
  }

  void on_chunk_allocated(const sim::ChunkInfo& c, sim::Nanos) override {
    Gpu& g = gpus_[c.gpu];
    const double capacity = ctx_.chunks_per_gpu;
    Entry& ghost = ghost_of(c.gpu, c.alloc, c.first_page);
    Entry& e = resident(c.gpu, c.slot);
    e.alloc = c.alloc;
    e.region = c.first_page / pages_per_chunk_;
    e.kernel = Entry::kNoKernel;
    if (ghost.where == Where::kB1) {  // evicted too early from T1: grow T1's target
      g.p = std::min(capacity, g.p + std::max(1.0, double(g.b2.size()) / double(g.b1.size())));
      unlink(c.gpu, ghost);
      push(c.gpu, e, Where::kT2);
    } else if (ghost.where == Where::kB2) {  // evicted too early from T2: shrink it
      g.p = std::max(0.0, g.p - std::max(1.0, double(g.b1.size()) / double(g.b2.size())));
      unlink(c.gpu, ghost);
      push(c.gpu, e, Where::kT2);
    } else {
      push(c.gpu, e, Where::kT1);
    }
  }

  void on_access(const sim::ChunkAccess& a) override {
    Entry& e = resident(a.chunk.gpu, a.chunk.slot);
    if (e.where == Where::kNone || e.kernel == a.kernel) return;  // the same kernel's use goes on
    const bool first_use = e.kernel == Entry::kNoKernel;
    e.kernel = a.kernel;
    if (!first_use) push(a.chunk.gpu, e, Where::kT2);  // used again by a later kernel: frequent
  }

  std::uint32_t choose_victim_for(const sim::IncomingChunk& in, sim::Nanos) override {
    return replace(in.gpu, ghost_of(in.gpu, in.alloc, in.first_page).where == Where::kB2);
  }
  std::uint32_t choose_victim(int gpu, sim::Nanos) override { return replace(gpu, false); }

  void on_chunk_evicted(const sim::ChunkInfo& c, sim::Nanos) override {
    Entry& e = resident(c.gpu, c.slot);
    const Where was = e.where;
    unlink(c.gpu, e);
    if (was != Where::kT1 && was != Where::kT2) return;
    push(c.gpu, ghost_of(c.gpu, c.alloc, c.first_page), was == Where::kT1 ? Where::kB1 : Where::kB2);
    // Directory bounds: |T1| + |B1| <= c and |T1| + |T2| + |B1| + |B2| <= 2c.
    Gpu& g = gpus_[c.gpu];
    const std::size_t capacity = ctx_.chunks_per_gpu;
    while (g.t1.size() + g.b1.size() > capacity && !g.b1.empty()) unlink(c.gpu, g.b1.front());
    while (g.t1.size() + g.t2.size() + g.b1.size() + g.b2.size() > 2 * capacity)
      unlink(c.gpu, g.b2.empty() ? g.b1.front() : g.b2.front());
  }
  // The allocation is gone: nothing to remember.
  void on_chunk_freed(const sim::ChunkInfo& c) override { unlink(c.gpu, resident(c.gpu, c.slot)); }

 private:
  struct Gpu {
    EntryList t1, t2, b1, b2;
    double p = 0;  // target size of T1, in chunks
    Gpu() = default;
    Gpu(const Gpu&) {}  // only empty lists are copied (in assign)
    Gpu& operator=(const Gpu&) { return *this; }
  };

  // ARC's REPLACE: T1's least recently used chunk while T1 is above its target
  // (or at it, when the incoming chunk is a T2 ghost), else T2's.
  std::uint32_t replace(int gpu, bool incoming_in_b2) {
    Gpu& g = gpus_[gpu];
    const double t1 = static_cast<double>(g.t1.size());
    const bool from_t1 = !g.t1.empty() && (t1 > g.p || (incoming_in_b2 && t1 == g.p));
    for (EntryList* list : {from_t1 ? &g.t1 : &g.t2, from_t1 ? &g.t2 : &g.t1})
      for (Entry& e : *list)
        if (!ctx_.evictable || ctx_.evictable(gpu, e.slot)) return e.slot;
    return sim::kNoVictim;
  }

  Entry& resident(int gpu, std::uint32_t slot) {
    return resident_[static_cast<std::size_t>(gpu) * ctx_.chunks_per_gpu + slot];
  }
  // Managed allocations have ghosts; a device allocation taking memory has none (a blank entry stands in).
  Entry& ghost_of(int gpu, sim::AllocSlot alloc, std::uint64_t first_page) {
    const std::size_t i = (first_page / pages_per_chunk_) * gpus_.size() + static_cast<std::size_t>(gpu);
    if (alloc >= ghosts_.size() || i >= ghosts_[alloc].size()) return no_ghost_ = Entry{};
    return ghosts_[alloc][i];
  }
  EntryList& list(int gpu, Where w) {
    Gpu& g = gpus_[gpu];
    return w == Where::kT1 ? g.t1 : w == Where::kT2 ? g.t2 : w == Where::kB1 ? g.b1 : g.b2;
  }
  void unlink(int gpu, Entry& e) {
    if (e.where == Where::kNone) return;
    EntryList& l = list(gpu, e.where);
    l.erase(l.iterator_to(e));
    e.where = Where::kNone;
  }
  void push(int gpu, Entry& e, Where w) {  // to the most recent end
    unlink(gpu, e);
    list(gpu, w).push_back(e);
    e.where = w;
  }
  void clear_lists() {
    for (Gpu& g : gpus_) g.t1.clear(), g.t2.clear(), g.b1.clear(), g.b2.clear();
  }

  sim::Bytes granularity_;
  std::uint64_t pages_per_chunk_ = 512;
  std::vector<Gpu> gpus_;
  std::vector<Entry> resident_;             // (gpu, slot)
  std::vector<std::vector<Entry>> ghosts_;  // alloc -> (region, gpu)
  Entry no_ghost_;
};

}  // namespace

UMSIM_REGISTER_POLICY(sim::EvictionPolicy, ArcEviction, "arc",
                      "example: adaptive replacement cache (recency vs reuse across kernels, ghost lists adapt)",
                      {{"granularity", ParamType::kBytes, "2MiB", "chunk size, power of two from 4KiB to 2MiB"}});

}  // namespace umsim::policies::examples
