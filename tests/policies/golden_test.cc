// Golden results: tests/policies/golden/small.umt replayed under every
// combination of the shipped policies (with NVIDIA engine semantics) and under
// each vendor preset, with 4 MiB of GPU memory; the totals must match
// tests/policies/golden/small.json. After an intended change, regenerate with
// tools/regen_goldens.sh and review the diff.
#include <cstdlib>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "tests/policies/replay_harness.h"

namespace umsim::policies {
namespace {

using namespace testing;

constexpr const char* kTrace = "tests/policies/golden/small.umt";
constexpr const char* kGolden = "tests/policies/golden/small.json";

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

template <typename Interface>
std::vector<std::string> names() {
  std::vector<std::string> v;
  for (const auto& [n, _] : Registry<Interface>::instance().entries()) v.push_back(n);
  return v;
}

std::vector<Combo> combos() {
  std::vector<Combo> all;
  for (const auto& p : vendor_presets()) {
    Combo c;
    c.vendor = p.name;
    c.specs = p.policies;
    all.push_back(c);
  }
  for (const auto& prefetch : names<sim::PrefetchPolicy>())
    for (const auto& evict : names<sim::EvictionPolicy>())
      for (const auto& migrate : names<sim::MigrationPolicy>())
        for (const auto& thrashing : names<sim::ThrashingPolicy>()) {
          Combo c;
          c.specs = {prefetch, evict, migrate, thrashing};
          all.push_back(c);
        }
  return all;
}

nlohmann::ordered_json run_all(const std::string& trace) {
  ReplayOptions opt;
  opt.gpu_memory = 4 * 1024 * 1024;
  opt.trace_name = "small.umt";
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  for (const auto& c : combos()) {
    // A combination the model rejects is recorded with its message: the message is part
    // of the expected behaviour, and a fix shows up as a reviewed golden change.
    try {
      out[c.label()] = to_json(replay(trace, c, opt).total);
    } catch (const std::exception& e) {
      out[c.label()] = {{"error", e.what()}};
    }
  }
  return out;
}

TEST(Golden, EveryPolicyCombinationMatchesTheStoredTotals) {
  const std::string trace = read_file(kTrace);
  const nlohmann::ordered_json got = run_all(trace);
  if (const char* update = std::getenv("UMSIM_UPDATE_GOLDEN")) {
    std::ofstream(update) << got.dump(1) << "\n";
    GTEST_SKIP() << "wrote " << update;
  }
  const nlohmann::ordered_json want = nlohmann::ordered_json::parse(read_file(kGolden));
  int shown = 0;
  for (const auto& [label, totals] : got.items()) {
    if (!want.contains(label)) {
      ADD_FAILURE() << "no golden for '" << label << "'";
    } else if (want[label] != totals && shown++ < 5) {
      ADD_FAILURE() << label << "\n  want " << want[label].dump() << "\n  got  " << totals.dump();
    }
  }
  EXPECT_EQ(shown, 0) << shown << " combinations differ; if the change is intended run tools/regen_goldens.sh";
  EXPECT_EQ(want.size(), got.size()) << "stored goldens for combinations that no longer exist";
}

// The goldens are only meaningful if the policies make a difference on this trace.
TEST(Golden, TheTraceSeparatesThePolicies) {
  const std::string trace = read_file(kTrace);
  ReplayOptions opt;
  opt.gpu_memory = 4 * 1024 * 1024;
  opt.trace_name = "small.umt";
  Combo base;
  const Result none = replay(trace, base, opt);
  EXPECT_GT(none.total.evictions, 0u);
  Combo tree = base;
  tree.specs.prefetch = "tree";
  const Result with_tree = replay(trace, tree, opt);
  EXPECT_GT(with_tree.total.bytes_prefetched, none.total.bytes_prefetched);
  EXPECT_LT(with_tree.total.cpu_faults, none.total.cpu_faults);  // the CPU reads prefetched pages back
  Combo lru = base;
  lru.specs.evict = "lru";
  EXPECT_NE(to_json(replay(trace, lru, opt).total), to_json(none.total));
  Combo thrash = base;
  thrash.specs.thrashing = "driver";
  EXPECT_GT(replay(trace, thrash, opt).total.thrashing_events, 0u);
}

TEST(Golden, ReplayIsDeterministic) {
  const std::string trace = read_file(kTrace);
  ReplayOptions opt;
  opt.gpu_memory = 4 * 1024 * 1024;
  opt.trace_name = "small.umt";
  Combo c;
  c.specs = {"random", "random", "driver", "driver"};
  EXPECT_EQ(to_json(replay(trace, c, opt)).dump(), to_json(replay(trace, c, opt)).dump());
}

}  // namespace
}  // namespace umsim::policies
