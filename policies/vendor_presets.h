// Vendor presets: the policy set and engine semantics of each driver, selected
// with `--vendor nvidia|amd-xnack-on|amd-xnack-off|amd-apu-xnack-on|amd-apu-xnack-off`.
// Individual --prefetch/--evict/--migrate/--thrashing options override a
// preset's policy specs.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "policies/registry.h"
#include "sim/vendor_semantics.h"

namespace umsim::policies {

// Policy specs in the registry's "name[:k=v,...]" syntax.
struct PolicySpecs {
  std::string prefetch;
  std::string evict;
  std::string migrate;
  std::string thrashing;
};

struct VendorPreset {
  std::string name;
  std::string doc;
  PolicySpecs policies;
  sim::VendorSemantics semantics;
};

// All presets, in listing order.
const std::vector<VendorPreset>& vendor_presets();
std::vector<std::string> vendor_preset_names();
// The preset named `name`; throws PolicyError listing the known names.
const VendorPreset& vendor_preset(std::string_view name);

}  // namespace umsim::policies
