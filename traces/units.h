// Sizes and durations with units, as written in traces, profiles and on the
// command line: "64MiB", "4KiB", "512B", "200us", "1.5ms". Binary prefixes only
// for sizes (KiB, MiB, GiB, TiB); a bare number is bytes / nanoseconds.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace umsim::trace {

// Parse results carry an error message instead of throwing, so callers can add
// their own location ("file:line: ...").
struct ParsedNumber {
  std::uint64_t value = 0;
  std::string error;  // empty on success
  bool ok() const { return error.empty(); }
};

// A duration that may take fractions of a nanosecond: "0.093ns", "93ps",
// "1.5us" (ps, ns, us, ms or s; a bare number is ns).
struct ParsedFineDuration {
  double ns = 0;
  std::string error;  // empty on success
  bool ok() const { return error.empty(); }
};

ParsedNumber parse_bytes(std::string_view text);     // "64MiB" -> 67108864
ParsedNumber parse_duration_ns(std::string_view text);  // "200us" -> 200000
ParsedFineDuration parse_fine_duration_ns(std::string_view text);  // "93ps" -> 0.093
ParsedNumber parse_unsigned(std::string_view text);  // decimal or 0x hex, no unit

// Canonical spellings used by the text writer: the largest unit that divides exactly.
std::string format_bytes(std::uint64_t bytes);       // 67108864 -> "64MiB", 4097 -> "4097B"
std::string format_duration_ns(std::uint64_t ns);    // 200000 -> "200us"

// Sizes and offsets in messages: format_bytes where that has at most four
// digits ("64MiB", "4097B"), otherwise the exact bytes with their hex
// (18446744073709547520 -> "18446744073709547520B (0xfffffffffffff000)", not
// "18014398509481980KiB"), so that a huge or odd value reads as what it is.
std::string describe_bytes(std::uint64_t bytes);

}  // namespace umsim::trace
