// Shared by `umsim replay` and `umsim demo`: turns a vendor preset plus
// optional per-kind policy specs into the policy objects and engine semantics
// the model runs with (policy names are resolved here, never in sim/).
#pragma once

#include <string>

#include "sim/engine.h"

namespace umsim::cli {

struct PolicyChoice {
  std::string vendor = "nvidia";
  std::string prefetch, evict, migrate, thrashing;  // empty: the vendor preset's spec
};

// Creates the policies (throws policies::PolicyError for unknown names or
// parameters) and sets *semantics to the vendor's engine semantics.
sim::EnginePolicies make_policies(const PolicyChoice& choice, sim::VendorSemantics* semantics);

}  // namespace umsim::cli
