// A single-page GPU fault of the replay loop serviced in one pass, where
// faults are serviced one at a time (a batch of one, as under the `ideal`
// profile), the short path applies (no prefetch, thrashing or migration
// policy of its own), the eviction policy gave its order to the engine (LRU,
// FIFO) and chunks are 4 KiB: a cache simulation's every miss. The general
// path (single_page_fault, gpu_access_slow, service_single_fault,
// service_page, move_host_pages, chunk_for, evict_chunk, release_chunk) gives
// the same result through eight calls and the checks of cases that cannot
// arise here; this pass checks those cases first and changes nothing where
// one holds, so that the caller takes the general path (see lone_fault_ready).
#include <algorithm>

#include "sim/engine.h"
#include "sim/first_chunk_replacement.h"
#include "sim/page_mask_iteration.h"

namespace umsim::sim {

bool Engine::lone_faults_apply() const {
  return short_path_ && batch_limit_ <= 1 && vendor_.gpu_faults_migrate && pages_per_chunk_ == 1 &&
         eviction_order_[0] != nullptr;
}

bool Engine::lone_fault(const trace::Event& e, Allocation& a, AllocSlot slot, std::uint64_t page) {
  const int g = kernel_.gpu;
  const auto gi = static_cast<std::size_t>(g);
  PageState& st = a.pages[page];
  const ProcessorMask bit = kernel_bit_;
  std::uint32_t& chunk_slot = a.chunk_slot[gi][page];  // a chunk is a page
  GpuState& gpu = gpus_[gi];
  GpuMemory& mem = gpu.memory;
  SlotList& order = *eviction_order_[gi];
  // Unadvised, nowhere but in host memory (or nowhere yet), not mapped here,
  // no chunk of its own yet, the fault buffer empty; when memory is full, the
  // order's first chunk is the victim (choose_victim's first evictable one).
  const bool full = !mem.has_free();
  if (!a.managed() || (st.mapped & bit) || (st.flags & kInFaultBuffer) || st.advised() ||
      (st.copies != 0 && st.copies != kCpuBit) || chunk_slot != kNoSlot || fault_entries_ != 0 ||
      !fault_buffer_.empty() || !busy_chunks_.empty() || (full && !replaces_first_chunk(g)))
    return false;

  // single_page_fault and gpu_access_slow: the access (counted by the
  // caller), the fault, its entry.
  access_event_ = &e;
  ++st.accesses;
  ++kernel_counters_.gpu_faults;
  // The entry's fault-buffer flags (kInFaultBuffer, kFaultWrite) would be set
  // here and cleared below, with nothing reading them between: not stored (a
  // byte store makes the compiler reload every member after it).

  // service_single_fault: the batch of this one page.
  const Nanos batch_start = start_fault_batch(gpu);
  Nanos now = batch_start + profile_.fault_batch_ns;
  ++kernel_counters_.fault_batches;

  // try_service_short for one page.
  const std::uint64_t block = page / kPagesPerBlock;
  const auto i = static_cast<std::uint32_t>(page % kPagesPerBlock);
  BlockState& bs = a.blocks[block];
  const bool copied = st.copies != 0;
  const Processor requester = Processor::gpu(g);
  if (bs.throttle_until > now) now = bs.throttle_until;
  now += (copied ? profile_.fault_va_block_ns : profile_.populate_block_ns()) + profile_.fault_page_ns;
  ++kernel_counters_.gpu_fault_pages;
  if (bs.last_destination == requester.code) ++bs.fault_migrations;
  else bs.fault_migrations = 1, bs.last_destination = requester.code;
  const auto cleared =
      static_cast<std::uint8_t>(kInFaultBuffer | kFaultWrite | (bs.pin_until <= now ? kPinned : 0));
  if (profile_.fault_migrated_page_ns != 0 && copied) now += profile_.fault_migrated_page_ns;

  // move_host_pages and chunk_for: a chunk for the page, by evicting the
  // order's first where memory is full.
  Nanos t = now;
  const ProcessorMask gbit = processor_bit(requester);
  if (full) {
    chunk_slot = replace_first_page_chunk(g, slot, page, t);
  } else {
    chunk_slot = mem.take(slot, page, /*pinned=*/false);
    if (order.contains(chunk_slot)) order.erase(chunk_slot);
    order.push_back(chunk_slot);
  }
  PhysicalChunk& c = mem.chunk(chunk_slot);
  st.flags &= static_cast<std::uint8_t>(~cleared);
  if (!copied) a.mark_populated(page);
  st.copies = gbit;
  st.mapped = mappings_for(a, st);
  c.resident = 1;  // a fresh chunk: no residency change to report
  c.fresh = false;
  PageMask& resident = a.gpu_resident[gi][block];
  set_mask_word(resident, i / 64, mask_word(resident, i / 64) | std::uint64_t{1} << (i % 64));
  Nanos done = t;
  if (copied) {
    done = std::max(t, gpu.h2d.schedule(t, profile_.h2d.latency_ns + run_ns_h2d_[1]));
    kernel_counters_.bytes_h2d += kPageSize;
  } else if (const Nanos fill = profile_.zero_fill_ns(1); fill > 0) {
    done = std::max(done, t + fill);
  }
  kernel_.now = done;

  // service_single_fault's end: the fault engine is free, the page lands.
  gpu.fault_engine_free = kernel_.now;
  note_in_flight(bs, batch_start, kernel_.now, kernel_bit_);
  update_plain_hits();
  return true;
}

}  // namespace umsim::sim
