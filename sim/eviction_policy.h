// Eviction decision point. GPU memory is managed in chunks of granularity()
// bytes (2 MiB root chunks by default, as the NVIDIA driver). Each GPU has
// `chunks_per_gpu` physical chunk slots; policies keep flat arrays indexed by slot.
//
// Call timing:
//   on_chunk_allocated: a chunk slot was given to (alloc, first_page) on a GPU.
//   on_access:          a GPU access hit a resident page of the chunk (only if
//                       wants_access_callbacks(); resolved once at start-up), with
//                       the page, read/write/atomic, kernel and stream. The default
//                       calls on_chunk_accessed, the short form.
//   choose_victim_for:  the GPU needs a free chunk for `incoming` and has none;
//                       return an allocated slot for which ctx.evictable(gpu, slot)
//                       holds. The default calls choose_victim(gpu, now), for
//                       policies that need not know what comes in.
//   on_chunk_residency_changed: optional; the chunk's resident page count fell to
//                       zero (has_resident_pages = false) or rose from zero. The
//                       driver keeps such "unused" root chunks on a list evicted first.
//   on_chunk_evicted:   the slot was released because the policy chose it as a
//                       victim (its data was written back). Default: on_chunk_freed.
//   on_chunk_replaced:  a victim's slot was released and at once taken again for
//                       an incoming chunk (a full GPU hands the slot it frees to
//                       the chunk it was freed for). Default: on_chunk_evicted
//                       (evicted), then on_chunk_allocated (incoming); a policy
//                       may do both in one step. The slot already holds the
//                       incoming chunk when it is called (read the evicted
//                       chunk's owner from `evicted`, not from the context).
//   on_chunk_freed:     the slot was released because its allocation was freed
//                       (and, unless on_chunk_evicted is overridden, after eviction).
//   upcoming_victims:   optional hint, never binding: the slots choose_victim would
//                       return next, in order, so the engine can have their
//                       records in the cache before the next eviction needs them.
//   recency_order:      optional, asked once after attach: a policy whose whole
//                       response to a resident hit is to move the chunk, if listed,
//                       to the back of a SlotList it keeps per GPU (LRU) returns
//                       that list; the engine then moves the chunk itself, in line,
//                       and never calls on_access (a virtual call and its arguments
//                       per hit were a third of a hit's instructions).
//   eviction_order:     optional, asked once after attach: a policy whose whole
//                       chunk bookkeeping is one SlotList per GPU in eviction order
//                       (an allocated chunk leaves the list if it is in it and is
//                       appended; an evicted or freed one leaves it; the victim is
//                       the first listed slot that ctx.can_evict; upcoming_victims
//                       the list's first two) returns that list (LRU and the
//                       built-in FIFO do). The engine then keeps the list itself, in
//                       line, and calls none of on_chunk_allocated, on_chunk_evicted,
//                       on_chunk_freed, choose_victim(_for) or upcoming_victims
//                       (their virtual calls were a fifth of a fault's instructions).
//   preferred_victims:  optional, asked once after attach from a policy that gave an
//                       eviction_order: a second SlotList per GPU whose chunks are
//                       evicted before the order's (the NVIDIA driver's "unused"
//                       chunks, FIFO's). The policy moves chunks onto it and between
//                       the lists in on_chunk_residency_changed, which the engine
//                       still calls; the engine erases a chunk from it where it is
//                       allocated or released, and while it lists any chunk asks the
//                       policy for victims (choose_victim_for, upcoming_victims). A
//                       replay that never empties a chunk evicts without a call.
#pragma once

#include <functional>
#include <string_view>

#include "sim/gpu_memory.h"
#include "sim/policy_hooks.h"
#include "sim/slot_list.h"

