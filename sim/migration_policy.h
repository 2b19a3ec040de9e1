// Migration decision point: where a faulting access is served. Call timing:
// once per faulting page group (per VA block and processor) while a fault batch
// (GPU) or a CPU fault is serviced, after the engine has computed the driver's
// hint-aware default (ReadMostly, PreferredLocation, AccessedBy semantics of
// the selected vendor). Policies may keep the default or override it.
// on_remote_access is called for accesses served through a remote mapping
// (no fault), e.g. to model access-counter-driven delayed migration.
#pragma once

#include "sim/policy_hooks.h"

namespace umsim::sim {

enum class Placement : std::uint8_t {
  kMigrate,    // move the page to `destination` (the only copy afterwards)
  kMapRemote,  // leave it where it is and map it remotely for the requester
  kDuplicate,  // make a read-only copy at `destination` (read-mostly semantics)
};

struct MigrationDecision {
  Placement placement = Placement::kMigrate;
  Processor destination;
  friend bool operator==(const MigrationDecision&, const MigrationDecision&) = default;
};

struct FaultContext {
  Processor requester;
  AccessType access = AccessType::kRead;
  AllocSlot alloc = 0;
  std::uint64_t page = 0;          // page index within the allocation
  std::uint16_t resident_mask = 0; // processors holding a copy (bit 0 CPU, 1+g GPU g); 0 = unpopulated
  bool read_mostly = false;
  Processor preferred;             // none if unset
  std::uint16_t accessed_by = 0;   // processor mask
  Nanos now = 0;
};

struct RemoteAccess {
  Processor requester;
  AllocSlot alloc = 0;
  std::uint64_t page = 0;
  AccessType access = AccessType::kRead;
  Nanos now = 0;
};

class MigrationPolicy : public PolicyHooks {
 public:
  virtual MigrationDecision decide(const FaultContext& fault, const MigrationDecision& driver_default) = 0;
  // True when decide() always returns the driver's default: the engine then
  // skips the per-fault call (resolved once at start-up).
  virtual bool keeps_driver_default() const { return false; }
  // Return true to migrate the remotely accessed region to the requester now.
  // `region_pages` (in/out) is the page range the policy wants moved, defaulting to the page.
  virtual bool on_remote_access(const RemoteAccess& /*access*/, std::uint64_t& /*first_page*/,
                                std::uint64_t& /*page_count*/) {
    return false;
  }
  virtual bool wants_remote_access_callbacks() const { return false; }
};

}  // namespace umsim::sim
