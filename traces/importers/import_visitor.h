// What a recorded-trace parser reports, in program order. Each format's parser
// calls these; two visitors consume them: AllocationInference's collector
// (first pass, when no allocation file is given) and PageReducer (second pass).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "traces/event.h"

namespace umsim::import {

// Addresses at or above 2^60 are no GPU virtual address (x86-64 and the GPU
// MMU use at most 57 bits); rejecting them keeps range arithmetic from overflowing.
inline constexpr std::uint64_t kMaxAddress = std::uint64_t{1} << 60;

class ImportVisitor {
 public:
  virtual ~ImportVisitor() = default;
  // A kernel starts; the previous one (if any) has ended.
  virtual void kernel_begin(std::string_view name, int gpu, trace::StreamId stream) = 0;
  virtual void kernel_end() = 0;
  // One access of `size` bytes at absolute address `address`, by the current
  // kernel (gpu = true) or by the CPU. `where` is "file:line" for messages.
  virtual void access(bool gpu, std::uint64_t address, std::uint64_t size, trace::AccessType type,
                      const std::string& where) = 0;
};

}  // namespace umsim::import
