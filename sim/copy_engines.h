// Resource timelines of the copy engines serving one link direction: a copy
// starts when its data is ready and an engine is free, so concurrent
// transfers (prefetches, fault migrations, evictions) contend.
#pragma once

#include <algorithm>
#include <vector>

#include "sim/types.h"

namespace umsim::sim {

class CopyEngines {
 public:
  explicit CopyEngines(int engines = 1) : free_at_(static_cast<std::size_t>(std::max(engines, 1)), 0) {}

  // Runs a copy of `duration` that may start at `ready`; returns its end time.
  // Always in line: a replay evicting at every fault schedules two copies per fault.
  [[gnu::always_inline]] Nanos schedule(Nanos ready, Nanos duration) {
    auto it = std::min_element(free_at_.begin(), free_at_.end());
    const Nanos end = std::max(ready, *it) + duration;
    *it = end;
    return end;
  }

  Nanos busy_until() const { return *std::max_element(free_at_.begin(), free_at_.end()); }

 private:
  std::vector<Nanos> free_at_;
};

}  // namespace umsim::sim
