// The CSV event series written by `replay --events OUT.csv`: one row per
// finished kernel and per phase, with the scope's counters.
#pragma once

#include <ostream>

#include "sim/result.h"
#include "sim/types.h"

namespace umsim::sim {

class EventSeries {
 public:
  explicit EventSeries(std::ostream& out);
  void row(const char* kind, const ScopeResult& scope, Nanos end_ns);

 private:
  std::ostream& out_;
};

}  // namespace umsim::sim
