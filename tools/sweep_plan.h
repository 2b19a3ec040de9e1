// A sweep: the cartesian product of traces x vendors x policy specs x GPU
// memory sizes, numbered in a fixed order so that shards (Slurm array tasks)
// and threads can split it and the merged output is always the same.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace umsim::cli {

struct SweepAxes {
  std::vector<std::string> traces;
  std::vector<std::string> vendors{"nvidia"};
  // Hardware profile names or .toml files; empty = the default profile.
  std::vector<std::string> profiles{""};
  // Empty spec = the vendor preset's policy of that kind.
  std::vector<std::string> prefetch{""}, evict{""}, migrate{""}, thrashing{""};
  // "16GiB" (absolute) or "150%" (oversubscription of the trace's GPU footprint,
  // tools/gpu_memory_spec.h); empty = the profile's value.
  std::vector<std::string> gpu_mem{""};
  // Random seeds, given to every policy of a point that takes a `seed`
  // parameter its spec does not set; a point with no such policy runs once.
  // Empty: no seed axis.
  std::vector<std::int64_t> seeds;
};

struct SweepPoint {
  std::size_t index = 0;
  std::string trace, vendor, profile, prefetch, evict, migrate, thrashing, gpu_mem;
  std::optional<std::int64_t> seed;  // set when the seed axis applied to this point
};

// Whether the policy spec `spec` of kind `kind` ("prefetch", "evict", ...)
// takes a `seed` parameter that the spec leaves unset.
using TakesSeed = std::function<bool(const std::string& kind, const std::string& spec)>;

// All points, trace-major, then vendor, profile, policies, gpu_mem, and seed minor.
// Throws std::runtime_error on an empty axis.
std::vector<SweepPoint> expand_sweep(const SweepAxes& axes, const TakesSeed& takes_seed = {});

// "random" + seed 7 -> "random:seed=7"; "random:count=2" -> "random:count=2,seed=7".
std::string spec_with_seed(const std::string& spec, std::int64_t seed);

// Parses "K/N" (0 <= K < N); throws std::runtime_error with the expected form.
struct Shard {
  std::size_t index = 0, count = 1;
  bool contains(std::size_t point) const { return point % count == index; }
};
Shard parse_shard(const std::string& text);

}  // namespace umsim::cli
