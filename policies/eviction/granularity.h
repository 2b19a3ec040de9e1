// Validation of an eviction policy's chunk granularity parameter.
#pragma once

#include <bit>
#include <string>

#include "policies/registry.h"
#include "sim/types.h"
#include "traces/units.h"

namespace umsim::policies {

// A power of two from 4 KiB to 2 MiB, or PolicyError naming the policy.
inline sim::Bytes checked_granularity(const char* policy, sim::Bytes g) {
  if (g < sim::kPageSize || g > sim::kBlockSize || !std::has_single_bit(g))
    throw PolicyError(std::string("evict policy '") + policy + "': granularity " + trace::format_bytes(g) +
                      " is not a power of two from 4KiB to 2MiB");
  return g;
}

}  // namespace umsim::policies
