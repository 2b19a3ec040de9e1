// Replay throughput of the model, counting page accesses that arrive one
// Event each (from a MemoryTraceReader, so decoding is not measured).
//   ./bazelw run //bench:sim_replay_bench
// Floors (one core, -c opt): resident hits >= 200 M accesses/s; fault-heavy
// oversubscribed random >= 20 M accesses/s.
#include <random>

#include <benchmark/benchmark.h>

#include "sim/engine.h"
#include "traces/memory_trace_reader.h"
#include "bench/replay_bench_traces.h"
#include "traces/trace_builder.h"

namespace umsim::sim {
namespace {

using namespace trace::literals;

using bench::bench_profile;
using bench::kAccesses;
using bench::page_trace;

// Replays `t` (`items` page accesses or touches a run) on `gpus` GPUs of
// `gpu_memory` each (0: the profile's).
void run(benchmark::State& state, const std::shared_ptr<const trace::BuiltTrace>& t, Bytes gpu_memory,
         int gpus = 1, std::uint64_t items = kAccesses, const char* faults_per = "faults_per_access") {
  std::uint64_t faults = 0;
  for (auto _ : state) {
    EngineOptions o;
    o.profile = bench_profile();
    o.profile.gpus = gpus;
    o.gpu_memory = gpu_memory;
    Engine engine(std::move(o), {});
    trace::MemoryTraceReader reader(t);
    const Result r = engine.run(reader);
    faults = r.total.gpu_faults;
    benchmark::DoNotOptimize(r.total.time_ns);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * items));
  state.counters[faults_per] = static_cast<double>(faults) / static_cast<double>(items);
}

// Sequential sweeps over 64 MiB already prefetched to the GPU: every access hits.
void BM_ResidentHits(benchmark::State& state) {
  static const auto t = page_trace(64_MiB, true, [](std::uint64_t i) { return i % (64_MiB / kPageSize); });
  run(state, t, 0);
}
BENCHMARK(BM_ResidentHits)->Unit(benchmark::kMillisecond);

// Uniformly random pages of a 1 GiB buffer with 256 MiB of GPU memory (400%
// oversubscription): most accesses fault, most faults evict.
void BM_OversubscribedRandom(benchmark::State& state) {
  static const auto t = page_trace(1_GiB, false, [rng = std::mt19937_64(42)](std::uint64_t) mutable {
    return rng() % (1_GiB / kPageSize);
  });
  run(state, t, 256_MiB);
}
BENCHMARK(BM_OversubscribedRandom)->Unit(benchmark::kMillisecond);

// Random pages within a 64 MiB window sliding over 1 GiB (150% of 512 MiB):
// faults with locality, as graph / sparse kernels show.
void BM_OversubscribedRandomWindow(benchmark::State& state) {
  static const auto t = page_trace(1_GiB, false, [rng = std::mt19937_64(7)](std::uint64_t i) mutable {
    const std::uint64_t window = 64_MiB / kPageSize, total = 1_GiB / kPageSize;
    return (i / 16 + rng() % window) % total;
  });
  run(state, t, 512_MiB);
}
BENCHMARK(BM_OversubscribedRandomWindow)->Unit(benchmark::kMillisecond);

// Range records: each event reads 64 KiB (16 pages) of 64 MiB already on the
// GPU; items are page accesses.
void BM_ResidentRangeRecords(benchmark::State& state) {
  static const auto t = [] {
    trace::TraceBuilder b;
    b.alloc("A", 64_MiB).cpu_write("A").prefetch("A", trace::Processor::gpu(0)).sync().kernel("k", 0, 1000);
    for (std::uint64_t i = 0; i < kAccesses / 16; ++i) b.read("A", (i % (64_MiB / 64_KiB)) * 64_KiB, 64_KiB);
    return std::make_shared<const trace::BuiltTrace>(b.end().build());
  }();
  run(state, t, 0);
}
BENCHMARK(BM_ResidentRangeRecords)->Unit(benchmark::kMillisecond);

// Random 64 KiB tiles of a 1 GiB buffer, each read page by page (16 events),
// with 512 MiB of GPU memory (200% oversubscription): about half of all
// accesses fault, and most fault batches evict.
void BM_OversubscribedRandomTiles(benchmark::State& state) {
  static const auto t = page_trace(1_GiB, false, [rng = std::mt19937_64(11), tile = std::uint64_t{0}](std::uint64_t i) mutable {
    if (i % 16 == 0) tile = rng() % (1_GiB / 64_KiB);
    return tile * 16 + i % 16;
  });
  run(state, t, 512_MiB);
}
BENCHMARK(BM_OversubscribedRandomTiles)->Unit(benchmark::kMillisecond);

// Streams on one timeline: 8 streams on 2 GPUs (4 each), four rounds of 8
// kernels launched together (1 M accesses a round, then a sync). Each kernel
// sweeps its own 64 MiB slice of a CPU-written 512 MiB buffer page by page, 8
// times a round (the first pass faults, the others hit), and every 16th access
// reads one 8 MiB buffer all of them share, which the two GPUs pull back and
// forth: the scheduler interleaves the kernels access by access.
void BM_EightStreamsTwoGpus(benchmark::State& state) {
  static const auto t = [] {
    constexpr std::uint64_t kStreams = 8, kRounds = 4, kPerKernel = kAccesses / kRounds / kStreams;
    constexpr std::uint64_t kSlicePages = 64_MiB / kPageSize, kSharedPages = 8_MiB / kPageSize;
    trace::TraceBuilder b;
    b.alloc("A", 512_MiB).alloc("S", 8_MiB).cpu_write("A").cpu_write("S");
    trace::Event e;
    e.kind = trace::EventKind::kGpuAccess;
    e.length = kPageSize;
    std::mt19937_64 rng(5);
    for (std::uint64_t round = 0; round < kRounds; ++round) {
      for (std::uint64_t s = 0; s < kStreams; ++s) {
        b.kernel("k", static_cast<int>(s % 2), 1000, static_cast<trace::StreamId>(s + 1));
        for (std::uint64_t i = 0; i < kPerKernel; ++i) {
          if (i % 16 == 15) {
            e.offset = (rng() % kSharedPages) * kPageSize;
            b.raw(e, "S");
          } else {
            e.offset = (s * kSlicePages + (round * kPerKernel + i) % kSlicePages) * kPageSize;
            b.raw(e, "A");
          }
        }
        b.end();
      }
      b.sync();
    }
    return std::make_shared<const trace::BuiltTrace>(b.build());
  }();
  run(state, t, 0, 2);
}
BENCHMARK(BM_EightStreamsTwoGpus)->Unit(benchmark::kMillisecond);

// The same eight streams with range records: each kernel reads its 64 MiB
// slice as one range 8 times a round and the shared 8 MiB buffer once, so the
// scheduler replays the ranges in parts (a lane step at a time) between the
// kernels running beside them. Items are page touches.
void BM_EightStreamsTwoGpusRanges(benchmark::State& state) {
  constexpr std::uint64_t kStreams = 8, kRounds = 4, kPasses = 8;
  constexpr std::uint64_t kSlicePages = 64_MiB / kPageSize, kSharedPages = 8_MiB / kPageSize;
  static const auto t = [] {
    trace::TraceBuilder b;
    b.alloc("A", 512_MiB).alloc("S", 8_MiB).cpu_write("A").cpu_write("S");
    for (std::uint64_t round = 0; round < kRounds; ++round) {
      for (std::uint64_t s = 0; s < kStreams; ++s) {
        b.kernel("k", static_cast<int>(s % 2), 1000, static_cast<trace::StreamId>(s + 1));
        for (std::uint64_t pass = 0; pass < kPasses; ++pass) b.read("A", s * 64_MiB, 64_MiB);
        b.read("S");
        b.end();
      }
      b.sync();
    }
    return std::make_shared<const trace::BuiltTrace>(b.build());
  }();
  run(state, t, 0, 2, kRounds * kStreams * (kPasses * kSlicePages + kSharedPages), "faults_per_touch");
}
BENCHMARK(BM_EightStreamsTwoGpusRanges)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace umsim::sim
