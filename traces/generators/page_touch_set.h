// Collects the pages one kernel (or one CPU phase) touches, per allocation and
// access type, and emits them as few page-granular range accesses: one per run
// of consecutive pages, ascending. Irregular generators (random, graph, hash
// join) and the importers reduce scattered addresses to a trace this way.
// Memory: one bit per page of each registered allocation; clearing costs only
// the words that were touched.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "traces/event.h"
#include "traces/generators/trace_emitter.h"

namespace umsim::gen {

class PageTouchSet {
 public:
  // Registers an allocation of `size` bytes; returns its index for touch().
  std::size_t add(std::string name, Bytes size);
  std::size_t allocations() const { return allocs_.size(); }
  const std::string& name(std::size_t alloc) const { return allocs_[alloc].name; }

  // Marks every page overlapping [offset, offset + length) (clamped to the allocation).
  void touch(std::size_t alloc, Bytes offset, Bytes length, AccessType type);
  void touch_page(std::size_t alloc, std::uint64_t page, AccessType type);

  bool empty() const;
  // Emits the collected runs (allocations in registration order; reads, then
  // writes, then atomics) through `out`, then clears the set.
  void flush(TraceEmitter& out);
  // Distinct pages currently collected (all types).
  std::uint64_t pages_collected() const;

 private:
  struct Bits {
    std::vector<std::uint64_t> words;
    std::vector<std::uint32_t> dirty;  // indices of words with a bit set, unsorted
  };
  struct Alloc {
    std::string name;
    Bytes size = 0;
    std::uint64_t pages = 0;
    Bits by_type[3];
  };
  std::vector<Alloc> allocs_;
};

}  // namespace umsim::gen
