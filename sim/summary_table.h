// The readable summary `umsim replay` prints: totals, then one row per phase
// and per kernel (the JSON holds the same numbers; scripts read the JSON).
#pragma once

#include <string>

#include "sim/result.h"

namespace umsim::sim {

// At most `max_kernels` kernel rows (the rest are summarised in one line).
std::string summary_table(const Result& r, std::size_t max_kernels = 20);

// "1.234 ms", "56.7 us", "890 ns", "12.3 s".
std::string format_time_ns(std::uint64_t ns);
// "1.00 GiB", "12.0 MiB", "4.0 KiB", "0 B".
std::string format_size(std::uint64_t bytes);

}  // namespace umsim::sim
