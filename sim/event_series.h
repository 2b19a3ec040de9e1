// The CSV event series written by `replay --events OUT.csv`: one row per
// finished kernel, prefetch, GPU fault batch and phase, with the scope's
// counters and the stream that carried it (the per-stream timeline that
// tools/plot_timeline.py draws).
#pragma once

#include <ostream>

#include "sim/result.h"
#include "sim/types.h"

namespace umsim::sim {

class EventSeries {
 public:
  explicit EventSeries(std::ostream& out);
  // stream < 0: none (phases).
  void row(const char* kind, const ScopeResult& scope, Nanos end_ns, std::int64_t stream = -1);

 private:
  std::ostream& out_;
};

}  // namespace umsim::sim
