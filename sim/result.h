// The result schema shared by the simulator (`umsim replay`) and the HIP
// backend (`umsim-hip replay`), so `umsim compare` can put them side by side.
// JSON field names are part of the schema: keep them stable.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace umsim {

// Counters of one scope (a kernel, a phase, or the whole run).
// Fields a producer cannot measure stay 0 and are listed in Result::unmeasured.
struct Counters {
  std::uint64_t time_ns = 0;          // wall time of the scope
  std::uint64_t stall_ns = 0;         // time kernels waited for faults / transfers
  std::uint64_t gpu_faults = 0;       // GPU page faults (fault-buffer entries, duplicates included)
  std::uint64_t gpu_fault_pages = 0;  // distinct pages serviced for GPU faults
  std::uint64_t fault_batches = 0;    // fault batches serviced
  std::uint64_t cpu_faults = 0;       // CPU page faults
  std::uint64_t bytes_h2d = 0;        // host to device migrations and copies
  std::uint64_t bytes_d2h = 0;        // device to host (includes eviction write-back)
  std::uint64_t bytes_peer = 0;       // device to device
  std::uint64_t bytes_prefetched = 0; // moved by explicit prefetch hints or the prefetch policy
  std::uint64_t evictions = 0;        // evicted chunks
  std::uint64_t bytes_evicted = 0;    // bytes written back by eviction
  std::uint64_t remote_accesses = 0;  // page accesses served over a remote mapping
  std::uint64_t thrashing_events = 0; // pages detected as thrashing
  std::uint64_t throttles = 0;        // throttling actions taken
  std::uint64_t accesses = 0;         // page accesses replayed

  Counters& operator+=(const Counters& o);
  friend bool operator==(const Counters&, const Counters&) = default;
};

struct ScopeResult {
  std::string name;  // kernel or phase name
  int gpu = -1;      // kernels: GPU index; phases: -1
  std::uint64_t start_ns = 0;
  Counters counters;
  friend bool operator==(const ScopeResult&, const ScopeResult&) = default;
};

struct Result {
  std::string producer;               // "umsim-sim" or "umsim-hip"
  std::string trace;                  // trace path as given
  Counters total;
  std::vector<ScopeResult> kernels;   // in launch order
  std::vector<ScopeResult> phases;    // in trace order; an implicit "main" phase before the first marker
  std::vector<std::string> unmeasured;  // counter names the producer could not measure
  nlohmann::ordered_json config;      // fully resolved configuration (profile, policies, options)
  nlohmann::ordered_json hardware;    // the machine (HIP backend) or profile name (simulator)
};

nlohmann::ordered_json to_json(const Counters& c);
Counters counters_from_json(const nlohmann::json& j);  // throws std::runtime_error naming the field
nlohmann::ordered_json to_json(const Result& r);
Result result_from_json(const nlohmann::json& j);       // throws std::runtime_error naming the field

// Counter names in schema order, with accessors, for tables and comparisons.
struct CounterField {
  const char* name;
  std::uint64_t Counters::*member;
};
const std::vector<CounterField>& counter_fields();

}  // namespace umsim
