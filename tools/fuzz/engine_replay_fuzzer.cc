// libFuzzer target for the model itself: a fuzzed text trace, bounded in size
// (allocations up to 64 MiB, 2^20 page touches, two GPUs), is checked with
// `trace check`'s rules and replayed through the engine with invariant checking
// on, under one of the vendor presets, on GPUs small enough to oversubscribe.
// A crash, a broken invariant, or a replay that rejects a trace `trace check`
// accepted (other than for this machine's limits) is a finding.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "policies/policy_kinds.h"
#include "policies/vendor_presets.h"
#include "sim/engine.h"
#include "sim/profile.h"
#include "traces/byte_io.h"
#include "traces/text_reader.h"
#include "traces/trace_checker.h"
#include "traces/work_estimate.h"

namespace {

using namespace umsim;

constexpr trace::Bytes kMaxAllocation = 64ull << 20;
constexpr std::uint64_t kMaxTouches = 1u << 20;
constexpr std::size_t kMaxEvents = 20000;

const sim::HardwareProfile& profile() {
  static const sim::HardwareProfile p = [] {
    const char* path = std::getenv("UMSIM_FUZZ_PROFILE");
    sim::HardwareProfile loaded = sim::load_profile_file(path ? path : "profiles/h200-pcie5.toml");
    loaded.gpus = 2;
    return loaded;
  }();
  return p;
}

std::unique_ptr<trace::TextReader> open(const std::string& text) {
  return std::make_unique<trace::TextReader>(trace::memory_input(text), "<fuzz>");
}

// Within the bounds that keep one run fast: small allocations, few events and touches.
bool bounded(const std::string& text) {
  auto reader = open(text);
  std::vector<trace::Event> batch(4096);
  std::size_t events = 0;
  while (const std::size_t n = reader->read(batch)) {
    events += n;
    for (std::size_t i = 0; i < n; ++i)
      if (batch[i].kind == trace::EventKind::kAlloc && batch[i].length > kMaxAllocation) return false;
  }
  if (events > kMaxEvents) return false;
  auto again = open(text);
  return trace::estimate_page_touches(*again) <= kMaxTouches;
}

// Replay refusals that depend on the machine, not on the trace's validity.
bool machine_limit(const std::string& message) {
  for (const char* s : {"GPU(s)", "larger than", "no evictable chunk", "more than this machine"})
    if (message.find(s) != std::string::npos) return true;
  return false;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    if (!bounded(text)) return 0;
  } catch (const trace::TraceError&) {
    return 0;  // undecodable: the decoder fuzzers' business
  }
  std::uint64_t check_errors = 0;
  {
    auto reader = open(text);
    check_errors = trace::check_trace(*reader, [](const trace::TraceProblem&) {}).errors;
  }
  const auto& presets = policies::vendor_presets();
  const policies::VendorPreset& preset = presets[size % presets.size()];
  sim::EngineOptions options;
  options.profile = profile();
  options.gpu_memory = (size % 2 ? 4ull : 8ull) << 20;  // two or four root chunks: eviction is exercised
  options.vendor = preset.semantics;
  options.check_invariants = true;
  options.reopen = [text] { return std::unique_ptr<trace::TraceReader>(open(text)); };
  sim::EnginePolicies policies;
  policies.prefetch = policies::Registry<sim::PrefetchPolicy>::instance().create(preset.policies.prefetch);
  policies.eviction = policies::Registry<sim::EvictionPolicy>::instance().create(size % 3 ? preset.policies.evict : "belady");
  policies.migration = policies::Registry<sim::MigrationPolicy>::instance().create(preset.policies.migrate);
  policies.thrashing = policies::Registry<sim::ThrashingPolicy>::instance().create(preset.policies.thrashing);
  try {
    sim::Engine engine(std::move(options), std::move(policies));
    auto reader = open(text);
    engine.run(*reader);
  } catch (const sim::SimulationError& e) {
    if (check_errors == 0 && !machine_limit(e.what())) {
      std::cerr << "trace check found no error, replay refused: " << e.what() << "\n";
      std::abort();
    }
  } catch (const trace::TraceError& e) {
    if (check_errors == 0) {
      std::cerr << "trace check found no error, replay failed to read: " << e.what() << "\n";
      std::abort();
    }
  }
  return 0;  // sim::InvariantViolation and anything else propagate: a finding
}
