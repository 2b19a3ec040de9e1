// The debug invariant checker (--check-invariants; always on in tests):
// capacity never exceeded, chunk bookkeeping matches the pages, every
// populated page has a copy, mappings point at copies, duplicates only for
// read-mostly pages, device memory stays home.
#include <fmt/format.h>

#include "sim/engine.h"

namespace umsim::sim {

void Engine::check_invariants() const {
  for (std::size_t g = 0; g < gpus_.size(); ++g) {
    const GpuMemory& m = gpus_[g].memory;
    if (m.allocated() > m.capacity())
      throw InvariantViolation(fmt::format("gpu{} uses {} chunks but has {}", g, m.allocated(), m.capacity()));
    std::uint32_t allocated = 0;
    for (std::uint32_t s = 0; s < m.slots_created(); ++s) {
      const PhysicalChunk& c = m.chunk(s);
      if (!c.allocated) continue;
      ++allocated;
      if (c.busy) throw InvariantViolation(fmt::format("gpu{} chunk {} still marked busy", g, s));
      if (c.alloc >= allocs_.size() || !allocs_[c.alloc].live)
        throw InvariantViolation(fmt::format("gpu{} chunk {} belongs to a freed allocation", g, s));
      const Allocation& a = allocs_[c.alloc];
      if (a.chunk_slot[g][c.first_page >> chunk_shift_] != s)
        throw InvariantViolation(fmt::format("gpu{} chunk {} is not the chunk of '{}' page {}", g, s, a.name, c.first_page));
    }
    if (allocated != m.allocated())
      throw InvariantViolation(fmt::format("gpu{} counts {} chunks in use but holds {}", g, m.allocated(), allocated));
  }
  for (std::size_t i = 0; i < allocs_.size(); ++i)
    if (allocs_[i].live) check_allocation(static_cast<AllocSlot>(i), allocs_[i]);
}

void Engine::check_allocation(AllocSlot slot, const Allocation& a) const {
  const ProcessorMask gpu_bits = static_cast<ProcessorMask>(((1u << gpus_.size()) - 1) << 1);
  std::vector<std::uint32_t> resident;
  for (std::size_t g = 0; g < a.chunk_slot.size(); ++g) {
    resident.assign(a.chunk_slot[g].size(), 0);
    const ProcessorMask gbit = static_cast<ProcessorMask>(1u << (g + 1));
    for (std::uint64_t p = 0; p < a.page_count; ++p) {
      if (a.gpu_resident[g][p / kPagesPerBlock].test(p % kPagesPerBlock) != ((a.pages[p].copies & gbit) != 0))
        throw InvariantViolation(fmt::format("'{}' page {}: the gpu{} resident mask disagrees with its copies", a.name, p, g));
      if (a.pages[p].copies & gbit) {
        const std::uint64_t r = p >> chunk_shift_;
        if (a.chunk_slot[g][r] == kNoSlot)
          throw InvariantViolation(fmt::format("'{}' page {} has a copy on gpu{} but no chunk backs it", a.name, p, g));
        ++resident[r];
      }
    }
    for (std::size_t r = 0; r < resident.size(); ++r) {
      const std::uint32_t s = a.chunk_slot[g][r];
      if (s == kNoSlot) continue;
      const PhysicalChunk& c = gpus_[g].memory.chunk(s);
      if (!c.allocated || c.alloc != slot || c.resident != resident[r])
        throw InvariantViolation(fmt::format("'{}' chunk region {} on gpu{}: chunk {} records {} resident pages, pages say {}",
                                             a.name, r, g, s, c.resident, resident[r]));
    }
  }
  for (std::uint64_t p = 0; p < a.page_count; ++p) {
    const PageState& st = a.pages[p];
    if (st.copies & ~(gpu_bits | kCpuBit))
      throw InvariantViolation(fmt::format("'{}' page {} has a copy on a processor that does not exist", a.name, p));
    if (a.populated[p / kPagesPerBlock].test(p % kPagesPerBlock) != (st.copies != 0))
      throw InvariantViolation(fmt::format("'{}' page {}: populated mask disagrees with its copies", a.name, p));
    if (st.mapped && !st.copies)
      throw InvariantViolation(fmt::format("'{}' page {} is mapped (mask {:#x}) but has no valid copy", a.name, p, st.mapped));
    if (st.copies & ~st.mapped)
      throw InvariantViolation(fmt::format("'{}' page {} has a copy its holder does not map", a.name, p));
    const ProcessorMask remote = static_cast<ProcessorMask>(st.mapped & ~st.copies);
    if ((remote & kCpuBit))
      throw InvariantViolation(fmt::format("'{}' page {} is mapped remotely by the CPU, which cannot map GPU memory", a.name, p));
    if (popcount16(st.copies) > 1 && !(st.flags & (kReadMostly | kPolicyDuplicate)))
      throw InvariantViolation(fmt::format("'{}' page {} has {} copies but is not read-mostly", a.name, p, popcount16(st.copies)));
    if ((st.flags & (kInFaultBuffer | kFaultWrite)) && !kernel_.open && running_kernels_ == 0)
      throw InvariantViolation(fmt::format("'{}' page {} is left in the fault buffer", a.name, p));
    if (a.kind == trace::AllocKind::kDevice && st.copies != processor_bit(a.home))
      throw InvariantViolation(fmt::format("device allocation '{}' page {} left its GPU", a.name, p));
  }
}

}  // namespace umsim::sim
