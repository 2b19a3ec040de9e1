// XNACK state as ROCm reports and applies it. The code-object cases are the
// "Compiled with" tables of the mi300a-xnack experiment (C. Pearson, ROCm
// 6.2.1 on an MI300A; docs/validation.md): plain gfx942 kernels run with
// HSA_XNACK=0 and =1, gfx942:xnack- only with 0, gfx942:xnack+ only with 1.
#include "hip_backend/xnack_state.h"

#include <gtest/gtest.h>

namespace umsim::hip {
namespace {

TEST(XnackState, DeviceFeatureFromTheTargetId) {
  EXPECT_EQ(xnack_feature("amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-"), XnackFeature::kOff);
  EXPECT_EQ(xnack_feature("amdgcn-amd-amdhsa--gfx942:sramecc+:xnack+"), XnackFeature::kOn);
  EXPECT_EQ(xnack_feature("gfx90a:xnack+"), XnackFeature::kOn);
  EXPECT_EQ(xnack_feature("gfx90a:sramecc-:xnack-"), XnackFeature::kOff);
  EXPECT_EQ(xnack_feature("gfx906"), XnackFeature::kUnsupported);           // Radeon VII: no retry
  EXPECT_EQ(xnack_feature("gfx1100"), XnackFeature::kUnsupported);          // RDNA3
  EXPECT_EQ(xnack_feature("gfx942:xnackx"), XnackFeature::kUnsupported);    // not a setting
  EXPECT_EQ(xnack_feature("gfx942:sramecc+"), XnackFeature::kUnsupported);  // no xnack feature at all
  EXPECT_EQ(xnack_feature(""), XnackFeature::kUnsupported);
}

TEST(XnackState, HsaXnackEnvironment) {
  bool bad = true;
  EXPECT_EQ(hsa_xnack("1", &bad), std::optional<bool>(true));
  EXPECT_FALSE(bad);
  EXPECT_EQ(hsa_xnack("0", &bad), std::optional<bool>(false));
  EXPECT_EQ(hsa_xnack(nullptr, &bad), std::nullopt);
  EXPECT_FALSE(bad);
  EXPECT_EQ(hsa_xnack("yes", &bad), std::nullopt);
  EXPECT_TRUE(bad);
}

TEST(XnackState, CodeObjectsLoadAsTheMi300aTablesShow) {
  const XnackFeature off = XnackFeature::kOff, on = XnackFeature::kOn;
  // --offload-arch=gfx942 (or none): kernels run regardless of XNACK.
  EXPECT_TRUE(code_object_runs(xnack_target("gfx942"), off));
  EXPECT_TRUE(code_object_runs(xnack_target("gfx942"), on));
  // gfx942:xnack-: only with XNACK disabled ("N/A" with HSA_XNACK=1).
  EXPECT_TRUE(code_object_runs(xnack_target("gfx942:xnack-"), off));
  EXPECT_FALSE(code_object_runs(xnack_target("gfx942:xnack-"), on));
  // gfx942:xnack+: only with XNACK enabled.
  EXPECT_FALSE(code_object_runs(xnack_target("gfx942:xnack+"), off));
  EXPECT_TRUE(code_object_runs(xnack_target("gfx942:xnack+"), on));
  EXPECT_FALSE(code_object_runs(XnackTarget::kOn, XnackFeature::kUnsupported));
  EXPECT_TRUE(code_object_runs(XnackTarget::kAny, XnackFeature::kUnsupported));
}

TEST(XnackState, ResultJsonNamesTheVendorPreset) {
  const auto apu = xnack_json("amdgcn-amd-amdhsa--gfx942:sramecc+:xnack+", "1", true);
  EXPECT_EQ(apu.dump(),
            R"({"gcn_arch_name":"amdgcn-amd-amdhsa--gfx942:sramecc+:xnack+","hsa_xnack":"1","xnack":"on",)"
            R"("apu":true,"vendor":"amd-apu-xnack-on"})");
  const auto discrete = xnack_json("gfx90a:sramecc+:xnack-", nullptr, false);
  EXPECT_EQ(discrete["hsa_xnack"], nullptr);
  EXPECT_EQ(discrete["vendor"], "amd-xnack-off");
  EXPECT_EQ(xnack_json("gfx906", nullptr, false)["vendor"], "amd-xnack-off");  // no XNACK: zero copy
  EXPECT_EQ(vendor_preset_for(XnackFeature::kOff, true), "amd-apu-xnack-off");
}

}  // namespace
}  // namespace umsim::hip
