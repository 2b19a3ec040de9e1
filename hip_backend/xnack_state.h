// XNACK on an AMD GPU, as ROCm defines it: whether the GPU retries a faulting
// access (so the driver can migrate or map the page) instead of failing.
// - the device's target-id feature in hipDeviceProp_t::gcnArchName:
//   "gfx942:sramecc+:xnack+" (on), "...:xnack-" (off), no "xnack" (the GPU
//   cannot retry faults, e.g. gfx906);
// - HSA_XNACK=1 / 0 in the environment selects the mode before the runtime starts;
// - a code object built for "gfx942:xnack+" loads only when XNACK is on,
//   "gfx942:xnack-" only when off, plain "gfx942" in both modes.
// umsim-hip records this in every AMD result (docs/hip_backend.md).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace umsim::hip {

enum class XnackFeature { kUnsupported, kOff, kOn };  // the device, as gcnArchName reports it
enum class XnackTarget { kAny, kOff, kOn };           // a code object's target-id setting

XnackFeature xnack_feature(std::string_view gcn_arch_name);
// The target-id setting of an --offload-arch value such as "gfx90a:xnack+".
XnackTarget xnack_target(std::string_view offload_arch);
// HSA_XNACK as the runtime reads it: "1" on, "0" off, unset: nullopt (the
// driver's default). Anything else is returned as nullopt with *bad set.
std::optional<bool> hsa_xnack(const char* value, bool* bad = nullptr);
// Whether a kernel built for `target` runs on a device in mode `device`.
bool code_object_runs(XnackTarget target, XnackFeature device);
// The `umsim replay --vendor` preset that models this device and mode.
std::string vendor_preset_for(XnackFeature device, bool apu);
// {"gcn_arch_name", "hsa_xnack", "xnack", "apu", "vendor"} for result.hardware.gpu.
nlohmann::ordered_json xnack_json(std::string_view gcn_arch_name, const char* hsa_xnack_value, bool apu);

const char* to_string(XnackFeature f);

}  // namespace umsim::hip
