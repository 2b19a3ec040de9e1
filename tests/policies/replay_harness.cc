#include "tests/policies/replay_harness.h"

#include "traces/trace_reader.h"

namespace umsim::policies::testing {

const sim::HardwareProfile& test_profile() {
  static const sim::HardwareProfile profile = sim::load_profile_file("profiles/h200-pcie5-published.toml");
  return profile;
}

Result replay(const std::string& trace_text, const Combo& combo, const ReplayOptions& options) {
  sim::EngineOptions o;
  o.profile = test_profile();
  if (options.one_fault_at_a_time) {
    o.profile.fault_batch_size = 1;
    o.profile.fault_concurrency = 1;
  }
  o.gpu_memory = options.gpu_memory;
  o.vendor = vendor_preset(combo.vendor).semantics;
  o.check_invariants = true;
  o.trace_name = options.trace_name;
  o.reopen = [trace_text, name = options.trace_name] { return trace::open_trace_from_memory(trace_text, name); };
  sim::EnginePolicies p;
  p.prefetch = Registry<sim::PrefetchPolicy>::instance().create(combo.specs.prefetch);
  // An empty eviction spec leaves the engine's built-in FIFO in place.
  if (!combo.specs.evict.empty()) p.eviction = Registry<sim::EvictionPolicy>::instance().create(combo.specs.evict);
  p.migration = Registry<sim::MigrationPolicy>::instance().create(combo.specs.migrate);
  p.thrashing = Registry<sim::ThrashingPolicy>::instance().create(combo.specs.thrashing);
  sim::Engine engine(std::move(o), std::move(p));
  auto reader = trace::open_trace_from_memory(trace_text, options.trace_name);
  return engine.run(*reader);
}

}  // namespace umsim::policies::testing
