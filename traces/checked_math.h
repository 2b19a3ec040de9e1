// Overflow-checked arithmetic on sizes, offsets and counts. Every such
// computation on values that come from a trace or the command line goes
// through these (traces/, sim/, hip_backend/): a 64-bit wrap turns a huge
// size into a tiny one, which slips past every limit and then indexes memory
// that does not exist.
#pragma once

#include <cstdint>
#include <optional>

namespace umsim {

// a + b, or nullopt when it does not fit in 64 bits.
constexpr std::optional<std::uint64_t> checked_add(std::uint64_t a, std::uint64_t b) {
  std::uint64_t r = 0;
  if (__builtin_add_overflow(a, b, &r)) return std::nullopt;
  return r;
}

// a * b, or nullopt when it does not fit in 64 bits.
constexpr std::optional<std::uint64_t> checked_mul(std::uint64_t a, std::uint64_t b) {
  std::uint64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r)) return std::nullopt;
  return r;
}

// ceil(a / b) for b > 0; never overflows.
constexpr std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) { return a / b + (a % b != 0); }

// value rounded up to a multiple of unit (> 0), or nullopt when that does not fit in 64 bits.
constexpr std::optional<std::uint64_t> checked_round_up(std::uint64_t value, std::uint64_t unit) {
  return checked_mul(ceil_div(value, unit), unit);
}

// a + b and a * b clamped to 2^64 - 1: for estimates and counters that must
// not wrap but may saturate (a work estimate past 2^64 is "too much" either way).
constexpr std::uint64_t saturating_add(std::uint64_t a, std::uint64_t b) {
  return checked_add(a, b).value_or(UINT64_MAX);
}
constexpr std::uint64_t saturating_mul(std::uint64_t a, std::uint64_t b) {
  return checked_mul(a, b).value_or(UINT64_MAX);
}

}  // namespace umsim
