// The policy registry: spec parsing, typed parameters, defaults, and errors that
// list what exists; vendor presets.
#include <algorithm>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "policies/vendor_presets.h"
#include "tests/policies/policy_test_util.h"

namespace umsim::policies {
namespace {

using namespace testing;

template <typename Interface>
std::string error_of(const std::string& spec) {
  try {
    Registry<Interface>::instance().create(spec);
  } catch (const PolicyError& e) {
    return e.what();
  }
  return "(no error)";
}

template <typename Interface>
std::vector<std::string> registered_names() {
  std::vector<std::string> v;
  for (const auto& [n, _] : Registry<Interface>::instance().entries()) v.push_back(n);
  return v;
}

// The required policies (GUIDE): more may be registered (examples, a researcher's
// own), so a new policy never breaks this test.
TEST(Registry, EveryRequiredPolicyIsRegistered) {
  EXPECT_THAT(registered_names<sim::PrefetchPolicy>(),
              ::testing::IsSupersetOf({"amd-window", "none", "random", "sequential", "stride", "tree"}));
  EXPECT_THAT(registered_names<sim::EvictionPolicy>(),
              ::testing::IsSupersetOf({"belady", "clock", "fifo", "lfu", "lru", "random", "tree-preevict"}));
  EXPECT_THAT(registered_names<sim::MigrationPolicy>(), ::testing::IsSupersetOf({"access-counter", "driver", "zero-copy"}));
  EXPECT_THAT(registered_names<sim::ThrashingPolicy>(), ::testing::IsSupersetOf({"driver", "none"}));
}

// Listings are sorted and joined with ", " whatever is registered.
TEST(Registry, KnownNamesAreTheSortedRegisteredNames) {
  auto joined = [](const std::vector<std::string>& v) {
    std::string s;
    for (const auto& n : v) s += (s.empty() ? "" : ", ") + n;
    return s;
  };
  const auto names = registered_names<sim::EvictionPolicy>();
  EXPECT_TRUE(std::is_sorted(names.begin(), names.end()));
  EXPECT_EQ(Registry<sim::EvictionPolicy>::instance().known_names(), joined(names));
  EXPECT_NE(Registry<sim::EvictionPolicy>::instance().known_names().find("belady, clock, fifo, lfu, lru"),
            std::string::npos);
}

TEST(Registry, DefaultsAreResolvedWithTheirTypes) {
  nlohmann::ordered_json resolved;
  Registry<sim::ThrashingPolicy>::instance().create("driver", &resolved);
  EXPECT_EQ(resolved["name"], "driver");
  EXPECT_EQ(resolved["params"]["threshold"], 3);
  EXPECT_EQ(resolved["params"]["pin_threshold"], 10);
  EXPECT_EQ(resolved["params"]["lapse"], 500000);  // nanoseconds
  EXPECT_EQ(resolved["params"]["pin"], 300);
  EXPECT_EQ(resolved["params"]["response"], "auto");
  EXPECT_EQ(resolved["params"]["fast_links"], false);
  Registry<sim::PrefetchPolicy>::instance().create("tree", &resolved);
  EXPECT_EQ(resolved.dump(), R"({"name":"tree","params":{"threshold":51,"min_faults":1,"big_page":65536}})");
}

TEST(Registry, OverridesAreParsedByType) {
  nlohmann::ordered_json resolved;
  Registry<sim::ThrashingPolicy>::instance().create("driver:lapse=1ms,threshold=4,fast_links=on,response=pin",
                                                    &resolved);
  EXPECT_EQ(resolved["params"]["lapse"], 1000000);
  EXPECT_EQ(resolved["params"]["threshold"], 4);
  EXPECT_EQ(resolved["params"]["fast_links"], true);
  EXPECT_EQ(resolved["params"]["response"], "pin");
  Registry<sim::EvictionPolicy>::instance().create("lru:granularity=64KiB", &resolved);
  EXPECT_EQ(resolved["params"]["granularity"], 65536);
}

TEST(Registry, UnknownNamesListWhatExists) {
  EXPECT_EQ(error_of<sim::PrefetchPolicy>("nope"),
            "unknown prefetch policy 'nope' (known: " + Registry<sim::PrefetchPolicy>::instance().known_names() + ")");
  EXPECT_EQ(error_of<sim::MigrationPolicy>("lru"),
            "unknown migrate policy 'lru' (known: " + Registry<sim::MigrationPolicy>::instance().known_names() + ")");
  EXPECT_EQ(error_of<sim::ThrashingPolicy>(":threshold=3"),
            "empty thrashing policy name in ':threshold=3' (known: " +
                Registry<sim::ThrashingPolicy>::instance().known_names() + ")");
  // This test links the shipped set plus the example policies: the listing names all of them.
  EXPECT_NE(error_of<sim::EvictionPolicy>("nope").find("lru, mru, random"), std::string::npos);
}

TEST(Registry, UnknownParametersListTheParameters) {
  EXPECT_EQ(error_of<sim::PrefetchPolicy>("tree:thresh=51"),
            "prefetch policy 'tree': unknown parameter 'thresh' (parameters: threshold, min_faults, big_page)");
  EXPECT_EQ(error_of<sim::PrefetchPolicy>("none:x=1"), "prefetch policy 'none': unknown parameter 'x' (parameters: none)");
}

TEST(Registry, BadValuesSayWhatWasExpected) {
  EXPECT_EQ(error_of<sim::PrefetchPolicy>("tree:threshold=abc"),
            "prefetch policy 'tree': parameter 'threshold': expected an integer, got 'abc'");
  EXPECT_EQ(error_of<sim::ThrashingPolicy>("driver:fast_links=maybe"),
            "thrashing policy 'driver': parameter 'fast_links': expected true/false, got 'maybe'");
  EXPECT_NE(error_of<sim::EvictionPolicy>("lru:granularity=lots").find("parameter 'granularity'"), std::string::npos);
  EXPECT_NE(error_of<sim::ThrashingPolicy>("driver:lapse=5parsecs").find("parameter 'lapse'"), std::string::npos);
  EXPECT_EQ(error_of<sim::PrefetchPolicy>("tree:threshold"), "prefetch policy 'tree': expected key=value, got 'threshold'");
  EXPECT_EQ(error_of<sim::PrefetchPolicy>("tree:threshold=40,threshold=60"),
            "prefetch policy 'tree': parameter 'threshold' given twice");
  EXPECT_EQ(error_of<sim::ThrashingPolicy>("driver:response=panic"),
            "thrashing policy 'driver': response must be auto, throttle, pin or map-remote, got 'panic'");
}

// Malformed specs always end in a PolicyError with a message, never a crash or a silent default.
TEST(Registry, MalformedSpecsFailCleanly) {
  for (const char* spec : {"", ":", "tree:,", "tree:=5", "tree:threshold=", "tree::threshold=5", "tree:threshold=5,",
                           "tree:threshold=99999999999999999999", "tree:threshold=1e3", "tree:threshold= 5",
                           "tree:big_page=-1KiB", "tree:min_faults=-1", "tree:threshold=51,,min_faults=1"}) {
    const std::string e = error_of<sim::PrefetchPolicy>(spec);
    EXPECT_NE(e, "(no error)") << "'" << spec << "' was accepted";
    EXPECT_FALSE(e.empty()) << spec;
  }
  EXPECT_EQ(error_of<sim::PrefetchPolicy>("tree:"), "(no error)");  // no overrides: the defaults
}

TEST(Registry, ParamsRejectReadsOfTheWrongType) {
  const std::vector<ParamSpec> specs = {{"n", ParamType::kInt, "3", ""}};
  Params p("test policy", specs, "");
  EXPECT_EQ(p.get_int("n"), 3);
  EXPECT_THROW(p.get_bool("n"), PolicyError);
  EXPECT_THROW(p.get_int("m"), PolicyError);
  EXPECT_THROW(Params("test policy", {{"n", ParamType::kInt, "x", ""}}, ""), PolicyError);  // bad default
}

TEST(Registry, RegisteringANameTwiceFails) {
  PolicyInfo<sim::PrefetchPolicy> info{"tree", "duplicate", {}, nullptr};
  EXPECT_THROW(Registry<sim::PrefetchPolicy>::instance().add(info), PolicyError);
}

template <typename Interface>
void construct_all() {
  for (const auto& [name, info] : Registry<Interface>::instance().entries()) {
    EXPECT_NO_THROW(Registry<Interface>::instance().create(name)) << name;
    for (const auto& p : info.params) EXPECT_FALSE(p.doc.empty()) << name << "." << p.name;
    EXPECT_FALSE(info.doc.empty()) << name;
  }
}

TEST(Registry, EveryPolicyConstructsWithItsDefaultsAndIsDocumented) {
  construct_all<sim::PrefetchPolicy>();
  construct_all<sim::EvictionPolicy>();
  construct_all<sim::MigrationPolicy>();
  construct_all<sim::ThrashingPolicy>();
}

TEST(VendorPresets, NamesPoliciesAndSemantics) {
  EXPECT_EQ(vendor_preset_names(), (std::vector<std::string>{"nvidia", "amd-xnack-on", "amd-xnack-off", "amd-apu-xnack-on", "amd-apu-xnack-off"}));
  const auto& nv = vendor_preset("nvidia");
  EXPECT_EQ(nv.policies.prefetch, "tree");
  EXPECT_EQ(nv.policies.evict, "fifo");
  EXPECT_EQ(nv.policies.migrate, "driver");  // access-counter migration off on x86
  EXPECT_EQ(nv.policies.thrashing, "driver");
  EXPECT_TRUE(nv.semantics.gpu_faults_migrate);
  EXPECT_EQ(vendor_preset("amd-xnack-on").policies.prefetch, "amd-window");
  EXPECT_EQ(vendor_preset("amd-xnack-on").policies.thrashing, "none");
  EXPECT_EQ(vendor_preset("amd-xnack-off").policies.migrate, "zero-copy");
  EXPECT_FALSE(vendor_preset("amd-xnack-off").semantics.gpu_faults_migrate);
  for (const auto& p : vendor_presets()) {
    EXPECT_EQ(p.semantics.name, p.name);
    EXPECT_NO_THROW(make<sim::PrefetchPolicy>(p.policies.prefetch)) << p.name;
    EXPECT_NO_THROW(make<sim::EvictionPolicy>(p.policies.evict)) << p.name;
    EXPECT_NO_THROW(make<sim::MigrationPolicy>(p.policies.migrate)) << p.name;
    EXPECT_NO_THROW(make<sim::ThrashingPolicy>(p.policies.thrashing)) << p.name;
  }
  try {
    vendor_preset("intel");
    FAIL();
  } catch (const PolicyError& e) {
    EXPECT_EQ(std::string(e.what()), "unknown vendor 'intel' (known: nvidia, amd-xnack-on, amd-xnack-off, amd-apu-xnack-on, amd-apu-xnack-off)");
  }
}

}  // namespace
}  // namespace umsim::policies
