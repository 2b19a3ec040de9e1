#include "hip_backend/xnack_state.h"

namespace umsim::hip {
namespace {

// The value of one target-id feature ("xnack") in "gfx942:sramecc+:xnack-":
// '+', '-', or 0 when the feature is absent.
char feature_sign(std::string_view id, std::string_view feature) {
  std::size_t pos = id.find(':');
  while (pos != std::string_view::npos) {
    const std::size_t next = id.find(':', pos + 1);
    const std::string_view part = id.substr(pos + 1, next == std::string_view::npos ? std::string_view::npos : next - pos - 1);
    if (part.size() == feature.size() + 1 && part.substr(0, feature.size()) == feature &&
        (part.back() == '+' || part.back() == '-'))
      return part.back();
    pos = next;
  }
  return 0;
}

}  // namespace

XnackFeature xnack_feature(std::string_view gcn_arch_name) {
  switch (feature_sign(gcn_arch_name, "xnack")) {
    case '+': return XnackFeature::kOn;
    case '-': return XnackFeature::kOff;
    default: return XnackFeature::kUnsupported;
  }
}

XnackTarget xnack_target(std::string_view offload_arch) {
  switch (feature_sign(offload_arch, "xnack")) {
    case '+': return XnackTarget::kOn;
    case '-': return XnackTarget::kOff;
    default: return XnackTarget::kAny;
  }
}

std::optional<bool> hsa_xnack(const char* value, bool* bad) {
  if (bad) *bad = false;
  if (value == nullptr) return std::nullopt;
  const std::string_view v(value);
  if (v == "1") return true;
  if (v == "0") return false;
  if (bad) *bad = true;
  return std::nullopt;
}

bool code_object_runs(XnackTarget target, XnackFeature device) {
  switch (target) {
    case XnackTarget::kAny: return true;
    case XnackTarget::kOn: return device == XnackFeature::kOn;
    case XnackTarget::kOff: return device == XnackFeature::kOff;
  }
  return false;
}

std::string vendor_preset_for(XnackFeature device, bool apu) {
  const bool on = device == XnackFeature::kOn;
  if (apu) return on ? "amd-apu-xnack-on" : "amd-apu-xnack-off";
  return on ? "amd-xnack-on" : "amd-xnack-off";
}

const char* to_string(XnackFeature f) {
  switch (f) {
    case XnackFeature::kUnsupported: return "unsupported";
    case XnackFeature::kOff: return "off";
    case XnackFeature::kOn: return "on";
  }
  return "unknown";
}

nlohmann::ordered_json xnack_json(std::string_view gcn_arch_name, const char* hsa_xnack_value, bool apu) {
  nlohmann::ordered_json j;
  j["gcn_arch_name"] = std::string(gcn_arch_name);
  if (hsa_xnack_value) j["hsa_xnack"] = hsa_xnack_value;
  else j["hsa_xnack"] = nullptr;
  const XnackFeature f = xnack_feature(gcn_arch_name);
  j["xnack"] = to_string(f);
  j["apu"] = apu;
  j["vendor"] = vendor_preset_for(f, apu);
  return j;
}

}  // namespace umsim::hip
