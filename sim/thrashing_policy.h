// Thrashing detection and mitigation, at two points of a fault service:
// - on_fault: before the engine places a VA block's faulted pages (the
//   driver's uvm_perf_thrashing_get_hint). The response applies to this
//   service, to the pages listed in `thrashing`: throttle holds the requester's
//   service back until the throttle ends; pin keeps the pages resident at
//   `pin_to` until `until` (the requester migrates them there if it is
//   `pin_to`, maps them remotely otherwise); map_remote maps the requester
//   remotely instead of migrating.
// - on_migration: after every fault-, prefetch- or access-counter-driven
//   migration of pages of a VA block to a processor (not for explicit prefetch
//   hints or eviction): detection (the driver's thrashing_event_cb). A response
//   returned here applies from the requester's next fault on those pages.
// - on_revocation: when a processor loses its write permission on pages
//   another processor read-duplicates (read duplication needs every copy
//   read-only), the driver's other kind of thrashing event; on ReadMostly
//   memory the only kind it counts.
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
  // The pages are ReadMostly (the range read-duplicates): the driver counts
  // none of its migrations as thrashing events, and clears the thrashing
  // state of the pages that move.
  bool read_duplication = false;
};

// A processor's write permission revoked on a block's pages (the driver's
// revocation event: one per permission level, so a GPU that could write and
// do atomics gives two at once).
struct RevocationNotice {
  AllocSlot alloc = 0;
  std::uint64_t block = 0;
  PageMask pages;
  Processor revoked;       // the processor whose permission went
  Nanos now = 0;
};

// A MigrationNotice without its pages (on_quiet_migration).
struct BlockMigration {
  AllocSlot alloc = 0;
  std::uint64_t block = 0;
  Processor from;
  Processor to;
  MigrationCause cause = MigrationCause::kFault;
  Processor preferred;
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

// A fault service about to place a block's faulted pages.
struct FaultNotice {
  AllocSlot alloc = 0;
  std::uint64_t block = 0;
  PageMask pages;          // the faulted pages
  Processor requester;
  Processor resident;      // where the first of them is resident (none if nowhere yet)
  Processor preferred;     // block's preferred location, none if unset
  Nanos now = 0;
};

class ThrashingPolicy : public PolicyHooks {
 public:
  virtual ThrashingResponse on_fault(const FaultNotice& /*notice*/) { return {}; }
  virtual ThrashingResponse on_migration(const MigrationNotice& notice) = 0;
  // Detection on a revocation; the response's `detected` pages are counted
  // as thrashing events, any action is ignored (the driver acts on faults).
  virtual ThrashingResponse on_revocation(const RevocationNotice& /*notice*/) { return {}; }
  // Pages of the block currently considered thrashing (for prefetch exclusion).
  virtual void thrashing_pages(AllocSlot /*alloc*/, std::uint64_t /*block*/, Nanos /*now*/,
                               PageMask& /*out*/) const {}
  // Whether the block has no thrashing state: on_fault would respond nothing
  // and change nothing, and thrashing_pages would add nothing (a fault service
  // of such a block can then skip both and its 512-page masks).
  virtual bool quiet_block(AllocSlot /*alloc*/, std::uint64_t /*block*/) const { return false; }
  // on_migration for a migration out of a quiet block's service, without the
  // pages: true where the policy recorded it as on_migration would, with no
  // response and no page detected, whatever the pages were; false, having
  // changed nothing, where it needs on_migration with the pages.
  virtual bool on_quiet_migration(const BlockMigration& /*migration*/) { return false; }
  // True where on_quiet_migration, having accepted a migration, would accept
  // another of the same block to the same processor at the same time (the
  // prefetched pages after the faulted ones), whatever its cause and
  // preferred location, and change nothing: the engine then leaves out that
  // call. Read once at start-up.
  virtual bool ignores_quiet_repeats() const { return false; }
  // True for a policy that never responds and never reports a page (`none`):
  // the engine then runs as with no thrashing policy (the fault service's
  // short paths apply). Read once at start-up.
  virtual bool never_responds() const { return false; }
};

}  // namespace umsim::sim
