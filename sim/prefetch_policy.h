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

// A request with a few faulted pages, nothing excluded or thrashing and no
// preferred location (preferred_location_elsewhere and destination_is_preferred
// false): the common fault of a replay over a large footprint. Its masks are
// the block's own, read in place (no 512-page copies per fault).
inline constexpr std::uint32_t kMaxQuietFaults = 16;
struct QuietFaultRequest {
  AllocSlot alloc = 0;
  std::uint64_t block = 0;
  std::uint32_t pages_in_block = kPagesPerBlock;
  Processor destination;
  const std::uint32_t* faulted = nullptr;    // the faulted pages' indices in the block, ascending
  std::uint32_t faulted_count = 0;           // 1..kMaxQuietFaults
  const PageMask& resident_on_destination;   // as PrefetchRequest's
  const PageMask& resident_anywhere;         // as PrefetchRequest's
  std::uint32_t fault_migrations_to_destination = 0;
  Nanos now = 0;
};

// Pages [first, end) of a block, and up to kMaxQuietFaults of them.
struct PageRange {
  std::uint32_t first, end;  // not cleared: a PageRanges is made per fault service and read up to its count
};
struct PageRanges {
  PageRange range[kMaxQuietFaults];
  std::uint32_t count = 0;
  void add(std::uint32_t first, std::uint32_t end) { range[count++] = {first, end}; }
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
  // prefetch() for a QuietFaultRequest, answered as ranges: true where the
  // ranges' pages, less the faulted ones and those resident on the
  // destination, are exactly the pages prefetch() would add to the same
  // request (no range: none); false where the policy has no such answer (the
  // engine then builds the whole request and calls prefetch()). At most
  // kMaxQuietFaults ranges. It must not change the policy's state: the engine
  // may still take the general path.
  virtual bool prefetch_quiet(const QuietFaultRequest& /*request*/, PageRanges& /*out*/) const { return false; }
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
