// Replays a trace held in memory through the engine under named policies, for
// the property and golden tests.
#pragma once

#include <string>

#include "policies/policy_kinds.h"
#include "policies/vendor_presets.h"
#include "sim/engine.h"

namespace umsim::policies::testing {

struct Combo {
  std::string vendor = "nvidia";  // engine semantics
  PolicySpecs specs{"none", "fifo", "driver", "none"};
  std::string label() const {
    return vendor + " prefetch=" + specs.prefetch + " evict=" + specs.evict + " migrate=" + specs.migrate +
           " thrashing=" + specs.thrashing;
  }
};

struct ReplayOptions {
  sim::Bytes gpu_memory = 0;    // 0: the profile's
  bool one_fault_at_a_time = false;  // fault batches of one entry (the classic paging model)
  std::string trace_name = "test.umt";  // named in error messages
};

// Loads profiles/h200-pcie5-published.toml (a runfile of the test).
const sim::HardwareProfile& test_profile();

Result replay(const std::string& trace_text, const Combo& combo, const ReplayOptions& options);

}  // namespace umsim::policies::testing