namespace umsim::sim {

// Returned by choose_victim when no allocated slot is evictable.
inline constexpr std::uint32_t kNoVictim = 0xffffffffu;

struct ChunkInfo {
  int gpu = 0;
  std::uint32_t slot = 0;        // physical chunk index on the GPU
  AllocSlot alloc = 0;           // owner allocation
  std::uint64_t first_page = 0;  // first 4 KiB page (within the allocation) the chunk backs
};

// One GPU access that hit a resident page (on_access).
struct ChunkAccess {
  ChunkInfo chunk;
  std::uint32_t page_in_chunk = 0;         // the page is chunk.first_page + page_in_chunk of the allocation
  AccessType access = AccessType::kRead;   // read, write or atomic
  std::uint64_t kernel = 0;                // launch index of the accessing kernel (0: the trace's first)
  std::string_view kernel_name;            // as recorded in the trace (valid during the call)
  std::uint32_t stream = 0;                // the kernel's stream
  std::uint64_t access_seq = 0;            // the engine's access sequence number (see FutureOracle)
  Nanos now = 0;
};

// The chunk a victim is evicted for (choose_victim_for): managed data about to
// migrate to `gpu`, or a device allocation taking its memory.
struct IncomingChunk {
  int gpu = 0;
  AllocSlot alloc = 0;
  std::uint64_t first_page = 0;
};

// Offline knowledge for oracle policies (Belady MIN): built by the engine in a
// pre-pass over the trace when needs_future() is true.
class FutureOracle {
 public:
  virtual ~FutureOracle() = default;
  // Access sequence number of the next GPU access by `gpu` to the chunk-sized region
  // starting at (alloc, first_page) strictly after `after_seq`; UINT64_MAX if none.
  virtual std::uint64_t next_use(int gpu, AllocSlot alloc, std::uint64_t first_page,
                                 std::uint64_t after_seq) const = 0;
};

struct EvictionContext {
  int gpus = 1;
  std::uint32_t chunks_per_gpu = 0;
  Bytes chunk_bytes = kBlockSize;
  const FutureOracle* future = nullptr;  // set when needs_future()
  // Optional: the engine's current access sequence number (oracles query the future after it).
  const std::uint64_t* access_seq = nullptr;
  // Whether a slot may be evicted now (not pinned, not being filled).
  std::function<bool(int gpu, std::uint32_t slot)> evictable;
  // Resident pages of the chunk on its GPU (for policies that weigh victims by content).
  std::function<std::uint32_t(int gpu, std::uint32_t slot)> resident_pages;
  // The engine's chunk records per GPU (read only), set by the engine: can_evict
  // reads them in line instead of calling `evictable` per candidate victim.
  const GpuMemory* const* memory = nullptr;

  // `evictable` as a policy should ask it: every slot is evictable where neither
  // is set (hand-written tests).
  bool can_evict(int gpu, std::uint32_t slot) const {
    if (memory) return memory[gpu]->evictable(slot);
    return !evictable || evictable(gpu, slot);
  }
};

class EvictionPolicy : public PolicyHooks {
 public:
  // Chunk size the engine allocates GPU memory in; a power of two from 4 KiB to 2 MiB.
  virtual Bytes granularity() const { return kBlockSize; }
  virtual bool wants_access_callbacks() const { return false; }
  virtual bool needs_future() const { return false; }

  virtual void attach(const EvictionContext& ctx) { ctx_ = ctx; }
  virtual void on_chunk_allocated(const ChunkInfo& chunk, Nanos now) = 0;
  virtual void on_chunk_accessed(const ChunkInfo& /*chunk*/, std::uint64_t /*access_seq*/,
                                 Nanos /*now*/) {}
  virtual void on_access(const ChunkAccess& a) { on_chunk_accessed(a.chunk, a.access_seq, a.now); }
  virtual void on_chunk_residency_changed(const ChunkInfo& /*chunk*/, bool /*has_resident_pages*/,
                                          Nanos /*now*/) {}
  virtual void on_chunk_evicted(const ChunkInfo& chunk, Nanos /*now*/) { on_chunk_freed(chunk); }
  virtual void on_chunk_freed(const ChunkInfo& chunk) = 0;
  // `evicted.slot == incoming.slot`; see the call timing above.
  virtual void on_chunk_replaced(const ChunkInfo& evicted, const ChunkInfo& incoming, Nanos now) {
    on_chunk_evicted(evicted, now);
    on_chunk_allocated(incoming, now);
  }
  virtual std::uint32_t choose_victim(int gpu, Nanos now) = 0;
  virtual std::uint32_t choose_victim_for(const IncomingChunk& incoming, Nanos now) {
    return choose_victim(incoming.gpu, now);
  }
  // Fills `out` with up to two slots (the next victim first); returns how many.
  virtual std::size_t upcoming_victims(int /*gpu*/, std::uint32_t (&/*out*/)[2]) const { return 0; }
  // See recency_order above; null (the default): hits go to on_access.
  virtual SlotList* recency_order(int /*gpu*/) { return nullptr; }
  // See eviction_order above; null (the default): the engine calls the hooks.
  virtual SlotList* eviction_order(int /*gpu*/) { return nullptr; }
  // See preferred_victims above; null (the default): the order alone.
  virtual SlotList* preferred_victims(int /*gpu*/) { return nullptr; }

 protected:
  EvictionContext ctx_;
};

}  // namespace umsim::sim
