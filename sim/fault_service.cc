// GPU fault servicing, as the NVIDIA driver does it: a batch of fault-buffer
// entries is sorted, coalesced per page and serviced one VA block at a time;
// per block the destination is decided (hint-aware driver default, then the
// migration policy), the prefetch policy adds pages, pages move, and the
// thrashing policy sees the migration. The kernel stalls meanwhile.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "sim/engine.h"
#include "sim/page_runs.h"
#include "sim/page_mask_iteration.h"
#include "sim/radix_sort_by_key.h"

namespace umsim::sim {

using trace::AccessType;

namespace {
// Fault keys are alloc << 40 | page; block keys drop the page-in-block bits:
// alloc << 31 | block.
constexpr std::uint32_t kBlockKeyShift = 9;  // log2(kPagesPerBlock)
constexpr std::uint32_t kAllocShift = 40 - kBlockKeyShift;
constexpr std::uint64_t kBlockMask = (std::uint64_t{1} << kAllocShift) - 1;
// Blocks with up to this many faulted pages try the short path
// (sim/short_fault_service.cc); more pages go to service_block's masks.
constexpr std::uint32_t kShortPathPages = 16;
// Up to this many, the short path's pages are put in order by rank (service_fault_batch).
constexpr std::uint32_t kRankedPages = 4;
}  // namespace

bool Engine::accessible(Processor requester, Processor location) const {
  if (requester == location) return true;
  if (requester.is_gpu()) return location.is_cpu() || peers_enabled(requester.gpu_index(), location.gpu_index());
  return false;  // x86 CPUs cannot map GPU memory
}

// The driver sorts a batch by address and services it one VA block at a time.
// Entries arrive in runs within one block (a tile's or a warp's pages): a
// batch whose runs are already in block order is not sorted; otherwise the
// entries are sorted by block (scattered faults: plain 64-bit keys sort faster
// than runs), which puts each block's pages in one run. A block's service does
// not depend on the order of its pages in the run (the short path sorts them,
// service_block takes a mask), so the sort leaves the page bits out. A sort in
// one pass (a full batch over a few hundred blocks of one allocation) gives
// the runs too (radix_group_by_key).
void Engine::group_faults() {
  const auto n = static_cast<std::uint32_t>(fault_buffer_.size());
  for (std::uint32_t e = 1; e < n; ++e)
    if ((fault_buffer_[e].key >> kBlockKeyShift) < (fault_buffer_[e - 1].key >> kBlockKeyShift)) {
      if (radix_group_by_key(fault_buffer_, fault_sort_scratch_, kBlockKeyShift, fault_runs_)) return;
      break;  // sorted: the runs are found below
    }
  fault_runs_.clear();
  for (std::uint32_t begin = 0; begin < n;) {
    const std::uint64_t block_key = fault_buffer_[begin].key >> kBlockKeyShift;
    std::uint32_t end = begin + 1;
    while (end < n && (fault_buffer_[end].key >> kBlockKeyShift) == block_key) ++end;
    fault_runs_.push_back({block_key, begin, end});
    begin = end;
  }
}

// A serviced block's pages are there for everyone once the batch is done: a
// kernel of another stream that hits them before (it started beside the one
// that faulted) waits for the service, as it waits for a prefetch.
void Engine::mark_ready(AllocSlot slot, std::uint64_t block, Nanos start) {
  note_in_flight(allocs_[slot].blocks[block], start, kernel_.now, kernel_bit_);
}

// The fault copies took part of the links beside transfers: a stream whose
// transfers there end after such a stretch finishes later by as much (on a
// stream pending on several links, by the most).
void Engine::slow_streams_beside_faults() {
  link_slowdowns_ = 0;
  bool any = false;
  for (GpuState& g : gpus_)
    for (SharedLink* link : {&g.h2d, &g.d2h, &g.peer_in}) {
      const std::vector<LinkSlowdown>& slowed = link->take_slowdowns();
      if (slowed.empty()) continue;
      if (!any) slowed_ready_ = stream_ready_, any = true;
      for (std::uint32_t s = 0; s < stream_ready_.size(); ++s) {
        if (!link->pending(s, slowed.front().from)) continue;
        Nanos t = stream_ready_[s];
        for (const LinkSlowdown& d : slowed) t = d.later(t);
        slowed_ready_[s] = std::max(slowed_ready_[s], t);
      }
      if (last_prefetch_done_)
        for (const LinkSlowdown& d : slowed) last_prefetch_done_ = d.later(*last_prefetch_done_);
    }
  if (any) stream_ready_.swap(slowed_ready_);
}

// On the hardware a kernel puts its accesses in flight together (a warp per
// page in the backend's touch kernels), so the warp that needs a page runs as
// soon as the page arrives, before another GPU's service can take it away. The
// model's kernels sweep their ranges in order: without this, two GPUs reaching
// the same pages pull them back and forth, where on the hardware each page
// moves once and the other GPU's warps have read it already. A page taken from
// a GPU whose kernels run is therefore noted as served there: their later
// touch of it is counted as done, not faulted back.
void Engine::note_served_pages(AllocSlot slot, std::uint64_t block, const PageMask& taken) {
  const Allocation& a = allocs_[slot];
  const std::uint64_t base = block * kPagesPerBlock;
  const ProcessorMask requester = kernel_bit_;
  for (std::size_t g = 0; g < gpus_.size(); ++g) {
    GpuState& gpu = gpus_[g];
    const ProcessorMask bit = processor_bit(Processor::gpu(static_cast<int>(g)));
    if (bit == requester || gpu.kernels_running == 0) continue;
    for_each_page(taken, [&](std::uint32_t i) {
      if (a.pages[base + i].copies & bit) gpu.served.insert((std::uint64_t{slot} << 40) | (base + i));
    });
  }
}

// A fault servicer that idled has cooled (never used: cold): on the hardware
// the first fault after an idle stretch is slower, the more the longer the stretch, and
// the next few are still slower than steady ones: a batch leaves a share of
// its coldness (faults.cold_start_carry) to the next.
Nanos Engine::cold_start_share(GpuState& gpu, Nanos free) {
  const double idle = gpu.serviced_faults ? static_cast<double>(free - gpu.fault_engine_free) : HUGE_VAL;
  const double x = -idle / static_cast<double>(profile_.fault_cold_time_ns);
  // 1 - (1 - left) * e^x, written so that left = 0 is exactly 1 - e^x.
  const double coldness = -std::expm1(x) + (gpu.cold_left != 0 ? gpu.cold_left * std::exp(x) : 0.0);
  gpu.cold_left = coldness * profile_.fault_cold_carry;
  return static_cast<Nanos>(std::llround(static_cast<double>(profile_.fault_cold_start_ns) * coldness));
}

void Engine::service_single_fault(AllocSlot slot, std::uint64_t page) {
  GpuState& gpu = gpus_[static_cast<std::size_t>(kernel_.gpu)];
  const Nanos batch_start = start_fault_batch(gpu);
  kernel_.now = batch_start + profile_.fault_batch_ns;
  ++kernel_counters_.fault_batches;
  const std::uint64_t block = page / kPagesPerBlock;
  service_page(slot, block, static_cast<std::uint32_t>(page % kPagesPerBlock));
  fault_service_ran(gpu, batch_start);
  after_fault_copies();
  mark_ready(slot, block, batch_start);
}

void Engine::service_fault_batch() {
  if (fault_entries_ == 0) return;
  if (fault_buffer_.size() == 1) {  // one page (a batch of one, or duplicates of one page): nothing to group
    const std::uint64_t key = fault_buffer_.front().key;
    service_single_fault(static_cast<AllocSlot>(key >> 40), key & ((std::uint64_t{1} << 40) - 1));
    note_fault_density(fault_entries_);
    fault_buffer_.clear();
    fault_entries_ = 0;
    return;
  }
  const Counters before = series_ ? kernel_counters_ : Counters{};
  GpuState& gpu = gpus_[static_cast<std::size_t>(kernel_.gpu)];
  const Nanos batch_start = start_fault_batch(gpu);
  kernel_.now = batch_start + profile_.fault_batch_ns;
  ++kernel_counters_.fault_batches;
  group_faults();
  for (std::size_t r = 0; r < fault_runs_.size(); ++r) {
    // Single pages in one pass (lone_fault.cc) while they allow it, or in one loop.
    if (lone_pages_) {
      if ((r = service_lone_runs(r)) == fault_runs_.size()) break;
    } else if ((r = service_page_runs(r)) == fault_runs_.size()) {
      break;
    }
    const FaultRun& run = fault_runs_[r];
    const auto slot = static_cast<AllocSlot>(run.block_key >> kAllocShift);
    const std::uint64_t block = run.block_key & kBlockMask;
    const FaultEntry* const entries = fault_buffer_.data() + run.begin;
    const std::uint32_t unique = run.end - run.begin;  // entries are unique pages
    if (unique == 1) {  // the block's only faulted page (the common case of scattered faults)
      service_page(slot, block, static_cast<std::uint32_t>(entries[0].key % kPagesPerBlock));
      continue;
    }
    // A block with a few faulted pages tries the short path with its pages in
    // address order. Scattered faults give a block two to four pages in random
    // order (two most often: one comparison, without a branch); three or four
    // each go to their rank (the pages are unique), counted without a branch on
    // the pages; more pages (a tile's, in order as often as not) are sorted by
    // insertion.
    if (unique <= kShortPathPages) {
      std::uint32_t pages[kShortPathPages];
      auto page_of = [&](std::uint32_t n) { return static_cast<std::uint32_t>(entries[n].key % kPagesPerBlock); };
      if (unique == 2) {
        const std::uint32_t x = page_of(0), y = page_of(1);
        pages[0] = std::min(x, y);
        pages[1] = std::max(x, y);
      } else if (unique <= kRankedPages) {
        for (std::uint32_t n = 0; n < unique; ++n) {
          std::uint32_t rank = 0;
          for (std::uint32_t m = 0; m < unique; ++m) rank += page_of(m) < page_of(n);
          pages[rank] = page_of(n);
        }
      } else {
        for (std::uint32_t n = 0; n < unique; ++n) {
          const std::uint32_t i = page_of(n);
          std::uint32_t k = n;
          for (; k > 0 && pages[k - 1] > i; --k) pages[k] = pages[k - 1];
          pages[k] = i;
        }
      }
      if (service_short(slot, block, pages, unique)) continue;
      // service_block's first try, with the pages in the order it would list
      // them, without its mask and frame; where it declines, it changed
      // nothing and service_block goes on without it.
      static_assert(kShortPathPages <= kMaxQuietFaults);
      if (quiet_pages_ && service_quiet_pages(slot, block, pages, unique)) continue;
    }
    PageMask faulted;
    for (std::uint32_t e = 0; e < unique; ++e) faulted.set(entries[e].key % kPagesPerBlock);
    service_block(slot, block, faulted, unique, /*quiet_tried=*/unique <= kShortPathPages);
  }
  fault_service_ran(gpu, batch_start);
  after_fault_copies();
  // mark_ready for every run, with latest_ready_ raised once.
  const Nanos end = kernel_.now;
  const ProcessorMask waiting = kernel_bit_;
  for (const FaultRun& run : fault_runs_)
    note_block_in_flight(allocs_[static_cast<AllocSlot>(run.block_key >> kAllocShift)].blocks[run.block_key & kBlockMask],
                         batch_start, end, waiting);
  if (!fault_runs_.empty()) latest_ready_ = std::max(latest_ready_, end);
  if (series_) series_batch_row(before, batch_start);
  note_fault_density(fault_entries_);
  fault_buffer_.clear();
  fault_entries_ = 0;
}

MigrationDecision Engine::driver_default(const PageState& st, Processor requester, AccessType type) const {
  const bool write = type != AccessType::kRead;
  // One physical memory: a GPU maps the page where it is (populating it there),
  // whatever the advice says; nothing migrates.
  if (vendor_.single_memory_pool && requester.is_gpu()) return {Placement::kMapRemote, Processor::cpu()};
  const Processor preferred = st.preferred >= 0 ? Processor{st.preferred} : Processor::none();
  if (st.copies == 0) {  // first touch: at the preferred location if the requester can map it there
    if (!preferred.is_none() && preferred != requester && accessible(requester, preferred))
      return {Placement::kMapRemote, preferred};
    return {Placement::kMigrate, requester};
  }
  if ((st.flags & kReadMostly) && vendor_.read_mostly_duplicates)  // overrides the other hints
    return write ? MigrationDecision{Placement::kMigrate, requester} : MigrationDecision{Placement::kDuplicate, requester};
  if (!preferred.is_none()) {
    if (preferred == requester) return {Placement::kMigrate, requester};
    if (accessible(requester, preferred)) return {Placement::kMapRemote, preferred};
    return {Placement::kMigrate, requester};
  }
  if ((st.accessed_by & processor_bit(requester)) && vendor_.accessed_by_maps_in_place) {
    const Processor owner = first_processor(st.copies);
    if (accessible(requester, owner)) return {Placement::kMapRemote, owner};
  }
  return {Placement::kMigrate, requester};
}

MigrationDecision Engine::decide(AllocSlot slot, std::uint64_t page, const PageState& st, Processor requester,
                                 AccessType type, const BlockState& bs, Nanos now) {
  MigrationDecision d = driver_default(st, requester, type);
  // Thrashing responses in force override the default.
  if ((st.flags & kPinned) && bs.pin_until > now && st.copies != 0) {
    // A pinned page stays where it is; the service that pins it takes it to the pin.
    const Processor at = pin_location(slot, page, st);
    if (!(at == requester) && accessible(requester, at)) d = {Placement::kMapRemote, at};
  } else if (bs.map_remote_until > now && (bs.map_remote_mask & processor_bit(requester)) && st.copies != 0 &&
           !(st.copies & processor_bit(requester)) && accessible(requester, first_processor(st.copies)))
    d = {Placement::kMapRemote, first_processor(st.copies)};
  if (decide_callbacks_) {
    const FaultContext ctx{requester,   type,
                           slot,        page,
                           st.copies,   (st.flags & kReadMostly) != 0,
                           st.preferred >= 0 ? Processor{st.preferred} : Processor::none(),
                           st.accessed_by, now};
    d = migration_->decide(ctx, d);
    if (d.destination.is_none() || d.destination.code > profile_.gpus)
      throw SimulationError(fmt::format("the migration policy chose destination {}, which does not exist",
                                        trace::to_string(d.destination)));
  }
  return d;
}

void Engine::add_policy_prefetch(AllocSlot slot, std::uint64_t block, Processor dest, const PageMask& faulted,
                                 PageMask& migrate, PageMask& duplicate, Nanos now, PrefetchRequest* used,
                                 PageMask* added) {
  Allocation& a = allocs_[slot];
  const BlockState& bs = a.blocks[block];
  const std::uint64_t base = block * kPagesPerBlock;
  const ProcessorMask dbit = processor_bit(dest);
  PrefetchRequest req;
  req.alloc = slot;
  req.block = block;
  req.pages_in_block = a.pages_in_block(block);
  req.destination = dest;
  req.faulted = faulted;
  req.resident_anywhere = a.populated[block];
  // The allocation keeps each block's resident pages per GPU: no page or chunk walk.
  if (dest.is_gpu()) req.resident_on_destination = a.gpu_resident[static_cast<std::size_t>(dest.gpu_index())][block];
  if (dest.is_cpu() || bs.pin_until > now) {
    for (std::uint32_t i = 0; i < req.pages_in_block; ++i) {
      const PageState& st = a.pages[base + i];
      if (dest.is_cpu() && (st.copies & dbit)) req.resident_on_destination.set(i);
      if ((st.flags & kPinned) && bs.pin_until > now) req.excluded.set(i);  // the prefetcher leaves pins alone
      if (dest.is_cpu() && (st.mapped & kCpuBit)) req.excluded.set(i);
    }
  }
  if (thrashing_) {
    thrashing_->thrashing_pages(slot, block, now, req.thrashing);
    req.excluded |= req.thrashing;
  }
  const std::uint32_t first = first_page(faulted);
  const std::int8_t preferred = first < kPagesPerBlock ? a.pages[base + first].preferred : -1;
  // "Prefetch does not pull pages away from their preferred location" holds
  // only where the destination could have mapped that location instead. A CPU
  // fault on a page preferring a GPU must migrate it (x86 cannot map GPU
  // memory) and the driver's prefetcher runs as for any CPU fault: on an H200,
  // reading 128 MiB preferring gpu0 back took 382 CPU faults (64 VA blocks x 6
  // faults of 64K, 64K, 128K, 256K, 512K, 1M), not one fault per page.
  req.preferred_location_elsewhere =
      preferred >= 0 && preferred != dest.code && accessible(dest, Processor{static_cast<std::int16_t>(preferred)});
  req.destination_is_preferred = preferred == dest.code;
  req.fault_migrations_to_destination = bs.fault_migrations;
  req.now = now;
  PageMask out;
  if (used) *used = req;
  prefetch_->prefetch(req, out);
  if (!any_page(out)) return;  // the common case on a fault-heavy replay
  // Word by word: the pages the engine accepts, split into read-mostly
  // duplicates and migrations.
  const PageState* const block_pages = a.pages.data() + base;
  for (std::uint32_t w = 0; w < kPagesPerBlock / 64; ++w) {
    const std::uint64_t proposed = mask_word(out, w);
    if (proposed == 0) continue;  // most words: the policy's pages lie around the faulted ones
    const std::uint64_t x = proposed & pages_below_in_word(req.pages_in_block, w) &
                            ~(mask_word(req.excluded, w) | mask_word(faulted, w) |
                              mask_word(req.resident_on_destination, w));
    if (x == 0) continue;
    std::uint64_t dup = 0;
    if (vendor_.read_mostly_duplicates && a.read_mostly_advised)
      for (std::uint64_t y = x; y != 0; y &= y - 1) {
        const PageState& st = block_pages[w * 64 + static_cast<std::uint32_t>(std::countr_zero(y))];
        if ((st.flags & kReadMostly) && st.copies) dup |= y & -y;
      }
    if (added) set_mask_word(*added, w, x & ~(mask_word(migrate, w) | mask_word(duplicate, w)));
    if (dup) set_mask_word(duplicate, w, mask_word(duplicate, w) | dup);
    set_mask_word(migrate, w, mask_word(migrate, w) | (x & ~dup));
  }
}

// The contiguous runs of pages a block service migrates to the requester from
// host memory (faults.run_cost; `host_copies` where the caller found every
// page there). Measured for moves from the host only: runs copied from a peer
// GPU and read-only duplicates (whose costs are fitted on their own runs) are
// left out. Under faults.copy_runs_by_cause the runs of faulted pages and of
// the pages around them are counted apart.
std::uint32_t Engine::copy_runs(const Allocation& a, std::uint64_t base, const PageMask& migrate,
                                const PageMask* host_copies, const PageMask& faulted) const {
  PageMask copied;
  if (host_copies) {
    copied = *host_copies;
  } else {
    for_each_page(migrate, [&](std::uint32_t i) {
      if (a.pages[base + i].copies == kCpuBit) copied.set(i);
      return true;
    });
  }
  constexpr std::uint32_t kWords = kPagesPerBlock / 64;
  if (!profile_.fault_copy_runs_by_cause) return count_page_runs(copied, 0, kWords);
  return count_page_runs(copied & faulted, 0, kWords) + count_page_runs(copied & ~faulted, 0, kWords);
}

void Engine::service_block(AllocSlot slot, std::uint64_t block, const PageMask& faulted, std::uint32_t unique,
                           bool quiet_tried) {
  Allocation& a = allocs_[slot];
  BlockState& bs = a.blocks[block];
  const std::uint64_t base = block * kPagesPerBlock;
  const Processor requester = Processor::gpu(kernel_.gpu);
  const ProcessorMask rbit = processor_bit(requester);
  Nanos& now = kernel_.now;
  // A few faulted pages the policies have nothing particular to say about: without masks.
  if (quiet_pages_ && !quiet_tried && unique <= kMaxQuietFaults) {
    std::uint32_t pages[kMaxQuietFaults], n = 0;
    if (unique == 1) pages[n++] = first_page(faulted);  // most faults of a replay over a large footprint
    else for_each_page(faulted, [&](std::uint32_t i) { pages[n++] = i; });
    if (service_quiet_pages(slot, block, pages, n)) return;
  }
  if (thrashing_) thrashing_hint(slot, block, faulted, requester, now);
  if (bs.throttle_until > now) now = bs.throttle_until;  // thrashing throttle holds the faults back
  // The per-block cost depends on what the service does: a block whose
  // faulted pages are resident nowhere is only populated on the GPU (no CPU
  // pages to unmap, nothing to copy); one whose faults all read read-mostly
  // pages held elsewhere only adds read-only copies (the sources stay mapped);
  // anything else migrates.
  bool populate_only = true, duplicate_only = vendor_.read_mostly_duplicates;
  for_each_page(faulted, [&](std::uint32_t i) {
    const PageState& st = a.pages[base + i];
    populate_only = populate_only && st.copies == 0;
    duplicate_only = duplicate_only && st.copies != 0 && !(st.copies & rbit) && (st.flags & kReadMostly) &&
                     !(st.flags & kFaultWrite);
    return populate_only || duplicate_only;
  });
  now += (populate_only    ? profile_.populate_block_ns()
          : duplicate_only ? profile_.duplicate_block_ns()
                           : profile_.fault_va_block_ns) +
         profile_.fault_page_ns * unique;
  kernel_counters_.gpu_fault_pages += unique;

  PageMask migrate, duplicate, remote;
  std::uint32_t moving = 0;  // faulted pages that migrate or duplicate to the requester
  Processor from = Processor::none();  // where the first of them is (for the thrashing policy)
  // Pages placed elsewhere and mapped remotely by the requester: elsewhere_[destination code].
  PageMask* const elsewhere = elsewhere_;
  ProcessorMask elsewhere_used = 0;
  // With no thrashing response in force on the block and no migration policy
  // of its own, an unadvised page takes the driver's default, a migration to
  // the requester: no per-page decide() call.
  const bool defaults_only =
      !decide_callbacks_ && !vendor_.single_memory_pool && bs.pin_until <= now && bs.map_remote_until <= now;
  for_each_page(faulted, [&](std::uint32_t i) {
    const std::uint64_t page = base + i;
    PageState& st = a.pages[page];
    const AccessType type = (st.flags & kFaultWrite) ? AccessType::kWrite : AccessType::kRead;
    st.flags &= static_cast<std::uint8_t>(~(kInFaultBuffer | kFaultWrite));
    if ((st.flags & kPinned) && bs.pin_until <= now) st.flags &= static_cast<std::uint8_t>(~kPinned);
    const MigrationDecision d = defaults_only && !st.advised() ? MigrationDecision{Placement::kMigrate, requester}
                                                               : decide(slot, page, st, requester, type, bs, now);
    auto to_requester = [&](PageMask& pages) {
      pages.set(i);
      ++moving;
      if (from.is_none() && st.copies) from = first_processor(st.copies);
    };
    switch (d.placement) {
      case Placement::kDuplicate:
        // Duplicates are read-only: a write always collapses to the writer.
        if (d.destination == requester && st.copies && type == AccessType::kRead) {
          if (!(st.flags & kReadMostly)) st.flags |= kPolicyDuplicate;  // a policy's own read-only copy
          to_requester(duplicate);
          break;
        }
        [[fallthrough]];
      case Placement::kMigrate:
        if (d.destination == requester) {
          to_requester(migrate);
          break;
        }
        [[fallthrough]];
      case Placement::kMapRemote:
        if (d.destination == requester || !accessible(requester, d.destination)) {
          to_requester(migrate);
          break;
        }
        if (!(elsewhere_used & processor_bit(d.destination))) elsewhere[d.destination.code].reset();
        elsewhere[d.destination.code].set(i);
        elsewhere_used |= processor_bit(d.destination);
        remote.set(i);
        break;
    }
  });
  const PageMask faulted_moving = migrate | duplicate;

  // AMD SVM migrates the whole window around a faulting page.
  if (vendor_.gpu_fault_window_pages > 1 && migrate.any()) {
    const std::uint32_t n = a.pages_in_block(block);
    for (std::uint32_t i = 0; i < n; ++i) {
      const PageState& st = a.pages[base + i];
      if (!(st.copies & rbit) && !remote.test(i) && (st.preferred < 0 || st.preferred == requester.code) &&
          !(st.accessed_by & rbit))
        migrate.set(i);
    }
  }
  // One physical memory: the fault maps its whole window in place (populating
  // pages never touched), not only the faulted pages.
  PageMask window_mapped;
  if (vendor_.single_memory_pool && vendor_.gpu_fault_window_pages > 1 && remote.any()) {
    const std::uint32_t n = a.pages_in_block(block);
    for (std::uint32_t i = 0; i < n; ++i)
      if (!(a.pages[base + i].mapped & rbit) && !remote.test(i) && (a.pages[base + i].copies & ~kCpuBit) == 0)
        window_mapped.set(i);
    if (window_mapped.any()) {
      if (!(elsewhere_used & kCpuBit)) elsewhere[0].reset();
      elsewhere[0] |= window_mapped;
      elsewhere_used |= kCpuBit;
    }
  }
  // The prefetch policy runs only when every faulted page goes to one processor.
  PageMask policy_pages;
  if (moving) {
    const std::uint32_t moved = moving;
    if (bs.last_destination == requester.code) bs.fault_migrations += moved;
    else bs.fault_migrations = moved, bs.last_destination = requester.code;
    if (prefetch_ && elsewhere_used == 0) {
      add_policy_prefetch(slot, block, requester, faulted_moving, migrate, duplicate, now,
                          prefetch_beyond_budget_ ? &beyond_request_ : nullptr, &policy_pages);
    }
  }

  // Pages that migrate from host memory or nowhere (a replay over a large
  // footprint: the faulted page and the prefetcher's around it) are read
  // once here; their moves and counts below take the pages with a host copy
  // as a mask (host_copies) instead of reading each record again.
  const bool any_migrate = any_page(migrate);
  PageMask host_copies;
  const bool from_host = any_migrate && host_only_pages(a, block, migrate, host_copies);
  Bytes prefetched = 0;
  const bool any_policy_pages = prefetch_ && any_page(policy_pages);
  if (any_policy_pages) {
    const PageState* const block_pages = a.pages.data() + base;
    auto count_held_elsewhere = [&](std::uint32_t i) {
      if (block_pages[i].copies && !(block_pages[i].copies & rbit)) prefetched += kPageSize;
    };
    if (!from_host) {
      for_each_page(policy_pages, count_held_elsewhere);
    } else {
      prefetched = count_pages(policy_pages & host_copies) * kPageSize;  // a host copy is never the requester's
      if (any_page(duplicate)) for_each_page(policy_pages & ~migrate, count_held_elsewhere);
    }
  }
  // The driver's per-page work for every page this service moves from
  // another copy (population of untouched pages is zero-fill, charged apart);
  // a read-only duplicate leaves its source mapped, at its own cost.
  auto with_copy = [&](const PageMask& pages) {
    std::uint64_t copied = 0;
    for_each_page(pages, [&](std::uint32_t i) {
      copied += a.pages[base + i].copies != 0;
      return true;
    });
    return static_cast<Nanos>(copied);
  };
  if (const Nanos ns = profile_.fault_migrated_page_ns; ns != 0)
    now += (from_host ? count_pages(host_copies) : with_copy(migrate)) * ns;
  if (const Nanos ns = profile_.duplicated_page_ns(); ns != 0) now += with_copy(duplicate) * ns;
  // A duplicate of the CPU's sole copy that the CPU may still write takes
  // that write permission first.
  if (const Nanos ns = profile_.fault_revoke_cpu_write_page_ns; ns != 0) {
    std::uint64_t writable = 0;
    for_each_page(duplicate, [&](std::uint32_t i) {
      writable += a.pages[base + i].cpu_writes_sole_copy();
      return true;
    });
    now += static_cast<Nanos>(writable) * ns;
  }
  if (profile_.fault_run_ns) now += copy_runs(a, base, migrate, from_host ? &host_copies : nullptr, faulted) * *profile_.fault_run_ns;
  // Pages this service makes the requester's sole copy while other copies
  // exist (a write ending read duplication, faulted or pulled in with it): the
  // other holders' mappings are revoked first, each holder's in turn (one
  // other holder, the CPU, in the calibration's runs and on one GPU).
  if (profile_.fault_revoke_duplicate_page_ns > 0) {
    std::uint64_t revoked = 0;
    for_each_page(migrate, [&](std::uint32_t i) {
      const int holders = popcount16(a.pages[base + i].copies);
      revoked += holders > 1 ? static_cast<std::uint64_t>(holders - 1) : 0;
    });
    now += static_cast<Nanos>(revoked) * profile_.fault_revoke_duplicate_page_ns;
  }
  if (any_migrate && gpus_.size() > 1) note_served_pages(slot, block, migrate);
  if (from_host) now = move_host_block(slot, a, block, migrate, host_copies, requester, now);
  else if (any_migrate) now = move_pages(slot, block, migrate, requester, false, now);
  if (any_page(duplicate)) {
    notify_revocations(slot, block, duplicate, requester, now);
    now = move_pages(slot, block, duplicate, requester, true, now);
  }
  for (ProcessorMask m = elsewhere_used; m; m &= static_cast<ProcessorMask>(m - 1)) {
    const Processor dest = first_processor(m);
    now = move_pages(slot, block, elsewhere[dest.code], dest, false, now);
  }
  if (elsewhere_used & kCpuBit) for_each_page(window_mapped, [&](std::uint32_t i) { a.pages[base + i].mapped |= rbit; });
  // The replayed accesses to remotely placed pages go over the new mappings.
  // The faulting touches are gone from the buffer (it keeps pages, not
  // bytes): each is charged the kernel's mean touch so far. Worked out only
  // where some page went elsewhere (the divisions stay off the common service).
  if (elsewhere_used) {
    const std::uint64_t touches = std::max<std::uint64_t>(1, access_seq_ - kernel_first_seq_);
    const std::uint64_t mean_units = std::max<std::uint64_t>(1, kernel_.touched_units / touches);
    const Bytes mean_bytes = mean_units * profile_.gpu_access_unit;
    const Bytes remote_unit = profile_.remote_access_unit;
    const Bytes remote_bytes = (mean_bytes + remote_unit - 1) / remote_unit * remote_unit;
    // Their loads' requests (the touches' types are not kept past the buffer: counted as loads).
    const std::uint64_t remote_requests =
        (mean_bytes + profile_.remote_request_unit - 1) / profile_.remote_request_unit;
    for_each_page(remote, [&](std::uint32_t i) {
      PageState& st = a.pages[base + i];
      st.mapped |= rbit;
      ++kernel_counters_.remote_accesses;
      kernel_.remote_touched_units += mean_units;
      if (st.copies & kCpuBit) {
        kernel_.remote_host_bytes += remote_bytes;
        kernel_.remote_host_requests += remote_requests;
      } else {
        kernel_.remote_peer_bytes += remote_bytes;
      }
    });
  }
  kernel_counters_.bytes_prefetched += prefetched;
  notify_thrashing(slot, block, faulted_moving, from, requester, MigrationCause::kFault, requester, now);
  if (any_policy_pages)
    notify_thrashing(slot, block, policy_pages, from, requester, MigrationCause::kPrefetchPolicy, requester, now);
  if (prefetch_beyond_budget_ && moving && elsewhere_used == 0) prefetch_beyond(beyond_request_, now);
}

}  // namespace umsim::sim
