#include "sim/gpu_memory.h"

namespace umsim::sim {

std::uint32_t GpuMemory::new_slot() {
  const std::uint32_t slot = slots_created_++;
  chunks_.at(slot).slot = slot;
  return slot;
}

}  // namespace umsim::sim
