// Basic units and geometry of the model (driver-faithful defaults).
#pragma once

#include <bitset>
#include <cstdint>
#include <cstring>

#include "traces/event.h"

namespace umsim::sim {

using trace::AccessType;
using trace::Bytes;
using trace::Nanos;
using trace::Processor;

inline constexpr Bytes kPageSize = trace::kPageSize;        // 4 KiB base page
inline constexpr Bytes kBigPageSize = 64 * 1024;            // 64 KiB big page
inline constexpr Bytes kBlockSize = 2 * 1024 * 1024;        // 2 MiB VA block / root chunk
inline constexpr std::uint32_t kPagesPerBlock = kBlockSize / kPageSize;       // 512
inline constexpr std::uint32_t kPagesPerBigPage = kBigPageSize / kPageSize;   // 16
inline constexpr int kMaxGpus = 15;  // processor masks are 16 bits: bit 0 = CPU, bit 1+g = GPU g

// One bit per 4 KiB page of a 2 MiB VA block.
using PageMask = std::bitset<kPagesPerBlock>;

// Word w of a mask (pages 64w .. 64w + 63), and its replacement, in place:
// word-wise combinations of several masks without std::bitset's temporaries
// (libstdc++ stores bitset<512> as eight 64-bit words, bit i in word i/64).
static_assert(sizeof(PageMask) == kPagesPerBlock / 8, "unexpected std::bitset layout");
[[gnu::always_inline]] inline std::uint64_t mask_word(const PageMask& mask, std::uint32_t w) {
  std::uint64_t x;
  std::memcpy(&x, reinterpret_cast<const char*>(&mask) + w * sizeof(x), sizeof(x));
  return x;
}
[[gnu::always_inline]] inline void set_mask_word(PageMask& mask, std::uint32_t w, std::uint64_t x) {
  std::memcpy(reinterpret_cast<char*>(&mask) + w * sizeof(x), &x, sizeof(x));
}

// The pages of a mask's word w (pages 64w .. 64w + 63) below `pages` (a short
// last block's tail excluded), as a mask.
inline std::uint64_t pages_below_in_word(std::uint32_t pages, std::uint32_t w) {
  const std::uint32_t lo = w * 64;
  if (pages <= lo) return 0;
  return pages - lo >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << (pages - lo)) - 1;
}

// Dense allocation slot assigned by the engine in allocation order (never reused in a run).
using AllocSlot = std::uint32_t;

// Bit of a processor in 16-bit processor masks.
constexpr std::uint16_t processor_bit(Processor p) { return static_cast<std::uint16_t>(1u << p.code); }

}  // namespace umsim::sim
