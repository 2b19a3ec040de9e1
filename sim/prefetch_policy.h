// Prefetch decision point. Call timing: once per VA block per serviced fault
// batch, after the batch's faults in that block have been coalesced and the
// destination chosen, before any page moves. The pages returned move together
// with the faulted ones (counted as prefetched bytes).
#pragma once

#include "sim/policy_hooks.h"

namespace umsim::sim {

struct PrefetchRequest {
  AllocSlot alloc = 0;
  std::uint64_t block = 0;              // VA block index within the allocation
  std::uint32_t pages_in_block = kPagesPerBlock;  // < 512 for a short last block
  Processor destination;                // where the faulted pages go
  PageMask faulted;                     // pages faulted in this batch and migrating to destination
  PageMask resident_on_destination;     // already resident there before this batch
  PageMask resident_anywhere;           // populated on some processor (before this batch)
  PageMask excluded;                    // never prefetch: thrashing pages, pages pinned elsewhere,
                                        // CPU-mapped pages when destination is the CPU
  PageMask thrashing;                   // subset of `excluded` the thrashing policy reports; the driver's
                                        // tree prefetcher also skips growing big pages that hold one
  bool preferred_location_elsewhere = false;  // block's preferred location is another processor
  bool destination_is_preferred = false;      // destination is the block's preferred location
  std::uint32_t fault_migrations_to_destination = 0;  // consecutive fault-driven migrations of
                                                      // this block to the same destination, this one included
                                                      // (the driver counts faulted pages; reset when the
                                                      // destination changes)
  Nanos now = 0;
};

class PrefetchPolicy : public PolicyHooks {
 public:
  // Adds to `out` (initially empty) the extra pages to migrate with the faulted
  // ones. The engine ignores pages in `excluded`, in `faulted`, beyond
  // pages_in_block, or already resident on the destination.
  virtual void prefetch(const PrefetchRequest& request, PageMask& out) = 0;
  // True for a policy that never adds a page (`none`): the engine then builds
  // no requests at all. Read once at start-up.
  virtual bool never_prefetches() const { return false; }
};

}  // namespace umsim::sim
