// Reduces absolute-address accesses to a page-granular umsim trace: every
// kernel's touched pages per allocation and access type become a few range
// accesses (PageTouchSet), consecutive CPU accesses likewise. Allocations come
// first in the trace (from the AddressMap), frees last.
#pragma once

#include <cstdint>
#include <string>

#include "traces/generators/page_touch_set.h"
#include "traces/generators/trace_emitter.h"
#include "traces/importers/address_map.h"
#include "traces/importers/import_visitor.h"
#include "traces/trace_error.h"

namespace umsim::import {

struct ReduceStats {
  std::uint64_t accesses = 0;          // accesses mapped into an allocation
  std::uint64_t outside = 0;           // accesses outside every allocation (ignored)
  std::string first_outside;           // "file:line" of the first one
  std::uint64_t kernels = 0;
};

// The most bytes of allocations an import takes: PageTouchSet holds a bit per
// page and access type of each, 384 MiB at 4 TiB (beyond any GPU's memory).
inline constexpr std::uint64_t kMaxImportedBytes = std::uint64_t{4} << 40;

// Allocations beyond kMaxImportedBytes; what() names the allocation, not the file.
class PageSetTooLarge : public trace::TraceError {
 public:
  using trace::TraceError::TraceError;
};

class PageReducer : public ImportVisitor {
 public:
  // With `strict`, an access outside every allocation throws TraceError.
  // Device allocations are placed on GPU `gpu`. Throws PageSetTooLarge when the
  // allocations add up to more than kMaxImportedBytes.
  PageReducer(gen::TraceEmitter& out, const AddressMap& map, bool strict, int gpu = 0);
  void kernel_begin(std::string_view name, int gpu, trace::StreamId stream) override;
  void kernel_end() override;
  void access(bool gpu, std::uint64_t address, std::uint64_t size, trace::AccessType type,
              const std::string& where) override;
  // Flushes what is pending and frees the allocations.
  void finish();
  const ReduceStats& stats() const { return stats_; }

 private:
  void flush_cpu();
  gen::TraceEmitter& out_;
  const AddressMap& map_;
  bool strict_;
  gen::PageTouchSet pages_;
  bool in_kernel_ = false;
  bool kernels_unsynced_ = false;
  ReduceStats stats_;
};

// The first pass: feeds every access into an AllocationInference.
class AddressCollector : public ImportVisitor {
 public:
  explicit AddressCollector(AllocationInference& inference) : inference_(inference) {}
  void kernel_begin(std::string_view, int, trace::StreamId) override {}
  void kernel_end() override {}
  void access(bool, std::uint64_t address, std::uint64_t size, trace::AccessType, const std::string& where) override;

 private:
  AllocationInference& inference_;
};

}  // namespace umsim::import
