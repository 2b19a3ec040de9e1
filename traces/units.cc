#include "traces/units.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>

namespace umsim::trace {
namespace {

struct Unit {
  std::string_view suffix;
  std::uint64_t scale;
};

constexpr Unit kByteUnits[] = {{"TiB", 1ull << 40}, {"GiB", 1ull << 30}, {"MiB", 1ull << 20},
                               {"KiB", 1ull << 10}, {"B", 1}};
constexpr Unit kTimeUnits[] = {{"ns", 1}, {"us", 1000}, {"ms", 1000000}, {"s", 1000000000}};

// Splits "1.5ms" into number "1.5" and suffix "ms".
std::pair<std::string_view, std::string_view> split_number(std::string_view text) {
  std::size_t i = 0;
  while (i < text.size() && (std::isdigit(static_cast<unsigned char>(text[i])) || text[i] == '.')) ++i;
  return {text.substr(0, i), text.substr(i)};
}

// Durations below a nanosecond (a page touch's cost): decimal, in ns.
struct FineUnit {
  std::string_view suffix;
  long double scale;
};
constexpr FineUnit kFineTimeUnits[] = {
    {"ps", 1e-3L}, {"ns", 1}, {"us", 1e3L}, {"ms", 1e6L}, {"s", 1e9L}};

// The checks every quantity with units shares: not empty, not negative, a
// number, one decimal point at most, a known unit (none: the base unit).
// Returns the number's digits and sets `scale`, or sets `error`.
template <typename U, std::size_t N>
std::string_view split_quantity(std::string_view text, const U (&units)[N], std::string_view what,
                                std::string_view expected, decltype(U::scale)& scale, std::string& error) {
  if (text.empty()) {
    error = std::string("empty ") + std::string(what);
    return {};
  }
  if (text[0] == '-') {
    error = std::string("negative ") + std::string(what) + " '" + std::string(text) + "'";
    return {};
  }
  auto [number, suffix] = split_number(text);
  if (number.empty() || number == ".") {
    error = "expected a number in " + std::string(what) + " '" + std::string(text) + "'";
    return {};
  }
  scale = 0;
  if (suffix.empty()) {
    scale = 1;
  } else {
    for (const auto& u : units)
      if (suffix == u.suffix) scale = u.scale;
  }
  if (scale == 0) {
    error = "unknown unit '" + std::string(suffix) + "' in '" + std::string(text) + "' (expected " +
            std::string(expected) + ")";
    return {};
  }
  if (number.find('.') != number.rfind('.')) {
    error = "malformed number in " + std::string(what) + " '" + std::string(text) + "'";
    return {};
  }
  return number;
}

template <std::size_t N>
ParsedNumber parse_with_units(std::string_view text, const Unit (&units)[N], std::string_view what,
                              std::string_view expected) {
  ParsedNumber r;
  std::uint64_t scale = 0;
  const std::string_view number = split_quantity(text, units, what, expected, scale, r.error);
  if (!r.ok()) return r;
  const std::string num(number);
  if (num.find('.') == std::string::npos) {
    std::uint64_t v = 0;
    for (char c : num) {
      const std::uint64_t d = static_cast<std::uint64_t>(c - '0');
      if (v > (std::numeric_limits<std::uint64_t>::max() - d) / 10) {
        r.error = std::string(what) + " '" + std::string(text) + "' is too large";
        return r;
      }
      v = v * 10 + d;
    }
    if (v != 0 && scale > std::numeric_limits<std::uint64_t>::max() / v) {
      r.error = std::string(what) + " '" + std::string(text) + "' is too large";
      return r;
    }
    r.value = v * scale;
    return r;
  }
  const long double v = std::stold(num) * static_cast<long double>(scale);
  if (v > static_cast<long double>(std::numeric_limits<std::uint64_t>::max())) {
    r.error = std::string(what) + " '" + std::string(text) + "' is too large";
    return r;
  }
  const long double rounded = std::round(v);
  if (std::fabs(v - rounded) > 1e-6L) {
    r.error = std::string(what) + " '" + std::string(text) + "' is not a whole number of " +
              (scale == 1 ? std::string("units") : std::string(units[N - 1].suffix));
    return r;
  }
  r.value = static_cast<std::uint64_t>(rounded);
  return r;
}

template <std::size_t N>
std::string format_with_units(std::uint64_t value, const Unit (&units)[N], bool largest_first) {
  if (value == 0) return largest_first ? "0B" : "0ns";
  const Unit* best = nullptr;
  for (const auto& u : units)
    if (value % u.scale == 0 && (best == nullptr || u.scale > best->scale)) best = &u;
  return std::to_string(value / best->scale) + std::string(best->suffix);
}

}  // namespace

ParsedNumber parse_bytes(std::string_view text) {
  return parse_with_units(text, kByteUnits, "size", "B, KiB, MiB, GiB or TiB");
}

ParsedNumber parse_duration_ns(std::string_view text) {
  return parse_with_units(text, kTimeUnits, "duration", "ns, us, ms or s");
}

ParsedFineDuration parse_fine_duration_ns(std::string_view text) {
  ParsedFineDuration r;
  long double scale = 0;
  const std::string_view number =
      split_quantity(text, kFineTimeUnits, "duration", "ps, ns, us, ms or s", scale, r.error);
  if (!r.ok()) return r;
  const long double v = std::stold(std::string(number)) * scale;
  if (!std::isfinite(static_cast<double>(v))) {
    r.error = "duration '" + std::string(text) + "' is too large";
    return r;
  }
  r.ns = static_cast<double>(v);
  return r;
}

ParsedNumber parse_unsigned(std::string_view text) {
  ParsedNumber r;
  if (text.empty()) {
    r.error = "expected a number";
    return r;
  }
  if (text[0] == '-') {
    r.error = "negative number '" + std::string(text) + "'";
    return r;
  }
  int base = 10;
  std::string_view digits = text;
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    base = 16;
    digits = text.substr(2);
  }
  std::uint64_t v = 0;
  for (char c : digits) {
    int d;
    if (c >= '0' && c <= '9') d = c - '0';
    else if (base == 16 && c >= 'a' && c <= 'f') d = c - 'a' + 10;
    else if (base == 16 && c >= 'A' && c <= 'F') d = c - 'A' + 10;
    else {
      r.error = "expected a number, got '" + std::string(text) + "'";
      return r;
    }
    if (v > (std::numeric_limits<std::uint64_t>::max() - d) / base) {
      r.error = "number '" + std::string(text) + "' is too large";
      return r;
    }
    v = v * base + d;
  }
  r.value = v;
  return r;
}

std::string format_bytes(std::uint64_t bytes) { return format_with_units(bytes, kByteUnits, true); }
std::string format_duration_ns(std::uint64_t ns) { return format_with_units(ns, kTimeUnits, false); }

std::string describe_bytes(std::uint64_t bytes) {
  std::string short_form = format_bytes(bytes);
  std::size_t digits = 0;
  while (digits < short_form.size() && std::isdigit(static_cast<unsigned char>(short_form[digits]))) ++digits;
  if (digits <= 4) return short_form;
  char hex[16];
  const auto end = std::to_chars(hex, hex + sizeof hex, bytes, 16).ptr;
  return std::to_string(bytes) + "B (0x" + std::string(hex, end) + ")";
}

}  // namespace umsim::trace
