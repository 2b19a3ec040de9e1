// Which names a trace may hold, and how the text encoding spells them.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace umsim::trace {

inline constexpr std::size_t kMaxNameLength = 4096;
// The longest comment line; with its '# ' and indentation it fits the text
// reader's 1 MiB line limit.
inline constexpr std::size_t kMaxCommentBytes = (1 << 20) - 64;

// Empty if `name` is acceptable, otherwise why not. Names are 1..4096 bytes
// without control characters (they must fit on one text line).
std::string name_problem(std::string_view name);

// The text spelling: bare when it is a plain token, otherwise "quoted" with
// \" and \\ escapes (for names with spaces, '#', '+', '=', quotes ...).
std::string quote_name_if_needed(std::string_view name);

}  // namespace umsim::trace
