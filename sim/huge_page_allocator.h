// An allocator for the replay's large flat arrays (page records, chunk slots,
// recency links): an array of 2 MiB or more is placed on 2 MiB boundaries and
// advised as transparent huge pages (madvise, where the kernel's setting is
// "madvise", as on Debian). A page-granular replay touches these arrays at
// random: with 4 KiB pages the Zipf benchmark's ~26 MiB of them span ~6,500
// pages, past the data TLB, and perf put a third of the replay loop's samples
// on prefetch instructions, which wait for their address translation (a page
// walk, two-dimensional in a VM), not for their data.
// Smaller arrays take std::allocator's memory as before. Only placement
// changes: contents, and so results, are the same.
#pragma once

#include <sys/mman.h>

#include <cstddef>
#include <cstdlib>
#include <memory>
#include <new>
#include <vector>

namespace umsim::sim {

template <typename T>
struct HugePageAllocator {
  using value_type = T;
  static constexpr std::size_t kHugePage = std::size_t{2} << 20;

  HugePageAllocator() = default;
  template <typename U>
  HugePageAllocator(const HugePageAllocator<U>&) noexcept {}

  T* allocate(std::size_t n) {
    if (n * sizeof(T) < kHugePage) return std::allocator<T>{}.allocate(n);
    const std::size_t bytes = (n * sizeof(T) + kHugePage - 1) & ~(kHugePage - 1);
    void* p = std::aligned_alloc(kHugePage, bytes);
    if (!p) throw std::bad_alloc();
    madvise(p, bytes, MADV_HUGEPAGE);  // a hint: without it (or THP) the pages are 4 KiB
    return static_cast<T*>(p);
  }
  void deallocate(T* p, std::size_t n) noexcept {
    if (n * sizeof(T) < kHugePage) return std::allocator<T>{}.deallocate(p, n);
    std::free(p);
  }
  template <typename U>
  bool operator==(const HugePageAllocator<U>&) const noexcept { return true; }
};

// A vector whose storage, once 2 MiB or more, sits on huge pages.
template <typename T>
using HugePageVector = std::vector<T, HugePageAllocator<T>>;

}  // namespace umsim::sim
