// Lifecycle hooks every policy may implement. The engine calls them for every
// allocation of kind managed, so stateful policies can size flat per-allocation
// arrays instead of hashing page numbers.
#pragma once

#include "sim/types.h"

namespace umsim::sim {

class PolicyHooks {
 public:
  virtual ~PolicyHooks() = default;
  // After `alloc` is created with `pages` 4 KiB pages (blocks = ceil(pages / 512)).
  virtual void on_allocation_created(AllocSlot /*alloc*/, std::uint64_t /*pages*/) {}
  // After `alloc` is freed (its chunks were already released through the eviction hooks).
  virtual void on_allocation_freed(AllocSlot /*alloc*/) {}
};

}  // namespace umsim::sim
