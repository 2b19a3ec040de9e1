// The thrashing policy's two points in a fault service (sim/thrashing_policy.h):
// its hint before the faulted pages of a block are placed (the driver decides
// before servicing a fault: a pinned page is mapped where it is pinned instead
// of migrating, a throttled requester waits), and its detection after pages
// migrated. Both responses act on the block's state, which decide() and the
// fault service read.
#include <algorithm>

#include "sim/engine.h"
#include "sim/page_mask_iteration.h"

namespace umsim::sim {

void Engine::thrashing_hint(AllocSlot slot, std::uint64_t block, const PageMask& faulted, Processor requester,
                            Nanos now) {
  const Allocation& a = allocs_[slot];
  const std::uint64_t base = block * kPagesPerBlock;
  const std::uint32_t first = first_page(faulted);
  if (first >= kPagesPerBlock) return;
  const PageState& st = a.pages[base + first];
  FaultNotice n;
  n.alloc = slot;
  n.block = block;
  n.pages = faulted;
  n.requester = requester;
  // The closest copy to the requester: its own, else the first holder (peers before the CPU).
  n.resident = st.copies == 0                           ? Processor::none()
               : (st.copies & processor_bit(requester)) ? requester
                                                        : first_processor(st.copies);
  n.preferred = st.preferred >= 0 ? Processor{st.preferred} : Processor::none();
  n.now = now;
  const ThrashingResponse r = thrashing_->on_fault(n);
  pinning_.active = false;
  if (r.action == ThrashingAction::kNone) return;
  apply_thrashing_response(slot, block, r, requester, now);
  if (r.action == ThrashingAction::kPin) pinning_ = {true, slot, block, r.thrashing, r.pin_to};
}

void Engine::notify_thrashing(AllocSlot slot, std::uint64_t block, const PageMask& pages, Processor from,
                              Processor to, MigrationCause cause, Processor requester, Nanos& now) {
  if (!thrashing_) return;
  const std::uint32_t first = first_page(pages);
  if (first >= kPagesPerBlock) return;
  Allocation& a = allocs_[slot];
  const std::uint64_t base = block * kPagesPerBlock;
  const std::int8_t preferred = a.pages[base + first].preferred;
  const bool read_duplication = vendor_.read_mostly_duplicates && (a.pages[base + first].flags & kReadMostly);
  // Built whole: the 64-byte mask is copied once, not cleared first (twice a block service).
  const MigrationNotice n{slot, block, pages, from, to, cause,
                          preferred >= 0 ? Processor{preferred} : Processor::none(), now, read_duplication};
  const ThrashingResponse r = thrashing_->on_migration(n);
  if (any_page(r.thrashing)) counters().thrashing_events += count_pages(r.thrashing);
  if (r.action != ThrashingAction::kNone) apply_thrashing_response(slot, block, r, requester, now);
}

void Engine::notify_revocations(AllocSlot slot, std::uint64_t block, const PageMask& pages, Processor to,
                                Nanos now) {
  if (!thrashing_ || !any_page(pages)) return;
  const Allocation& a = allocs_[slot];
  const std::uint64_t base = block * kPagesPerBlock;
  // Pages by their revoked holder: the CPU (one permission level), or each GPU (two).
  constexpr int kProcessors = 16;  // the bits of a ProcessorMask
  PageMask by_holder[kProcessors];
  ProcessorMask holders = 0;
  for_each_page(pages, [&](std::uint32_t i) {
    const Processor holder = sole_writer(a.pages[base + i]);
    if (holder.is_none() || holder == to) return true;
    by_holder[holder.code].set(i);
    holders |= processor_bit(holder);
    return true;
  });
  for (ProcessorMask m = holders; m; m &= static_cast<ProcessorMask>(m - 1)) {
    const Processor holder = first_processor(m);
    const RevocationNotice n{slot, block, by_holder[holder.code], holder, now};
    for (int level = 0; level < (holder.is_cpu() ? 1 : 2); ++level) {
      const ThrashingResponse r = thrashing_->on_revocation(n);
      if (any_page(r.detected)) counters().thrashing_events += count_pages(r.detected);
    }
  }
}

void Engine::apply_thrashing_response(AllocSlot slot, std::uint64_t block, const ThrashingResponse& r,
                                      Processor requester, Nanos now) {
  Allocation& a = allocs_[slot];
  BlockState& bs = a.blocks[block];
  const std::uint64_t base = block * kPagesPerBlock;
  switch (r.action) {
    case ThrashingAction::kNone:
      break;
    case ThrashingAction::kThrottle:
      bs.throttle_until = std::max(bs.throttle_until, now + r.throttle_ns);
      ++counters().throttles;
      break;
    case ThrashingAction::kPin:
      if (r.pin_to.is_none() || r.pin_to.code > profile_.gpus)
        throw SimulationError("the thrashing policy pinned pages to a processor that does not exist");
      for_each_page(r.thrashing, [&](std::uint32_t i) {
        if (base + i < a.page_count) a.pages[base + i].flags |= kPinned;
      });
      bs.pin_until = std::max(bs.pin_until, r.until);
      break;
    case ThrashingAction::kMapRemote:
      bs.map_remote_until = r.until;
      bs.map_remote_mask |= processor_bit(requester);
      break;
  }
}

}  // namespace umsim::sim
