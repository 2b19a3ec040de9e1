// End-to-end replay throughput with the NVIDIA driver policies on (tree
// prefetcher, FIFO root-chunk eviction, driver migration, driver thrashing
// detection), the configuration `--vendor nvidia` selects. One Event per page
// access from a MemoryTraceReader (decoding is not measured).
//   ./bazelw run //bench:policy_replay_bench
// Floors (one core): resident hits >= 200 M accesses/s, fault-heavy >= 20 M/s.
#include <random>

#include <benchmark/benchmark.h>

#include "policies/policy_kinds.h"
#include "policies/vendor_presets.h"
#include "sim/engine.h"
#include "traces/memory_trace_reader.h"
#include "bench/replay_bench_traces.h"
#include "traces/trace_builder.h"

namespace umsim::policies {
namespace {

using namespace trace::literals;
using sim::Bytes;

using bench::bench_profile;
using bench::kAccesses;
using bench::page_trace;

// Policies from specs, resolved once before the replay (as `umsim replay` does).
sim::EnginePolicies make_policies(const PolicySpecs& s) {
  sim::EnginePolicies p;
  p.prefetch = Registry<sim::PrefetchPolicy>::instance().create(s.prefetch);
  p.eviction = Registry<sim::EvictionPolicy>::instance().create(s.evict);
  p.migration = Registry<sim::MigrationPolicy>::instance().create(s.migrate);
  p.thrashing = Registry<sim::ThrashingPolicy>::instance().create(s.thrashing);
  return p;
}

void run(benchmark::State& state, const std::shared_ptr<const trace::BuiltTrace>& t, Bytes gpu_memory,
         const PolicySpecs& specs) {
  std::uint64_t faults = 0, evictions = 0, prefetched = 0;
  for (auto _ : state) {
    sim::EngineOptions o;
    o.profile = bench_profile();
    o.gpu_memory = gpu_memory;
    o.vendor = vendor_preset("nvidia").semantics;
    sim::Engine engine(std::move(o), make_policies(specs));
    trace::MemoryTraceReader reader(t);
    const Result r = engine.run(reader);
    faults = r.total.gpu_faults;
    evictions = r.total.evictions;
    prefetched = r.total.bytes_prefetched;
    benchmark::DoNotOptimize(r.total.time_ns);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * kAccesses));
  state.counters["faults_per_access"] = static_cast<double>(faults) / kAccesses;
  state.counters["evictions"] = static_cast<double>(evictions);
  state.counters["prefetched_MiB"] = static_cast<double>(prefetched) / (1 << 20);
}

const PolicySpecs& nvidia() { return vendor_preset("nvidia").policies; }

// Sequential sweeps over 64 MiB already prefetched to the GPU: every access hits.
void BM_NvidiaResidentHits(benchmark::State& state) {
  static const auto t =
      page_trace(64_MiB, true, [](std::uint64_t i) { return i % (64_MiB / sim::kPageSize); });
  run(state, t, 0, nvidia());
}
BENCHMARK(BM_NvidiaResidentHits)->Unit(benchmark::kMillisecond);

// Uniformly random pages of 1 GiB with 256 MiB of GPU memory: most accesses fault and evict.
void BM_NvidiaOversubscribedRandom(benchmark::State& state) {
  static const auto t = page_trace(1_GiB, false, [rng = std::mt19937_64(42)](std::uint64_t) mutable {
    return rng() % (1_GiB / sim::kPageSize);
  });
  run(state, t, 256_MiB, nvidia());
}
BENCHMARK(BM_NvidiaOversubscribedRandom)->Unit(benchmark::kMillisecond);

// Random pages within a 64 MiB window sliding over 1 GiB with 512 MiB of GPU memory.
void BM_NvidiaOversubscribedRandomWindow(benchmark::State& state) {
  static const auto t = page_trace(1_GiB, false, [rng = std::mt19937_64(7)](std::uint64_t i) mutable {
    const std::uint64_t window = 64_MiB / sim::kPageSize, total = 1_GiB / sim::kPageSize;
    return (i / 16 + rng() % window) % total;
  });
  run(state, t, 512_MiB, nvidia());
}
BENCHMARK(BM_NvidiaOversubscribedRandomWindow)->Unit(benchmark::kMillisecond);

// Random 64 KiB tiles of 1 GiB, each read page by page, with 512 MiB of GPU memory
// (200%): every tile faults; the tree prefetcher turns each tile's first fault into
// one 64 KiB migration.
void BM_NvidiaOversubscribedRandomTiles(benchmark::State& state) {
  static const auto t =
      page_trace(1_GiB, false, [rng = std::mt19937_64(11), tile = std::uint64_t{0}](std::uint64_t i) mutable {
        if (i % 16 == 0) tile = rng() % (1_GiB / 64_KiB);
        return tile * 16 + i % 16;
      });
  run(state, t, 512_MiB, nvidia());
}
BENCHMARK(BM_NvidiaOversubscribedRandomTiles)->Unit(benchmark::kMillisecond);

// The same resident-hit trace with LRU eviction: the per-hit access callback's cost.
void BM_LruResidentHits(benchmark::State& state) {
  static const auto t =
      page_trace(64_MiB, true, [](std::uint64_t i) { return i % (64_MiB / sim::kPageSize); });
  run(state, t, 0, {"tree", "lru", "driver", "driver"});
}
BENCHMARK(BM_LruResidentHits)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace umsim::policies
