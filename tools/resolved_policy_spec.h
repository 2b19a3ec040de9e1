// The full spec of a policy as it ran: its name and every parameter's
// resolved value ("tree:threshold=51,min_faults=1", "lru:granularity=4KiB"),
// so that sweep outputs, plots and reports never mistake two configurations
// of one policy for the same line.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

namespace umsim::cli {

// `resolved` is a {"name", "params"} object from a result's
// config.policies.<kind>; `kind` is "prefetch", "evict", "migrate" or
// "thrashing". Sizes and durations are written with units, as on the command
// line; a policy outside the registry (the engine's built-ins) gets its raw values.
std::string resolved_policy_spec(const std::string& kind, const nlohmann::ordered_json& resolved);

// Whether the registered policy named by `spec` ("random:count=2") has a
// `seed` parameter that `spec` leaves unset. False for an empty spec or an
// unknown policy (creating the policy reports those).
bool takes_unset_seed(const std::string& kind, const std::string& spec);

}  // namespace umsim::cli
