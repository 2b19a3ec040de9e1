// Generator throughput: events (and page touches) produced per second into a
// writer that only counts, and into the text and binary encoders.
#include <benchmark/benchmark.h>

#include <string>

#include "traces/generators/generator_registry.h"
#include "traces/generators/trace_summary.h"
#include "traces/trace_writer.h"

namespace {

void run(benchmark::State& state, const char* name, const char* params) {
  umsim::gen::TraceSummary last;
  for (auto _ : state) {
    umsim::gen::SummaryWriter counting;
    umsim::gen::generate_trace(name, params, counting);
    last = counting.summary();
    benchmark::DoNotOptimize(last.events);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * last.events));
  state.counters["page_touches/s"] =
      benchmark::Counter(static_cast<double>(state.iterations() * last.page_touches), benchmark::Counter::kIsRate);
}

void BM_Random(benchmark::State& s) { run(s, "random", "footprint=256MiB,iterations=4,accesses=65536"); }
void BM_Bfs(benchmark::State& s) { run(s, "bfs", "footprint=64MiB,iterations=1"); }
void BM_HashJoin(benchmark::State& s) { run(s, "hashjoin", "footprint=64MiB"); }
void BM_Gemm(benchmark::State& s) { run(s, "gemm", "footprint=192MiB,tile=128"); }
void BM_Training(benchmark::State& s) { run(s, "training", "footprint=1GiB,layers=48,iterations=8"); }
void BM_LlmDecode(benchmark::State& s) { run(s, "llm_decode", "footprint=256MiB,layers=32,iterations=256"); }
BENCHMARK(BM_Random)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Bfs)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_HashJoin)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Gemm)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Training)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_LlmDecode)->Unit(benchmark::kMillisecond);

// Generation plus encoding: bytes of trace written per second.
void encode(benchmark::State& state, umsim::trace::Encoding encoding) {
  std::size_t bytes = 0, events = 0;
  for (auto _ : state) {
    std::string out;
    auto writer = umsim::trace::create_trace_writer_to_string(&out, encoding);
    umsim::gen::SummaryWriter counting(writer.get());
    umsim::gen::generate_trace("random", "footprint=256MiB,iterations=4,accesses=65536", counting);
    counting.finish();
    bytes = out.size();
    events = counting.summary().events;
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * events));
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * bytes));
}
void BM_RandomToText(benchmark::State& s) { encode(s, umsim::trace::Encoding::kText); }
void BM_RandomToBinary(benchmark::State& s) { encode(s, umsim::trace::Encoding::kBinary); }
BENCHMARK(BM_RandomToText)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_RandomToBinary)->Unit(benchmark::kMillisecond);

}  // namespace
