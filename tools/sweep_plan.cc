#include "tools/sweep_plan.h"

#include <stdexcept>

#include "traces/units.h"

namespace umsim::cli {

std::string spec_with_seed(const std::string& spec, std::int64_t seed) {
  return spec + (spec.find(':') == std::string::npos ? ":" : ",") + "seed=" + std::to_string(seed);
}

std::vector<SweepPoint> expand_sweep(const SweepAxes& a, const TakesSeed& takes_seed) {
  const std::pair<const char*, const std::vector<std::string>*> axes[] = {
      {"trace", &a.traces},     {"vendor", &a.vendors},       {"profile", &a.profiles},
      {"prefetch", &a.prefetch}, {"evict", &a.evict},         {"migrate", &a.migrate},
      {"thrashing", &a.thrashing}, {"gpu-mem", &a.gpu_mem}};
  for (const auto& [name, values] : axes)
    if (values->empty()) throw std::runtime_error(std::string("sweep: no value for --") + name);
  std::vector<SweepPoint> points;
  auto add = [&](SweepPoint p) {
    // One point per seed when a policy takes it; the seed goes into its spec.
    std::string* specs[] = {&p.prefetch, &p.evict, &p.migrate, &p.thrashing};
    const char* kinds[] = {"prefetch", "evict", "migrate", "thrashing"};
    bool seeded[4] = {};
    bool any = false;
    for (int k = 0; k < 4 && !a.seeds.empty() && takes_seed; ++k) any |= seeded[k] = takes_seed(kinds[k], *specs[k]);
    if (!any) {
      p.index = points.size();
      points.push_back(p);
      return;
    }
    for (const std::int64_t seed : a.seeds) {
      SweepPoint s = p;
      std::string* seeded_specs[] = {&s.prefetch, &s.evict, &s.migrate, &s.thrashing};
      for (int k = 0; k < 4; ++k)
        if (seeded[k]) *seeded_specs[k] = spec_with_seed(*seeded_specs[k], seed);
      s.seed = seed;
      s.index = points.size();
      points.push_back(std::move(s));
    }
  };
  for (const auto& trace : a.traces)
    for (const auto& vendor : a.vendors)
      for (const auto& profile : a.profiles)
        for (const auto& prefetch : a.prefetch)
          for (const auto& evict : a.evict)
            for (const auto& migrate : a.migrate)
              for (const auto& thrashing : a.thrashing)
                for (const auto& mem : a.gpu_mem)
                  add({0, trace, vendor, profile, prefetch, evict, migrate, thrashing, mem, std::nullopt});
  return points;
}

Shard parse_shard(const std::string& text) {
  const auto slash = text.find('/');
  const auto bad = [&] {
    return std::runtime_error("--shard: expected K/N with 0 <= K < N (e.g. 3/8), got '" + text + "'");
  };
  if (slash == std::string::npos) throw bad();
  const auto k = trace::parse_unsigned(text.substr(0, slash));
  const auto n = trace::parse_unsigned(text.substr(slash + 1));
  if (!k.ok() || !n.ok() || n.value == 0 || k.value >= n.value) throw bad();
  return {static_cast<std::size_t>(k.value), static_cast<std::size_t>(n.value)};
}

}  // namespace umsim::cli
