// The work a replay will do, estimated before it starts: a trace line such as
// `r A len=1GiB count=4294967295` is cheap to write and takes the model days,
// so `umsim replay` refuses a trace whose estimate exceeds a budget.
#pragma once

#include <cstdint>
#include <string>

#include "traces/trace_reader.h"

namespace umsim::trace {

// Page touches of one access: pages per pass times its count, saturating; 0 for
// a range that ends past 2^64 (every consumer refuses it with its own error).
std::uint64_t page_touches(const Event& e);

// Page touches of every access (pages per pass times passes), summed over the
// whole trace, saturating at 2^64 - 1. Reads the trace to its end.
std::uint64_t estimate_page_touches(TraceReader& reader);

// The default budget of `umsim replay --work-limit`: 10^11 page touches, about
// 7 minutes of resident hits and an hour of faulting accesses on one core.
inline constexpr std::uint64_t kDefaultWorkLimit = 100'000'000'000ull;

// "" when `touches` is within `limit` (0: no limit), otherwise the refusal:
// "TRACE: refusing to replay: ... page touches, more than the work limit of ...".
std::string work_limit_problem(const std::string& trace, std::uint64_t touches, std::uint64_t limit);

}  // namespace umsim::trace
