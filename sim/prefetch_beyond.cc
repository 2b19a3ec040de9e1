// Prefetches beyond the faulting VA block (PrefetchPolicy::prefetch_beyond):
// after a GPU fault batch's pages of a block have moved, the policy may propose
// pages of other blocks of the same allocation; they migrate to the same GPU
// in the same service, within the policy's block budget.
#include <algorithm>

#include "sim/engine.h"

namespace umsim::sim {

void Engine::prefetch_beyond(const PrefetchRequest& request, Nanos& now) {
  beyond_blocks_.clear();
  prefetch_->prefetch_beyond(request, beyond_blocks_);
  if (beyond_blocks_.empty()) return;
  const AllocSlot slot = request.alloc;
  Allocation& a = allocs_[slot];
  const Processor dest = request.destination;
  const ProcessorMask dbit = processor_bit(dest);
  const std::size_t used = std::min<std::size_t>(beyond_blocks_.size(), prefetch_beyond_budget_);
  for (std::size_t k = 0; k < used; ++k) {
    const std::uint64_t block = beyond_blocks_[k].block;
    if (block >= a.blocks.size() || block == request.block) continue;
    const BlockState& bs = a.blocks[block];
    const std::uint64_t base = block * kPagesPerBlock;
    PageMask pages = beyond_blocks_[k].pages;
    if (const std::uint32_t n = a.pages_in_block(block); n < kPagesPerBlock) pages &= PageMask().set() >> (kPagesPerBlock - n);
    if (thrashing_) {
      PageMask thrashing;
      thrashing_->thrashing_pages(slot, block, now, thrashing);
      pages &= ~thrashing;
    }
    Processor from = Processor::none();
    Bytes prefetched = 0;
    for (std::size_t i = pages._Find_first(); i < kPagesPerBlock; i = pages._Find_next(i)) {
      const PageState& st = a.pages[base + i];
      const bool pinned = (st.flags & kPinned) && bs.pin_until > now;
      if ((st.copies & dbit) || (st.flags & kInFaultBuffer) || st.advised() || pinned) {
        pages.reset(i);
        continue;
      }
      if (st.copies) {
        prefetched += kPageSize;  // populating an untouched page moves nothing
        if (from.is_none()) from = first_processor(st.copies);
      }
    }
    if (pages.none()) continue;
    now = move_pages(slot, block, pages, dest, false, now);
    kernel_counters_.bytes_prefetched += prefetched;
    notify_thrashing(slot, block, pages, from, dest, MigrationCause::kPrefetchPolicy, dest, now);
  }
}

}  // namespace umsim::sim
