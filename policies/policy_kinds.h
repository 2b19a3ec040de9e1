// Names of the policy kinds, as used on the command line and in listings.
#pragma once

#include "policies/registry.h"
#include "sim/eviction_policy.h"
#include "sim/migration_policy.h"
#include "sim/prefetch_policy.h"
#include "sim/thrashing_policy.h"

namespace umsim::policies {

template <>
struct PolicyKind<sim::PrefetchPolicy> {
  static constexpr const char* name = "prefetch";
};
template <>
struct PolicyKind<sim::EvictionPolicy> {
  static constexpr const char* name = "evict";
};
template <>
struct PolicyKind<sim::MigrationPolicy> {
  static constexpr const char* name = "migrate";
};
template <>
struct PolicyKind<sim::ThrashingPolicy> {
  static constexpr const char* name = "thrashing";
};

}  // namespace umsim::policies
