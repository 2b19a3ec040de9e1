// GPU fault servicing, as the NVIDIA driver does it: a batch of fault-buffer
// entries is sorted, coalesced per page and serviced one VA block at a time;
// per block the destination is decided (hint-aware driver default, then the
// migration policy), the prefetch policy adds pages, pages move, and the
// thrashing policy sees the migration. The kernel stalls meanwhile.
#include <algorithm>

#include <fmt/format.h>

#include "sim/engine.h"

namespace umsim::sim {

using trace::AccessType;

namespace {
constexpr std::uint64_t kPageKeyMask = (std::uint64_t{1} << 40) - 1;

PageMask first_pages(std::uint32_t n) {
  PageMask m;
  m.set();
  return n >= kPagesPerBlock ? m : (m >> (kPagesPerBlock - n));
}
}  // namespace

bool Engine::accessible(Processor requester, Processor location) const {
  if (requester == location) return true;
  if (requester.is_gpu()) return location.is_cpu() || profile_.peer_access;
  return false;  // x86 CPUs cannot map GPU memory
}

// The driver sorts a batch by address. Keys are small (allocation << 40 |
// page): an LSD radix sort over 8-bit digits, as many passes as the largest
// key needs (up to 4: keys below 2^32), else std::sort.
void Engine::sort_fault_buffer() {
  std::uint64_t max_key = 0;
  bool sorted = true;
  for (std::size_t i = 0; i < fault_buffer_.size(); ++i) {
    max_key = std::max(max_key, fault_buffer_[i].key);
    if (i && fault_buffer_[i].key < fault_buffer_[i - 1].key) sorted = false;
  }
  if (sorted) return;
  if (max_key >= (std::uint64_t{1} << 32) || fault_buffer_.size() < 32) {
    std::sort(fault_buffer_.begin(), fault_buffer_.end(),
              [](const FaultEntry& x, const FaultEntry& y) { return x.key < y.key; });
    return;
  }
  sort_scratch_.resize(fault_buffer_.size());
  FaultEntry* from = fault_buffer_.data();
  FaultEntry* to = sort_scratch_.data();
  const std::size_t n = fault_buffer_.size();
  int passes = 0;
  for (int shift = 0; shift < 32 && (max_key >> shift) != 0; shift += 8, ++passes) {
    std::uint32_t count[256] = {};
    for (std::size_t i = 0; i < n; ++i) ++count[(from[i].key >> shift) & 255];
    std::uint32_t sum = 0;
    for (auto& c : count) {
      const std::uint32_t here = c;
      c = sum;
      sum += here;
    }
    for (std::size_t i = 0; i < n; ++i) to[count[(from[i].key >> shift) & 255]++] = from[i];
    std::swap(from, to);
  }
  if (passes % 2) std::copy(sort_scratch_.begin(), sort_scratch_.end(), fault_buffer_.begin());
}

void Engine::service_fault_batch() {
  if (fault_entries_ == 0) return;
  GpuState& gpu = gpus_[static_cast<std::size_t>(kernel_.gpu)];
  kernel_.now = std::max(kernel_.now, gpu.fault_engine_free) + profile_.fault_batch_ns;
  ++kernel_counters_.fault_batches;
  sort_fault_buffer();
  const FaultEntry* it = fault_buffer_.data();
  const FaultEntry* const end = it + fault_buffer_.size();
  while (it != end) {
    const std::uint64_t group = it->key >> 9;  // (alloc, block)
    const FaultEntry* next = it;
    while (next != end && (next->key >> 9) == group) ++next;
    service_block(static_cast<AllocSlot>(it->key >> 40), (it->key & kPageKeyMask) / kPagesPerBlock, it, next);
    it = next;
  }
  gpu.fault_engine_free = kernel_.now;
  fault_buffer_.clear();
  fault_entries_ = 0;
}

MigrationDecision Engine::driver_default(const PageState& st, Processor requester, AccessType type) const {
  const bool write = type != AccessType::kRead;
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
  if ((st.flags & kPinned) && bs.pin_until > now && bs.pin_to >= 0 && bs.pin_to != requester.code &&
      st.copies != 0 && accessible(requester, Processor{bs.pin_to}))
    d = {Placement::kMapRemote, Processor{bs.pin_to}};
  else if (bs.map_remote_until > now && (bs.map_remote_mask & processor_bit(requester)) && st.copies != 0 &&
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
                                 PageMask& migrate, PageMask& duplicate, Nanos now) {
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
  if (dest.is_gpu()) {
    // The destination's chunks know their resident pages: no page walk.
    const auto& slots = a.chunk_slot[static_cast<std::size_t>(dest.gpu_index())];
    const GpuMemory& mem = gpus_[static_cast<std::size_t>(dest.gpu_index())].memory;
    const std::uint64_t first_region = base >> chunk_shift_;
    for (std::uint32_t r = 0; r < (kPagesPerBlock >> chunk_shift_) && first_region + r < slots.size(); ++r) {
      const std::uint32_t s = slots[first_region + r];
      if (s != kNoSlot) req.resident_on_destination |= mem.chunk(s).resident_pages << (r * pages_per_chunk_);
    }
  }
  if (dest.is_cpu() || (bs.pin_until > now && bs.pin_to != dest.code)) {
    for (std::uint32_t i = 0; i < req.pages_in_block; ++i) {
      const PageState& st = a.pages[base + i];
      if (dest.is_cpu() && (st.copies & dbit)) req.resident_on_destination.set(i);
      if ((st.flags & kPinned) && bs.pin_until > now && bs.pin_to != dest.code) req.excluded.set(i);
      if (dest.is_cpu() && (st.mapped & kCpuBit)) req.excluded.set(i);
    }
  }
  if (thrashing_) {
    thrashing_->thrashing_pages(slot, block, now, req.thrashing);
    req.excluded |= req.thrashing;
  }
  const std::size_t first = faulted._Find_first();
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
  prefetch_->prefetch(req, out);
  out &= ~req.excluded & ~faulted & ~req.resident_on_destination & first_pages(req.pages_in_block);
  for (std::size_t i = out._Find_first(); i < kPagesPerBlock; i = out._Find_next(i)) {
    const PageState& st = a.pages[base + i];
    if ((st.flags & kReadMostly) && vendor_.read_mostly_duplicates && st.copies) duplicate.set(i);
    else migrate.set(i);
  }
}

void Engine::notify_thrashing(AllocSlot slot, std::uint64_t block, const PageMask& pages, Processor from,
                              Processor to, MigrationCause cause, Processor requester, Nanos& now) {
  if (!thrashing_ || pages.none()) return;
  Allocation& a = allocs_[slot];
  BlockState& bs = a.blocks[block];
  const std::uint64_t base = block * kPagesPerBlock;
  const std::size_t first = pages._Find_first();
  MigrationNotice n;
  n.alloc = slot;
  n.block = block;
  n.pages = pages;
  n.from = from;
  n.to = to;
  n.cause = cause;
  n.preferred = a.pages[base + first].preferred >= 0 ? Processor{a.pages[base + first].preferred} : Processor::none();
  n.now = now;
  const ThrashingResponse r = thrashing_->on_migration(n);
  Counters& c = counters();
  c.thrashing_events += r.thrashing.count();
  switch (r.action) {
    case ThrashingAction::kNone:
      break;
    case ThrashingAction::kThrottle:
      bs.throttle_until = std::max(bs.throttle_until, now + r.throttle_ns);
      ++c.throttles;
      break;
    case ThrashingAction::kPin:
      if (r.pin_to.is_none() || r.pin_to.code > profile_.gpus)
        throw SimulationError("the thrashing policy pinned pages to a processor that does not exist");
      for (std::size_t i = r.thrashing._Find_first(); i < kPagesPerBlock; i = r.thrashing._Find_next(i))
        if (base + i < a.page_count) a.pages[base + i].flags |= kPinned;
      bs.pin_to = r.pin_to.code;
      bs.pin_until = r.until;
      break;
    case ThrashingAction::kMapRemote:
      bs.map_remote_until = r.until;
      bs.map_remote_mask |= processor_bit(requester);
      break;
  }
}

void Engine::service_block(AllocSlot slot, std::uint64_t block, const FaultEntry* begin, const FaultEntry* end) {
  Allocation& a = allocs_[slot];
  BlockState& bs = a.blocks[block];
  const std::uint64_t base = block * kPagesPerBlock;
  const Processor requester = Processor::gpu(kernel_.gpu);
  const ProcessorMask rbit = processor_bit(requester);
  Nanos& now = kernel_.now;
  if (bs.throttle_until > now) now = bs.throttle_until;  // thrashing throttle holds the faults back
  const auto unique = static_cast<std::uint64_t>(end - begin);
  // The per-block cost depends on what the service does: a block whose
  // faulted pages are resident nowhere is only populated on the GPU (no CPU
  // pages to unmap, nothing to copy); one whose faults all read read-mostly
  // pages held elsewhere only adds read-only copies (the sources stay mapped);
  // anything else migrates.
  bool populate_only = true, duplicate_only = vendor_.read_mostly_duplicates;
  for (const FaultEntry* f = begin; f != end && (populate_only || duplicate_only); ++f) {
    const PageState& st = a.pages[f->key & kPageKeyMask];
    populate_only = populate_only && st.copies == 0;
    duplicate_only = duplicate_only && st.copies != 0 && !(st.copies & rbit) && (st.flags & kReadMostly) &&
                     !(st.flags & kFaultWrite);
  }
  now += (populate_only    ? profile_.populate_block_ns()
          : duplicate_only ? profile_.duplicate_block_ns()
                           : profile_.fault_va_block_ns) +
         profile_.fault_page_ns * unique;
  kernel_counters_.gpu_fault_pages += unique;

  PageMask migrate, duplicate, remote;
  std::uint32_t moving = 0;  // faulted pages that migrate or duplicate to the requester
  // Pages placed elsewhere and mapped remotely by the requester: elsewhere_[destination code].
  PageMask* const elsewhere = elsewhere_;
  ProcessorMask elsewhere_used = 0;
  for (const FaultEntry* f = begin; f != end; ++f) {
    const std::uint64_t page = f->key & kPageKeyMask;
    const std::uint32_t i = static_cast<std::uint32_t>(page - base);
    PageState& st = a.pages[page];
    const AccessType type = (st.flags & kFaultWrite) ? AccessType::kWrite : AccessType::kRead;
    st.flags &= static_cast<std::uint8_t>(~(kInFaultBuffer | kFaultWrite));
    if ((st.flags & kPinned) && bs.pin_until <= now) st.flags &= static_cast<std::uint8_t>(~kPinned);
    const MigrationDecision d = decide(slot, page, st, requester, type, bs, now);
    switch (d.placement) {
      case Placement::kDuplicate:
        // Duplicates are read-only: a write always collapses to the writer.
        if (d.destination == requester && st.copies && type == AccessType::kRead) {
          if (!(st.flags & kReadMostly)) st.flags |= kPolicyDuplicate;  // a policy's own read-only copy
          duplicate.set(i);
          ++moving;
          break;
        }
        [[fallthrough]];
      case Placement::kMigrate:
        if (d.destination == requester) {
          migrate.set(i);
          ++moving;
          break;
        }
        [[fallthrough]];
      case Placement::kMapRemote:
        if (d.destination == requester || !accessible(requester, d.destination)) {
          migrate.set(i);
          ++moving;
          break;
        }
        if (!(elsewhere_used & processor_bit(d.destination))) elsewhere[d.destination.code].reset();
        elsewhere[d.destination.code].set(i);
        elsewhere_used |= processor_bit(d.destination);
        remote.set(i);
        break;
    }
  }
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
  // The prefetch policy runs only when every faulted page goes to one processor.
  PageMask policy_pages;
  if (moving) {
    const std::uint32_t moved = moving;
    if (bs.last_destination == requester.code) bs.fault_migrations += moved;
    else bs.fault_migrations = moved, bs.last_destination = requester.code;
    if (prefetch_ && elsewhere_used == 0) {
      const PageMask before = migrate | duplicate;
      add_policy_prefetch(slot, block, requester, faulted_moving, migrate, duplicate, now);
      policy_pages = (migrate | duplicate) & ~before;
    }
  }
  Processor from = Processor::none();
  for (std::size_t i = faulted_moving._Find_first(); i < kPagesPerBlock; i = faulted_moving._Find_next(i))
    if (a.pages[base + i].copies) {
      from = first_processor(a.pages[base + i].copies);
      break;
    }

  Bytes prefetched = 0;
  const bool any_policy_pages = prefetch_ && policy_pages.any();
  if (any_policy_pages) {
    for (std::size_t i = policy_pages._Find_first(); i < kPagesPerBlock; i = policy_pages._Find_next(i))
      if (a.pages[base + i].copies && !(a.pages[base + i].copies & rbit)) prefetched += kPageSize;
  }
  if (migrate.any()) now = move_pages(slot, block, migrate, requester, false, now);
  if (duplicate.any()) now = move_pages(slot, block, duplicate, requester, true, now);
  for (ProcessorMask m = elsewhere_used; m; m &= static_cast<ProcessorMask>(m - 1)) {
    const Processor dest = first_processor(m);
    now = move_pages(slot, block, elsewhere[dest.code], dest, false, now);
  }
  // The replayed accesses to remotely placed pages go over the new mappings.
  for (std::size_t i = elsewhere_used ? remote._Find_first() : kPagesPerBlock; i < kPagesPerBlock;
       i = remote._Find_next(i)) {
    PageState& st = a.pages[base + i];
    st.mapped |= rbit;
    ++kernel_counters_.remote_accesses;
    if (st.copies & kCpuBit) kernel_.remote_host_bytes += kPageSize;
    else kernel_.remote_peer_bytes += kPageSize;
  }
  kernel_counters_.bytes_prefetched += prefetched;
  notify_thrashing(slot, block, faulted_moving, from, requester, MigrationCause::kFault, requester, now);
  if (any_policy_pages)
    notify_thrashing(slot, block, policy_pages, from, requester, MigrationCause::kPrefetchPolicy, requester, now);
}

}  // namespace umsim::sim
