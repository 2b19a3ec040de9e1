// The GPU access hot path: a page-resident hit is one load, a bit test and a
// counter update; everything else (remote mappings, faults) leaves the loop.
#include <fmt/format.h>

#include "sim/engine.h"
#include "sim/lane_sweep.h"
#include "sim/single_page_pass.h"
#include "traces/checked_math.h"

namespace umsim::sim {

namespace {
constexpr unsigned kPageShift = 12;  // log2(kPageSize)
static_assert(kPageSize == std::uint64_t{1} << kPageShift);
// Touches of a range access replayed per part while other streams run beside
// its kernel (a lane step at the calibrated 32 lanes).
constexpr std::uint64_t kPartTouches = 32;

// Access units a single-page touch covers beyond its first (none where the
// unit is a page or more: both ends lie in one unit then).
std::uint64_t units_within_page(const trace::Event& e, unsigned unit_shift) {
  return ((e.offset + e.length - 1) >> unit_shift) - (e.offset >> unit_shift);
}

// How far ahead the hit loop asks for the events (12 KiB): a trace held in
// memory streams from DRAM, and left to the hardware prefetcher its reads
// cost the resident-hits replay 40% of its speed on the build VM (64 to 256
// events ahead ran within a few percent of one another, 32 a fifth slower).
constexpr std::uint64_t kEventsAhead = 256;

// What a run of settled hits to one allocation reads (replay_accesses' loop
// invariants).
struct SettledHits {
  trace::NameId name;
  PageState* pages;
  Bytes size;
  ProcessorMask bit;       // the kernel's GPU
  unsigned unit_shift;     // log2(gpu.access_unit)
  SlotList* order;         // the recency list (with kRecency)
  const std::uint32_t* chunk_slots;
  unsigned chunk_shift;
};

// A run of hits: how many, and the access units they touched.
struct HitRun {
  std::uint64_t hits;
  std::uint64_t units;
};

// Replays the single-page hits to `hits`' allocation from `first` on, up to
// `end`, stopping at the first event that is not one: replay_accesses' hit
// case without its look-ahead, its other cases and its counters, in a loop of
// its own (its invariants in registers, which the whole loop spills).
template <bool kRecency>
[[gnu::noinline]] HitRun replay_settled_hits(const trace::Event* const first, const trace::Event* const end,
                                             const SettledHits& hits) {
  const SettledHits h = hits;  // in registers: a page record's store may alias any memory
  std::uint64_t more_units = 0;  // beyond one a hit
  const trace::Event* e = first;
  for (; e != end; ++e) {
    prefetch_element(e, kEventsAhead);
    if (e->kind != trace::EventKind::kGpuAccess || e->name != h.name || !is_single_page_pass(*e, h.size)) break;
    const std::uint64_t page = e->offset / kPageSize;
    PageState& st = h.pages[page];
    if (e->op == static_cast<std::uint8_t>(trace::AccessType::kRead)) {
      if (!(st.copies & h.bit)) break;
    } else {
      if (st.copies != h.bit) break;
      st.flags |= kDirty;
    }
    more_units += units_within_page(*e, h.unit_shift);
    if constexpr (kRecency) h.order->move_to_back_if_listed(h.chunk_slots[page >> h.chunk_shift]);
  }
  const auto n = static_cast<std::uint64_t>(e - first);
  return {n, n + more_units};
}
}  // namespace

using trace::AccessType;
using trace::Event;
using trace::EventKind;

void Engine::gpu_access(const Event& e) {
  // Fast path: one pass over one page (the common case of page-granular
  // traces): no loops, no lambdas.
  AllocSlot slot;
  std::uint64_t page;
  Allocation* a = single_page_of(e, slot, page);
  if (!a) [[unlikely]]
    return gpu_access_general(e);
  if (!hit_here(*a, page, e)) return single_page_fault(e, *a, slot, page);
  if (plain_hits_) [[likely]]
    return;
  wait_for_landing(a->blocks[page / kPagesPerBlock]);
  if (eviction_access_callbacks_) chunk_accessed(slot, *a, page, e.access());
  update_plain_hits();
}

void Engine::replay_accesses(std::span<const Event> batch, std::size_t& i) {
  const std::size_t n = batch.size();
  const Event* const events = batch.data();
  bool ahead = look_ahead();
  while (i < n && events[i].kind == EventKind::kGpuAccess) {
    const Event& first = events[i];
    const AllocSlot slot = first.name < slot_of_name_.size() ? slot_of_name_[first.name] : kNoSlot;
    if (!(plain_hits_ || recency_hits_) || !kernel_.open || slot == kNoSlot) {
      // Data in flight, per-hit callbacks or a name without an allocation: the general path.
      if (ahead && i + kLookahead < n) prefetch_metadata(events[i + kLookahead]);
      kernel_access(first);
      ++i;
      continue;
    }
    // Settled (settled_single_page_access's case): single-page accesses to this
    // allocation are hits, with their recency move, or misses handed to the
    // fault path, here without a call per access.
    Allocation& a = allocs_[slot];
    const trace::NameId name = first.name;
    PageState* const pages = a.pages.data();
    const Bytes size = a.size;
    const std::uint64_t page_count = a.page_count;
    const ProcessorMask bit = kernel_bit_;
    const auto gpu = static_cast<std::size_t>(kernel_.gpu);
    const std::uint32_t* const chunk_slots =
        gpu < a.chunk_slot.size() && !a.chunk_slot[gpu].empty() ? a.chunk_slot[gpu].data() : nullptr;
    const bool recency = recency_hits_;
    const bool lone = lone_faults_;
    // Faults that only join the open batch (gpu_access_slow's common case
    // where faults are batched): queued here, without its calls and checks.
    const bool queue = batch_limit_ > 1 && a.managed() && vendor_.gpu_faults_migrate;
    SlotList* const order = recency && a.managed() && chunk_slots ? recency_[gpu] : nullptr;
    const unsigned chunk_shift = chunk_shift_, unit_shift = access_unit_shift_;
    std::uint64_t seq = access_seq_, units = kernel_.touched_units;
    auto units_of = [unit_shift](const Event& e) -> std::uint64_t {
      return unit_shift >= kPageShift ? 1 : units_within_page(e, unit_shift) + 1;
    };
    // The loop's own index (i is a reference: a store per access otherwise),
    // given back to i at every exit and before any call that may throw.
    std::size_t k = i;
    // Why the loop below stopped at events[k] (if it did).
    enum class Stop { kEnd, kOtherAllocation, kChanged } stop = Stop::kEnd;
    // The loop looks ahead while k < ahead_end.
    auto look_ahead_end = [&] { return ahead && n > kLookahead ? n - kLookahead : 0; };
    std::size_t ahead_end = look_ahead_end();
    // Where no look-ahead is due, the hits up to the first other event go in a
    // loop of their own (a call here, not in the loop below: there it cost the
    // fault-heavy replays a dozen instructions an access in spills).
    if (k >= ahead_end) {
      const SettledHits hits{name, pages, size, bit, unit_shift, order, chunk_slots, chunk_shift};
      const HitRun run = order ? replay_settled_hits<true>(events + k, events + n, hits)
                               : replay_settled_hits<false>(events + k, events + n, hits);
      seq += run.hits;
      units += run.units;
      k += run.hits;
    }
    // Replays events[k] through the general path (a range, a strided or
    // read-modify-write access, or a miss) with the counters stored; false
    // when hits need more (or other) work since: the loop stops after it.
    auto replay_here = [&](auto&& replay) {
      i = k;
      access_seq_ = seq;
      kernel_.touched_units = units;
      replay();
      seq = access_seq_;
      units = kernel_.touched_units;
      ahead = look_ahead();  // a fault batch serviced may have changed it
      ahead_end = look_ahead_end();
      // The allocation's arrays stay where they are; the loop goes on unless
      // hits now need more (or other) work.
      return (plain_hits_ || recency_hits_) && recency_hits_ == recency;
    };
    for (; k < n; ++k) {
      const Event& e = events[k];
      if (k < ahead_end) {  // prefetch_metadata, with this allocation's lookups at hand
        const Event& later = events[k + kLookahead];
        if (later.name != name) {
          prefetch_metadata(later);
        } else {  // unchecked (prefetch_element): a page past the allocation, or no chunk slots, only wastes the hints
          const std::uint64_t p = later.offset / kPageSize;
          prefetch_element(pages, p);
          prefetch_element(chunk_slots, p >> chunk_shift);
        }
        // Halfway there, the chunk slot asked for above has arrived: its
        // recency links are asked for in turn (a hit relinks them).
        const Event& nearer = events[k + kLookahead / 2];
        if (order && nearer.name == name) {
          if (const std::uint64_t p = nearer.offset / kPageSize; p < page_count) {
            order->prefetch(chunk_slots[p >> chunk_shift]);  // kNoSlot wastes the hint
          }
        }
      }
      if (e.kind != EventKind::kGpuAccess) break;
      if (e.name != name) {
        stop = Stop::kOtherAllocation;
        break;
      }
      if (!is_single_page_pass(e, size)) {
        // A range (longer than a page: its resident hits in tight passes, else
        // gpu_access's general path, where kernel_access would arrive after
        // two single-page checks), or the rare rest through kernel_access.
        if (e.length > kPageSize && e.op != static_cast<std::uint8_t>(AccessType::kReadModifyWrite) &&
            e.offset <= size && e.length <= size - e.offset && resident_range_hits(e, pages, seq, units))
          continue;
        const bool more = e.length > kPageSize && e.op != static_cast<std::uint8_t>(AccessType::kReadModifyWrite)
                              ? replay_here([&] { gpu_access_general(e); })
                              : replay_here([&] { kernel_access(e); });
        if (more) continue;
        ++k;
        stop = Stop::kChanged;
        break;
      }
      const std::uint64_t page = e.offset / kPageSize;
      PageState& st = pages[page];
      const bool write = e.op != static_cast<std::uint8_t>(AccessType::kRead);
      if (!(st.copies & bit) || (write && st.copies != bit)) [[unlikely]] {
        // Not mapped here (no remote access, no read-duplicated copy) and not
        // queued already (no coalescing): a new entry, which does not fill the
        // batch (servicing it is the general path's).
        if (queue && !(st.mapped & bit) && !(st.flags & kInFaultBuffer) && fault_entries_ + 1 < batch_limit_ &&
            e.op != static_cast<std::uint8_t>(AccessType::kReadModifyWrite)) {
          ++seq;
          units += units_of(e);
          access_event_ = &e;
          ++kernel_counters_.gpu_faults;
          kernel_.write_faulted |= write;
          st.flags |= static_cast<std::uint8_t>(kInFaultBuffer | (write ? kFaultWrite : 0));
          fault_buffer_.push_back({(std::uint64_t{slot} << 40) | page});
          ++fault_entries_;
          continue;
        }
        // A cache simulation's miss, in one pass (lone_fault.cc), else the general path.
        if (lone && e.op != static_cast<std::uint8_t>(AccessType::kReadModifyWrite)) {
          i = k;
          if (lone_fault(e, a, slot, page)) {
            ++seq;
            units += units_of(e);
            continue;
          }
        }
        const bool more = e.op == static_cast<std::uint8_t>(AccessType::kReadModifyWrite)
                              ? replay_here([&] { read_modify_write(e); })
                              : replay_here([&] { single_page_fault(e, a, slot, page); });
        if (more) continue;
        ++k;
        stop = Stop::kChanged;
        break;
      }
      ++seq;
      if (write) st.flags |= kDirty;  // a read stores nothing: its record's cache line stays clean
      units += units_of(e);
      if (order) order->move_to_back_if_listed(chunk_slots[page >> chunk_shift]);  // kNoSlot is not listed
    }
    i = k;
    if (stop == Stop::kChanged) continue;  // the counters are stored; the state may have changed
    access_seq_ = seq;
    kernel_.touched_units = units;
  }
}

void Engine::single_page_fault(const Event& e, Allocation& a, AllocSlot slot, std::uint64_t page) {
  count_single_page_access(e);
  access_event_ = &e;
  gpu_access_slow(a, slot, page, e.access());
  update_plain_hits();
}

bool Engine::try_callback_hit(const Event& e) {
  if (latest_ready_ > kernel_.now) return false;  // in-flight data: the full path waits for it
  AllocSlot slot;
  std::uint64_t page;
  Allocation* a = single_page_of(e, slot, page);
  if (!a || !hit_here(*a, page, e)) return false;
  chunk_accessed(slot, *a, page, e.access());
  return true;
}

// A contiguous range whose every page is a resident hit, with no data in
// flight and no eviction callbacks (resident range records): its touches
// change nothing but counters and dirty bits, so the order of the lanes does
// not matter and the pages are counted in tight passes. Not beside other
// streams (a cursor): there its touches go in parts, so that they wait while
// the GPU services another kernel's faults (stream_scheduler.cc). Hot: kept
// in .text.hot, so its loops' placement no longer moves with the fault
// service's code (range records lost 8% to a shift of that code alone).
[[gnu::hot]] bool Engine::resident_range_hits(const Event& e, PageState* pages, std::uint64_t& seq, std::uint64_t& units) {
  if (e.stride > kPageSize || latest_ready_ > kernel_.now || eviction_access_callbacks_ || range_cursor_) return false;
  const bool write = e.op != static_cast<std::uint8_t>(AccessType::kRead);
  const ProcessorMask bit = kernel_bit_;
  const std::uint64_t first = e.offset / kPageSize;
  const std::uint64_t n = (e.offset + e.length - 1) / kPageSize - first + 1;
  // Reduced over the whole range without a branch per page: a read hits
  // where every page holds a copy here, a write where each is the sole copy.
  PageState* const range = pages + first;
  if (write) {
    ProcessorMask other = 0;
#pragma GCC unroll 4
    for (std::uint64_t i = 0; i < n; ++i) other |= static_cast<ProcessorMask>(range[i].copies ^ bit);
    if (other != 0) return false;
#pragma GCC unroll 4
    for (std::uint64_t i = 0; i < n; ++i) range[i].flags |= kDirty;
  } else {
    ProcessorMask common = bit;
#pragma GCC unroll 4
    for (std::uint64_t i = 0; i < n; ++i) common &= range[i].copies;
    if (common == 0) return false;
  }
  const std::uint64_t count = e.count ? e.count : 1;
  access_event_ = &e;
  seq += n * count;
  units += units_per_pass(e) * count;
  return true;
}

void Engine::gpu_range_access(const Event& e) {
  if (kernel_.open && e.name < slot_of_name_.size()) {
    if (const AllocSlot slot = slot_of_name_[e.name]; slot != kNoSlot) {
      Allocation& a = allocs_[slot];
      if (e.offset <= a.size && e.length <= a.size - e.offset &&
          resident_range_hits(e, a.pages.data(), access_seq_, kernel_.touched_units)) {
        update_plain_hits();
        return;
      }
    }
  }
  gpu_access_general(e);
}

void Engine::gpu_access_general(const Event& e) {
  if (!kernel_.open) throw SimulationError("GPU access outside a kernel");
  const AllocSlot slot = slot_of(e.name);
  if (slot == kNoSlot) [[unlikely]]
    throw SimulationError(fmt::format("GPU access to '{}', which is not allocated", names_->name(e.name)));
  Allocation& a = allocs_[slot];
  if (e.offset > a.size || e.length > a.size - e.offset || e.length == 0) [[unlikely]]
    check_range(a, e);  // throws: zero length (as `trace check` reports) or outside the allocation
  const AccessType type = e.access();
  const bool write = type != AccessType::kRead;
  const ProcessorMask bit = kernel_bit_;
  const std::uint8_t dirty = write ? kDirty : 0;
  PageState* const pages = a.pages.data();
  const std::uint64_t count = e.count ? e.count : 1;
  access_event_ = &e;

  // Extra work on hits only while a migration is still in flight or the
  // eviction policy asked for access callbacks.
  auto hit_extra = [&](std::uint64_t p) {
    wait_for_landing(a.blocks[p / kPagesPerBlock]);
    if (eviction_access_callbacks_) chunk_accessed(slot, a, p, type);
  };
  auto visit = [&](std::uint64_t p) {
    ++access_seq_;
    PageState& st = pages[p];
    const ProcessorMask cp = st.copies;
    if ((cp & bit) && (!write || cp == bit)) [[likely]] {
      st.flags |= dirty;
      if (latest_ready_ > kernel_.now || eviction_access_callbacks_) [[unlikely]]
        hit_extra(p);
    } else {
      gpu_access_slow(a, slot, p, type);
    }
  };

  // The range's touches, numbered 0..n-1: page first + i, or the page of
  // offset + i * stride.
  const bool contiguous = e.stride <= kPageSize;
  const std::uint64_t first = e.offset / kPageSize;
  const std::uint64_t n = contiguous ? (e.offset + e.length - 1) / kPageSize - first + 1
                                     : ceil_div(e.length, e.stride);
  auto page_of = [&](std::uint64_t i) { return contiguous ? first + i : (e.offset + i * e.stride) / kPageSize; };
  // A contiguous range whose every page is a resident hit, with no data in
  // flight and no eviction callbacks (resident range records): its touches
  // change nothing but counters and dirty bits, so the order of the lanes does
  // not matter and the pages are counted in tight passes. Not beside other
  // streams (a cursor): there its touches go in parts, so that they wait while
  // the GPU services another kernel's faults (stream_scheduler.cc).
  if (resident_range_hits(e, pages, access_seq_, kernel_.touched_units)) {
    update_plain_hits();
    return;
  }
  RangeCursor* const cursor = range_cursor_;
  // Interleaved slices (the kernel's lanes: profile gpu.access_lanes) of
  // windows of gpu.access_window touches: step k visits the k-th touch of
  // every slice of the window; one lane is the plain sweep.
  const LaneSweep sweep(n, kernel_.lanes, kernel_.window);
  const std::uint64_t steps = sweep.steps();
  auto visit_touch = [&](std::uint64_t i) { visit(page_of(i)); };
  if (cursor && !cursor->whole) {
    // One part: whole lane steps, at least kPartTouches touches, then back to the scheduler.
    std::uint64_t touches = 0;
    while (cursor->pass < count && touches < kPartTouches) {
      touches += sweep.step(cursor->step, visit_touch);
      if (++cursor->step == steps) cursor->step = 0, ++cursor->pass;
    }
    if (cursor->pass < count) {
      cursor->more = true;
      update_plain_hits();
      return;
    }
  } else {
    // The whole range, or the rest of one the parts left.
    std::uint64_t pass = cursor ? cursor->pass : 0, step = cursor ? cursor->step : 0;
    for (; pass < count; ++pass, step = 0) {
      if (kernel_.lanes <= 1) {
        for (std::uint64_t i = step; i < n; ++i) visit(page_of(i));
        continue;
      }
      for (std::uint64_t k = step; k < steps; ++k) sweep.step(k, visit_touch);
    }
  }
  // Counted once the touches are done: a fault service in the middle of this
  // range charges remote placements the mean touch of what came before.
  kernel_.touched_units += trace::touched_units_per_pass(e, profile_.gpu_access_unit) * count;
  update_plain_hits();
}

void Engine::gpu_access_slow(Allocation& a, AllocSlot slot, std::uint64_t page, AccessType type) {
  PageState& st = a.pages[page];
  const ProcessorMask bit = kernel_bit_;
  const bool write = type != AccessType::kRead;
  // Read before another GPU took the page (note_served_pages).
  if (std::unordered_set<std::uint64_t>& served = gpus_[static_cast<std::size_t>(kernel_.gpu)].served;
      !served.empty() && served.erase((std::uint64_t{slot} << 40) | page))
    return;
  // A remote mapping serves the access, unless it writes a read-duplicated page.
  if ((st.mapped & bit) && !(st.copies & bit) && !(write && popcount16(st.copies) > 1)) {
    remote_access(a, slot, page, type);
    return;
  }
  if (!a.managed())
    throw SimulationError(fmt::format("gpu{} accesses {} allocation '{}' which it cannot map (no peer access)",
                                      kernel_.gpu, trace::to_string(a.kind), a.name));
  if (!vendor_.gpu_faults_migrate)  // only system memory reaches here with XNACK off
    throw SimulationError(fmt::format(
        "gpu{} touches system allocation '{}' (malloc / new) under {}: with XNACK off a GPU page fault is fatal, "
        "so the real program stops with a memory access fault (run with HSA_XNACK=1 on an XNACK-capable GPU, or "
        "allocate it with hipMallocManaged / hipHostMalloc, or register it with hipHostRegister)",
        kernel_.gpu, a.name, vendor_.name));
  ++kernel_counters_.gpu_faults;
  kernel_.write_faulted |= write;
  // The flag is per page; while another GPU has an open batch it may be that GPU's entry.
  if ((st.flags & kInFaultBuffer) && (parked_fault_entries_ == 0 || queued_here((std::uint64_t{slot} << 40) | page))) {
    if (write) st.flags |= kFaultWrite;  // duplicate entry: coalesced, access type upgraded
  } else {
    st.flags |= static_cast<std::uint8_t>(kInFaultBuffer | (write ? kFaultWrite : 0));
    // Faults serviced one at a time (a batch of one, the ideal profile's): the
    // batch this entry would start and end at once, without the buffer.
    if (batch_limit_ <= 1 && fault_entries_ == 0 && fault_buffer_.empty()) return service_single_fault(slot, page);
    fault_buffer_.push_back({(std::uint64_t{slot} << 40) | page});
  }
  if (++fault_entries_ >= batch_limit_) service_fault_batch();
}

void Engine::remote_access(Allocation& a, AllocSlot slot, std::uint64_t page, AccessType type) {
  PageState& st = a.pages[page];
  ++kernel_counters_.remote_accesses;
  // The touch's own bytes cross the link, in the remote transaction unit.
  const trace::PageTouch touch = trace::page_touch(*access_event_, page);
  const Bytes remote_bytes = trace::touched_units(touch, profile_.remote_access_unit) * profile_.remote_access_unit;
  kernel_.remote_touched_units += trace::touched_units(touch, profile_.gpu_access_unit);
  if (st.copies & kCpuBit) {
    kernel_.remote_host_bytes += remote_bytes;
    // Loads wait for their data (a request in flight each); stores are posted.
    if (type == AccessType::kWrite)
      kernel_.remote_host_write_bytes += remote_bytes;
    else
      kernel_.remote_host_requests += trace::touched_units(touch, profile_.remote_request_unit);
  } else {
    kernel_.remote_peer_bytes += remote_bytes;
  }
  if (type != AccessType::kRead) st.flags |= kDirty;
  if (!remote_access_callbacks_ || !a.managed()) return;
  std::uint64_t first = page, n = 1;
  const Processor requester = Processor::gpu(kernel_.gpu);
  if (!migration_->on_remote_access(RemoteAccess{requester, slot, page, type, kernel_.now}, first, n)) return;
  if (first > page || first >= a.page_count) first = page;
  n = std::min(n, a.page_count - first);
  // Access-counter-driven migration of the region to the requester.
  for (std::uint64_t p = first; p < first + n;) {
    const std::uint64_t block = p / kPagesPerBlock;
    const std::uint64_t block_end = std::min(first + n, (block + 1) * kPagesPerBlock);
    PageMask mask;
    Processor from = Processor::none();
    for (std::uint64_t q = p; q < block_end; ++q) {
      const PageState& s = a.pages[q];
      if (s.copies == 0 || (s.copies & kernel_bit_)) continue;
      if (from.is_none()) from = first_processor(s.copies);
      mask.set(q - block * kPagesPerBlock);
    }
    if (mask.any()) {
      Nanos t = std::max(kernel_.now, gpus_[static_cast<std::size_t>(kernel_.gpu)].fault_engine_free);
      t = move_pages(slot, block, mask, requester, false, t);
      kernel_.now = t;
      after_fault_copies();  // the driver's own migration, as a batch's
      notify_thrashing(slot, block, mask, from, requester, MigrationCause::kAccessCounter, requester, kernel_.now);
    }
    p = block_end;
  }
}

void Engine::chunk_accessed(AllocSlot slot, const Allocation& a, std::uint64_t page, AccessType type) {
  if (recency_touch_) return touch_recency(a, page);
  if (!a.managed()) return;
  const std::uint32_t s = a.chunk_slot[static_cast<std::size_t>(kernel_.gpu)][page >> chunk_shift_];
  if (s == kNoSlot) return;
  const std::uint64_t first = (page >> chunk_shift_) << chunk_shift_;
  eviction_->on_access(ChunkAccess{ChunkInfo{kernel_.gpu, s, slot, first}, static_cast<std::uint32_t>(page - first),
                                   type, kernel_.launch, kernel_.name, kernel_.stream, access_seq_,
                                   kernel_.now});
}

}  // namespace umsim::sim
