// Thrashing decision point. Call timing: after every fault-, prefetch- or
// access-counter-driven migration of pages of a VA block to a processor (not
// for explicit prefetch hints or eviction). The response applies to the pages
// listed in `thrashing` and is enforced by the engine: throttle stalls the
// requester before its next fault on those pages is serviced; pin keeps the
// pages resident at `pin_to` (others map remotely) until `until`; map_remote
// maps the requester remotely instead of migrating.
#pragma once

#include "sim/policy_hooks.h"

namespace umsim::sim {

enum class MigrationCause : std::uint8_t { kFault, kPrefetchPolicy, kAccessCounter };

struct MigrationNotice {
  AllocSlot alloc = 0;
  std::uint64_t block = 0;
  PageMask pages;          // pages that moved
  Processor from;          // previous sole owner (none if first touch)
  Processor to;
  MigrationCause cause = MigrationCause::kFault;
  Processor preferred;     // block's preferred location, none if unset
  Nanos now = 0;
};

enum class ThrashingAction : std::uint8_t { kNone, kThrottle, kPin, kMapRemote };

struct ThrashingResponse {
  ThrashingAction action = ThrashingAction::kNone;
  PageMask thrashing;      // pages detected as thrashing (excluded from prefetch)
  Processor pin_to;        // kPin: where the pages stay
  Nanos throttle_ns = 0;   // kThrottle: how long the requester is held back
  Nanos until = 0;         // kPin / kMapRemote: when the response expires
  // Pages that crossed the detection threshold with this migration: the driver's
  // thrashing events (one per page and detection, as CUPTI reports them).
  PageMask detected;
};

class ThrashingPolicy : public PolicyHooks {
 public:
  virtual ThrashingResponse on_migration(const MigrationNotice& notice) = 0;
  // Pages of the block currently considered thrashing (for prefetch exclusion).
  virtual void thrashing_pages(AllocSlot /*alloc*/, std::uint64_t /*block*/, Nanos /*now*/,
                               PageMask& /*out*/) const {}
};

}  // namespace umsim::sim
