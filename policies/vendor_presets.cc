#include "policies/vendor_presets.h"

namespace umsim::policies {

const std::vector<VendorPreset>& vendor_presets() {
  static const std::vector<VendorPreset> presets = {
      {"nvidia",
       "NVIDIA UVM driver: tree density prefetcher, FIFO root-chunk eviction, thrashing throttle/pin; "
       "access-counter migration off (x86 host)",
       {"tree", "fifo", "driver", "driver"},
       sim::VendorSemantics::nvidia()},
      {"amd-xnack-on",
       "AMD KFD SVM with XNACK on: a fault migrates its 2 MiB window, no density prefetcher, no thrashing "
       "detection; TTM evicts least recently used buffers",
       {"amd-window", "lru", "driver", "none"},
       sim::VendorSemantics::amd_xnack_on()},
      {"amd-xnack-off",
       "AMD KFD with XNACK off: managed memory is zero-copy host memory mapped by the GPUs unless prefetched",
       {"none", "lru", "zero-copy", "none"},
       sim::VendorSemantics::amd_xnack_off()},
      {"amd-apu-xnack-on",
       "AMD MI300A APU with XNACK on (HSA_XNACK=1): one HBM memory for CPU and GPU; managed and system (malloc) "
       "pages never migrate, a GPU fault maps its 2 MiB window in place, a prefetch only maps",
       {"none", "lru", "driver", "none"},
       sim::VendorSemantics::amd_apu_xnack_on()},
      {"amd-apu-xnack-off",
       "AMD MI300A APU with XNACK off: managed memory is mapped by the GPU from the start (no faults); a GPU touch "
       "of system (malloc) memory is a fatal memory access fault",
       {"none", "lru", "driver", "none"},
       sim::VendorSemantics::amd_apu_xnack_off()},
  };
  return presets;
}

std::vector<std::string> vendor_preset_names() {
  std::vector<std::string> names;
  for (const auto& p : vendor_presets()) names.push_back(p.name);
  return names;
}

const VendorPreset& vendor_preset(std::string_view name) {
  std::string known;
  for (const auto& p : vendor_presets()) {
    if (p.name == name) return p;
    known += (known.empty() ? "" : ", ") + p.name;
  }
  throw PolicyError("unknown vendor '" + std::string(name) + "' (known: " + known + ")");
}

}  // namespace umsim::policies
