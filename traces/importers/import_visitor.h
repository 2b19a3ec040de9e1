// What a recorded-trace parser reports, in program order. Each format's parser
// calls these; two visitors consume them: AllocationInference's collector
// (first pass, when no allocation file is given) and PageReducer (second pass).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "traces/event.h"

namespace umsim::import {

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
