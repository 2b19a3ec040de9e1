// Allocations of a recorded program by virtual address: given by a side file
// or inferred from the addresses the trace touches. Importers translate
// absolute addresses into (allocation, offset) through it.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "traces/event.h"

namespace umsim::import {

struct Allocation {
  std::string name;
  std::uint64_t base = 0;
  std::uint64_t size = 0;
  trace::AllocKind kind = trace::AllocKind::kManaged;
};

class AddressMap {
 public:
  // Adds an allocation; throws std::invalid_argument if it overlaps another or is empty.
  void add(Allocation a);
  // The allocation holding `address`, or nullptr.
  const Allocation* find(std::uint64_t address) const;
  std::size_t index_of(const Allocation* a) const { return static_cast<std::size_t>(a - allocs_.data()); }
  const std::vector<Allocation>& allocations() const { return allocs_; }
  bool empty() const { return allocs_.empty(); }

 private:
  std::vector<Allocation> allocs_;  // sorted by base, non-overlapping
};

// Reads a side file of allocations, one per line: NAME BASE SIZE [KIND]
// (BASE decimal or 0x hex, SIZE with units, KIND managed|device|pinned|mapped,
// default managed; '#' starts a comment). Throws TraceError with file:line.
AddressMap read_allocation_file(const std::string& path);

// Collects the address ranges a trace touches and clusters them into
// allocations: ranges closer than `gap` bytes join one allocation, whose base
// and end are aligned to 64 KiB (the driver's big-page size). Names are
// region0, region1, ... in address order.
class AllocationInference {
 public:
  explicit AllocationInference(std::uint64_t gap) : gap_(gap) {}
  void touch(std::uint64_t address, std::uint64_t size);
  AddressMap result() const;
  bool empty() const { return ranges_.empty(); }

 private:
  std::uint64_t gap_;
  std::map<std::uint64_t, std::uint64_t> ranges_;  // begin -> end, disjoint, merged within `gap`
};

inline constexpr std::uint64_t kInferenceAlignment = 64 * 1024;

}  // namespace umsim::import
