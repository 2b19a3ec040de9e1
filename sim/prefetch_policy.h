// Prefetch decision point. Call timing: once per VA block per serviced fault
// batch, after the batch's faults in that block have been coalesced and the
// destination chosen, before any page moves. The pages returned move together
// with the faulted ones (counted as prefetched bytes).
//
// Beyond the faulting block (optional): a policy whose beyond_block_budget() is
// non-zero (resolved once at start-up) is also asked, after a GPU fault
// batch's pages of a block have moved, for pages of other VA blocks of the same
// allocation (e.g. the next N blocks). The engine migrates them to the same
// destination in the same service, as prefetches, and charges their time to
// the faulting kernel. The budget bounds the work per serviced block: at most
// min(beyond_block_budget(), kMaxPrefetchBlocksBeyond) proposals are used (in
// the order given; later ones, blocks outside the allocation and the faulting
// block itself are ignored). Within a proposed block the engine skips pages
// already on the destination, waiting in the fault buffer, under a memory hint
// (ReadMostly, PreferredLocation, AccessedBy: the hints decide their placement),
// pinned elsewhere by the thrashing policy, or reported as thrashing.
#pragma once

#include <vector>

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

// Pages of one VA block of the request's allocation (prefetch_beyond).
struct BlockPages {
  std::uint64_t block = 0;
  PageMask pages;
};

// The most blocks one serviced block's prefetch_beyond can move (64 MiB).
inline constexpr std::uint32_t kMaxPrefetchBlocksBeyond = 32;

class PrefetchPolicy : public PolicyHooks {
 public:
  // Adds to `out` (initially empty) the extra pages to migrate with the faulted
  // ones. The engine ignores pages in `excluded`, in `faulted`, beyond
  // pages_in_block, or already resident on the destination.
  virtual void prefetch(const PrefetchRequest& request, PageMask& out) = 0;
  // True for a policy that never adds a page (`none`): the engine then builds
  // no requests at all. Read once at start-up.
  virtual bool never_prefetches() const { return false; }

  // Blocks beyond the faulting one this policy may propose per serviced block (0: never asked).
  virtual std::uint32_t beyond_block_budget() const { return 0; }
  // Appends to `out` (initially empty) pages of other blocks of request.alloc to
  // migrate to request.destination. `request` is the faulting block's, as given
  // to prefetch() (its masks describe that block only).
  virtual void prefetch_beyond(const PrefetchRequest& /*request*/, std::vector<BlockPages>& /*out*/) {}
};

}  // namespace umsim::sim
