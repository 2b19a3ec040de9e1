// A single-page GPU fault serviced in one pass, where the short path applies
// (no prefetch, thrashing or migration policy of its own) and the eviction
// policy gave its order to the engine (LRU, FIFO). Two callers: the replay
// loop's miss where faults are serviced one at a time (a batch of one, as
// under the `ideal` profile: lone_fault, 4 KiB chunks: a cache simulation's
// every miss), and a batch's pages that are each the only faulted page of
// their VA block (scattered faults under a batching profile:
// service_lone_runs, 4 KiB or 2 MiB chunks; at 2 MiB the page's block may
// have its chunk already, holding other pages). The general path
// (single_page_fault, gpu_access_slow, service_single_fault or
// service_fault_batch, service_page, move_host_pages, chunk_for,
// evict_chunk, release_chunk) gives the same result through several calls
// and the checks of cases that cannot arise here; each caller checks those
// cases first and changes nothing where one holds, so that the general path
// takes the page.
#include <algorithm>

#include "sim/engine.h"
#include "sim/first_chunk_replacement.h"
#include "sim/page_mask_iteration.h"

namespace umsim::sim {

bool Engine::lone_pages_apply() const {
  // Its replacements read the order alone: not where the policy may list preferred victims.
  return short_path_ && (pages_per_chunk_ == 1 || pages_per_chunk_ == kPagesPerBlock) && eviction_order_[0] != nullptr &&
         preferred_victims_[0] == nullptr;
}

bool Engine::lone_faults_apply() const {
  return lone_pages_apply() && pages_per_chunk_ == 1 && batch_limit_ <= 1 && vendor_.gpu_faults_migrate;
}

bool Engine::lone_faults_costless() const {
  // Every sum of the path below adds zero: the batch's start and cost, the
  // page's service, its copies and zero-fill, the eviction. The copies are
  // still scheduled (their engines' timelines are state, a zero-length copy
  // still waits for a busy engine).
  const ShortServiceCosts& c = short_costs_;
  return gpus_.size() == 1 && c.one_page[0] == 0 && c.one_page[1] == 0 && c.copied_extra == 0 &&
         c.page_h2d == 0 && c.page_d2h == 0 && c.page_zero_fill == 0 && profile_.fault_batch_ns == 0 &&
         profile_.fault_wakeup_ns == 0 && profile_.fault_cold_start_ns == 0 && profile_.eviction_chunk_ns == 0;
}

// try_service_short and move_host_pages for the one faulted page of its
// block on the kernel's GPU `g`, from `now`; returns when the page has landed. The caller checked
// that the page is unadvised and nowhere but in host memory (or nowhere
// yet), that no chunk is held busy, that the kernel is open (counters() is
// kernel_counters_) and, where the page's region has no chunk
// (`chunk_slot`) and memory is full, found the order's first chunk to
// replace (`victim`). kBlockChunks: chunks are 2 MiB, and the region (the
// page's block) may have its chunk; at 4 KiB it has none.
template <bool kBlockChunks, bool kCostless>
[[gnu::always_inline]] inline Nanos Engine::service_page_in_one_pass(int g, Allocation& a, AllocSlot slot,
                                                                     std::uint64_t page, std::uint32_t& chunk_slot,
                                                                     PhysicalChunk* victim, Nanos now) {
  const auto gi = static_cast<std::size_t>(g);
  PageState& st = a.pages[page];
  GpuState& gpu = gpus_[gi];
  const std::uint64_t block = page / kPagesPerBlock;
  const auto i = static_cast<std::uint32_t>(page % kPagesPerBlock);
  BlockState& bs = a.blocks[block];
  const bool copied = st.copies != 0;
  const Processor requester = Processor::gpu(g);
  if (bs.throttle_until > now) now = bs.throttle_until;
  if constexpr (!kCostless) now += short_costs_.one_page[copied];
  ++kernel_counters_.gpu_fault_pages;
  if (bs.last_destination == requester.code) ++bs.fault_migrations;
  else bs.fault_migrations = 1, bs.last_destination = requester.code;
  const auto cleared =
      static_cast<std::uint8_t>(kInFaultBuffer | kFaultWrite | (bs.pin_until <= now ? kPinned : 0));
  if (!kCostless && copied) now += short_costs_.copied_extra;  // its migrated-page cost and its one run

  // A chunk for the page (chunk_for), by evicting the order's first where memory is full.
  Nanos t = now;
  const ProcessorMask gbit = processor_bit(requester);
  // The block's chunk, taken for another of its pages, is the one case that
  // is not fresh (just taken or retaken: nothing resident, no policy to tell).
  const bool shared = kBlockChunks && !victim && chunk_slot != kNoSlot;
  if (victim) {
    if constexpr (kBlockChunks) replace_block_chunk(g, *victim, slot, page, t, kernel_counters_);
    else replace_page_chunk<kCostless>(g, *victim, slot, page, t, kernel_counters_);
    chunk_slot = victim->slot;
  } else if (shared) {
    victim = &gpu.memory.chunk(chunk_slot);
  } else {
    SlotList& order = *eviction_order_[gi];
    chunk_slot = gpu.memory.take(slot, kBlockChunks ? block * kPagesPerBlock : page, /*pinned=*/false);
    if (order.contains(chunk_slot)) order.erase(chunk_slot);
    order.push_back(chunk_slot);
    victim = &gpu.memory.chunk(chunk_slot);
  }
  PhysicalChunk& c = *victim;
  st.flags &= static_cast<std::uint8_t>(~cleared);
  if (!copied) a.mark_populated(page);
  st.copies = gbit;
  st.mapped = static_cast<ProcessorMask>(gbit | a.always_mapped);  // mappings_for of an unadvised page
  if (!shared) {
    c.resident = 1;
  } else if (c.resident++ == 0 && !c.fresh) {
    // A chunk whose pages all left without its eviction has the policy told it holds some again.
    eviction_->on_chunk_residency_changed(ChunkInfo{g, chunk_slot, slot, c.first_page}, true, t);
  }
  c.fresh = false;
  PageMask& resident = a.gpu_resident[gi][block];
  set_mask_word(resident, i / 64, mask_word(resident, i / 64) | std::uint64_t{1} << (i % 64));
  Nanos done = t;
  if (copied) {
    done = std::max(t, gpu.h2d.schedule(copy_client_, t, kCostless ? 0 : short_costs_.page_h2d));
    kernel_counters_.bytes_h2d += kPageSize;
  } else if constexpr (!kCostless) {
    done = t + short_costs_.page_zero_fill;
  }
  return done;
}

bool Engine::lone_fault(const trace::Event& e, Allocation& a, AllocSlot slot, std::uint64_t page) {
  return lone_faults_costless_ ? lone_fault<true>(e, a, slot, page) : lone_fault<false>(e, a, slot, page);
}

template <bool kCostless>
[[gnu::always_inline]] inline bool Engine::lone_fault(const trace::Event& e, Allocation& a, AllocSlot slot,
                                                      std::uint64_t page) {
  const int g = kCostless ? 0 : kernel_.gpu;  // costless: the only GPU
  const auto gi = static_cast<std::size_t>(g);
  PageState& st = a.pages[page];
  std::uint32_t& chunk_slot = a.chunk_slot[gi][page];  // a chunk is a page
  GpuState& gpu = gpus_[gi];
  // Unadvised, nowhere but in host memory (or nowhere yet), not mapped here,
  // no chunk of its own yet, the fault buffer empty; when memory is full, the
  // order's first chunk is the victim (choose_victim's first evictable one).
  if (!a.managed() || (st.mapped & kernel_bit_) || (st.flags & kInFaultBuffer) || st.advised() ||
      (st.copies != 0 && st.copies != kCpuBit) || chunk_slot != kNoSlot || fault_entries_ != 0 ||
      !fault_buffer_.empty() || !busy_chunks_.empty())
    return false;
  PhysicalChunk* victim = nullptr;
  if (!gpu.memory.has_free() && !(victim = first_chunk_to_replace(g))) return false;

  // single_page_fault and gpu_access_slow: the access (counted by the
  // caller), the fault, its entry.
  access_event_ = &e;
  ++kernel_counters_.gpu_faults;
  // The entry's fault-buffer flags (kInFaultBuffer, kFaultWrite) would be set
  // here and cleared by the service, with nothing reading them between: not
  // stored (a byte store makes the compiler reload every member after it).

  // service_single_fault: the batch of this one page.
  const Nanos batch_start = start_fault_batch<kCostless>(gpu);
  ++kernel_counters_.fault_batches;
  kernel_.now = service_page_in_one_pass<false, kCostless>(g, a, slot, page, chunk_slot, victim,
                                                           batch_start + (kCostless ? 0 : profile_.fault_batch_ns));

  // service_single_fault's end: the fault engine is free, the page lands.
  fault_service_ran(gpu, batch_start);
  after_fault_copies();
  note_in_flight(a.blocks[page / kPagesPerBlock], batch_start, kernel_.now, kernel_bit_);
  update_plain_hits();
  return true;
}

std::size_t Engine::service_lone_runs(std::size_t r) {
  if (!kernel_.open || !busy_chunks_.empty()) return r;  // the pass counts into kernel_counters_, holds no chunk
  // With one GPU its index is a constant: the per-GPU vectors' elements are
  // found without an index held (and spilled) across the pass.
  if (gpus_.size() == 1)
    return pages_per_chunk_ == 1 ? service_lone_runs<false, true>(r) : service_lone_runs<true, true>(r);
  return pages_per_chunk_ == 1 ? service_lone_runs<false, false>(r) : service_lone_runs<true, false>(r);
}

template <bool kBlockChunks, bool kOneGpu>
std::size_t Engine::service_lone_runs(std::size_t r) {
  const int g = kOneGpu ? 0 : kernel_.gpu;
  const auto gi = static_cast<std::size_t>(g);
  const GpuMemory& mem = gpus_[gi].memory;
  // The batch's runs and entries stay put during the pass: read where they
  // are once, not again after every call that the compiler cannot see into.
  const FaultRun* const runs = fault_runs_.data();
  const std::size_t run_count = fault_runs_.size();
  const FaultEntry* const entries = fault_buffer_.data();
  for (; r < run_count; ++r) {
    const FaultRun& run = runs[r];
    if (run.end - run.begin != 1) break;
    const FaultEntry entry = entries[run.begin];
    const AllocSlot slot = entry.alloc();
    const std::uint64_t page = entry.page();
    Allocation& a = allocs_[slot];
    const PageState& st = a.pages[page];
    std::uint32_t& chunk_slot = a.chunk_slot[gi][kBlockChunks ? page / kPagesPerBlock : page];
    // try_service_short's page check, and chunk_for's cases that take the
    // page's chunk as service_page_in_one_pass does.
    if (st.advised() || (st.copies != 0 && st.copies != kCpuBit)) break;
    PhysicalChunk* victim = nullptr;
    if (chunk_slot != kNoSlot) {
      if (!kBlockChunks) break;  // a 4 KiB chunk of a page not on the GPU
    } else if (!mem.has_free() && !(victim = first_chunk_to_replace(g))) {
      break;
    }
    kernel_.now = service_page_in_one_pass<kBlockChunks>(g, a, slot, page, chunk_slot, victim, kernel_.now);
  }
  return r;
}

}  // namespace umsim::sim
