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
    return schedule_with(ready, [duration](Nanos start) { return start + duration; });
  }

  // The same with the copy's end given by end_of(start), for a copy whose
  // speed depends on what else uses the link then (sim/shared_link.h).
  template <class EndOf>
  [[gnu::always_inline]] Nanos schedule_with(Nanos ready, EndOf end_of) {
    // std::min_element's first least, in line (GCC called it out of line).
    Nanos* it = free_at_.data();
    for (Nanos *p = it + 1, *last = it + free_at_.size(); p != last; ++p)
      if (*p < *it) it = p;
    const Nanos end = end_of(std::max(ready, *it));
    *it = end;
    return end;
  }

  // Moves every engine's free time t to later(t): copies already scheduled
  // that a slowed link makes end later.
  template <class Later>
  void delay(Later later) {
    for (Nanos& t : free_at_) t = later(t);
  }

  Nanos busy_until() const { return *std::max_element(free_at_.begin(), free_at_.end()); }

 private:
  std::vector<Nanos> free_at_;
};

}  // namespace umsim::sim
