// A hint to the CPU cache that `p` will be read soon. GCC 12 drops
// __builtin_prefetch when the address comes from loads it can prove are used
// by nothing else (measured: the replay loop's page-record prefetch vanished
// at -O2), so x86-64 issues the instruction itself; the operand is an address,
// never dereferenced (a prefetch does not fault).
#pragma once

#include <cstdint>

namespace umsim::sim {

inline void prefetch_for_read(const void* p) {
#if defined(__x86_64__)
  asm volatile("prefetcht0 %0" : : "m"(*static_cast<const char*>(p)));
#else
  __builtin_prefetch(p);
#endif
}

// The same for base[index], with the index unchecked: a prefetch does not
// fault, so an index past the array only wastes the hint (the replay loop's
// look-ahead saves a bounds check per access). The address is computed as an
// integer: pointer arithmetic past the array would be undefined.
template <typename T>
inline void prefetch_element(const T* base, std::uint64_t index) {
  prefetch_for_read(reinterpret_cast<const void*>(reinterpret_cast<std::uintptr_t>(base) + index * sizeof(T)));
}

// The same for each cache line of `*p`, a record of up to a line that may
// straddle two (GpuMemory's 40-byte chunk records: every other one does),
// where prefetch_for_read(p) would bring its first line only.
template <typename T>
inline void prefetch_record(const T* p) {
  static_assert(sizeof(T) <= 64, "a record of one or two cache lines");
  prefetch_for_read(p);
  prefetch_for_read(reinterpret_cast<const char*>(p) + sizeof(T) - 1);
}

}  // namespace umsim::sim
