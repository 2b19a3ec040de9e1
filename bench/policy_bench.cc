// Per-decision cost of the policies on the fault and eviction paths:
// the tree prefetcher (once per VA block per fault batch) and the eviction hooks
// of FIFO (driver) and LRU (per resident hit when access callbacks are on).
//   ./bazelw run //bench:policy_bench
#include <random>
#include <vector>

#include <benchmark/benchmark.h>

#include "policies/policy_kinds.h"

namespace umsim::policies {
namespace {

template <typename Interface>
std::unique_ptr<Interface> make(const char* spec) {
  return Registry<Interface>::instance().create(spec);
}

sim::PrefetchRequest request(int faults, int resident_pages, std::uint32_t seed) {
  sim::PrefetchRequest r;
  r.destination = sim::Processor::gpu(0);
  r.fault_migrations_to_destination = 1;
  std::mt19937 rng(seed);
  for (int i = 0; i < resident_pages; ++i) {
    const auto p = rng() % sim::kPagesPerBlock;
    r.resident_on_destination.set(p);
    r.resident_anywhere.set(p);
  }
  for (int i = 0; i < faults; ++i) {
    const auto p = rng() % sim::kPagesPerBlock;
    if (!r.resident_on_destination.test(p)) r.faulted.set(p);
  }
  return r;
}

// Arg 0: faulted pages per block and batch; arg 1: pages already resident.
void BM_TreePrefetch(benchmark::State& state) {
  auto tree = make<sim::PrefetchPolicy>("tree");
  std::vector<sim::PrefetchRequest> reqs;
  for (std::uint32_t s = 0; s < 64; ++s) reqs.push_back(request(state.range(0), state.range(1), s));
  std::size_t i = 0;
  std::uint64_t prefetched = 0;
  for (auto _ : state) {
    sim::PageMask out;
    tree->prefetch(reqs[i++ & 63], out);
    prefetched += out.count();
    benchmark::DoNotOptimize(out);
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["pages/decision"] = benchmark::Counter(static_cast<double>(prefetched) / state.iterations());
}
BENCHMARK(BM_TreePrefetch)->Args({1, 0})->Args({16, 128})->Args({64, 256})->Args({256, 0});

sim::EvictionContext context(std::uint32_t chunks) {
  sim::EvictionContext ctx;
  ctx.gpus = 1;
  ctx.chunks_per_gpu = chunks;
  ctx.evictable = [](int, std::uint32_t) { return true; };
  return ctx;
}

// Steady oversubscription: each item = choose a victim, free it, allocate the slot again.
void eviction_cycle(benchmark::State& state, const char* spec) {
  const auto chunks = static_cast<std::uint32_t>(state.range(0));
  auto p = make<sim::EvictionPolicy>(spec);
  p->attach(context(chunks));
  sim::ChunkInfo c;
  for (std::uint32_t s = 0; s < chunks; ++s) {
    c.slot = s;
    c.first_page = std::uint64_t{s} * sim::kPagesPerBlock;
    p->on_chunk_allocated(c, 0);
  }
  std::uint64_t next_page = std::uint64_t{chunks} * sim::kPagesPerBlock;
  for (auto _ : state) {
    c.slot = p->choose_victim(0, 0);
    p->on_chunk_freed(c);
    c.first_page = next_page;
    next_page += sim::kPagesPerBlock;
    p->on_chunk_allocated(c, 0);
  }
  state.SetItemsProcessed(state.iterations());
}
void BM_FifoEvictionCycle(benchmark::State& state) { eviction_cycle(state, "fifo"); }
void BM_LruEvictionCycle(benchmark::State& state) { eviction_cycle(state, "lru"); }
BENCHMARK(BM_FifoEvictionCycle)->Arg(1024)->Arg(65536);
BENCHMARK(BM_LruEvictionCycle)->Arg(1024)->Arg(65536);

// LRU's per-hit hook: move the accessed chunk to the list tail (random chunks).
void BM_LruOnAccess(benchmark::State& state) {
  const auto chunks = static_cast<std::uint32_t>(state.range(0));
  auto p = make<sim::EvictionPolicy>("lru");
  p->attach(context(chunks));
  sim::ChunkInfo c;
  for (std::uint32_t s = 0; s < chunks; ++s) {
    c.slot = s;
    p->on_chunk_allocated(c, 0);
  }
  std::vector<std::uint32_t> order(4096);
  std::mt19937 rng(1);
  for (auto& o : order) o = rng() % chunks;
  std::uint64_t seq = 0;
  for (auto _ : state) {
    c.slot = order[seq & 4095];
    p->on_chunk_accessed(c, ++seq, 0);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_LruOnAccess)->Arg(1024)->Arg(65536);

}  // namespace
}  // namespace umsim::policies
