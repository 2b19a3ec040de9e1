#include "traces/work_estimate.h"

#include <vector>

#include "traces/checked_math.h"

namespace umsim::trace {

std::uint64_t page_touches(const Event& e) {
  if (e.length == 0) return 0;
  std::uint64_t per_pass;
  if (e.stride <= kPageSize) {
    // A range past 2^64 is refused by every consumer, with its own error naming the
    // line: it makes no work (a saturated estimate would refuse it for the wrong reason).
    const auto last = checked_add(e.offset, e.length - 1);
    if (!last) return 0;
    per_pass = *last / kPageSize - e.offset / kPageSize + 1;
  } else {
    per_pass = ceil_div(e.length, e.stride);  // one touch per stride step, each on its own page
  }
  return saturating_mul(per_pass, e.count);
}

std::uint64_t estimate_page_touches(TraceReader& reader) {
  std::vector<Event> batch(4096);
  std::uint64_t touches = 0;
  while (const std::size_t n = reader.read(batch))
    for (std::size_t i = 0; i < n; ++i)
      if (batch[i].kind == EventKind::kGpuAccess || batch[i].kind == EventKind::kCpuAccess)
        touches = saturating_add(touches, page_touches(batch[i]));
  return touches;
}

std::string work_limit_problem(const std::string& trace, std::uint64_t touches, std::uint64_t limit) {
  if (limit == 0 || touches <= limit) return "";
  const std::string amount = touches == UINT64_MAX ? "more than 18446744073709551614" : std::to_string(touches);
  return trace + ": refusing to replay: the trace makes " + amount +
         " page touches (pages per access times its count), more than the work limit of " + std::to_string(limit) +
         "; raise it with --work-limit N (0: no limit)";
}

}  // namespace umsim::trace
