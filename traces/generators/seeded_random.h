// Portable deterministic randomness for generators: the same seed gives the
// same trace on every platform and standard library (std:: distributions are
// implementation-defined, so none are used).
#pragma once

#include <cstdint>

namespace umsim::gen {

// SplitMix64 finaliser: a good 64-bit mix, used both as a hash and as a stream.
constexpr std::uint64_t mix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// A stateless hash of (seed, a, b): random access into a virtual random sequence.
constexpr std::uint64_t hash3(std::uint64_t seed, std::uint64_t a, std::uint64_t b = 0) {
  return mix64(mix64(mix64(seed) ^ a) ^ (b * 0xd6e8feb86659fd93ULL));
}

// Uniform double in [0, 1) from 53 high bits.
constexpr double to_unit(std::uint64_t x) { return static_cast<double>(x >> 11) * 0x1.0p-53; }

// Uniform integer in [0, n) (multiply-shift; bias is below 2^-64 * n).
inline std::uint64_t to_range(std::uint64_t x, std::uint64_t n) {
  return static_cast<std::uint64_t>((static_cast<unsigned __int128>(x) * n) >> 64);
}

class SeededRandom {
 public:
  explicit SeededRandom(std::uint64_t seed) : state_(mix64(seed ^ 0x5851f42d4c957f2dULL)) {}
  std::uint64_t next() { return mix64(state_ += 0x9e3779b97f4a7c15ULL); }
  std::uint64_t below(std::uint64_t n) { return to_range(next(), n); }
  double unit() { return to_unit(next()); }

 private:
  std::uint64_t state_;
};

}  // namespace umsim::gen
