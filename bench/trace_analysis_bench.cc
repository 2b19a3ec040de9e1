// Throughput of `umsim trace check` and `umsim trace stat` over a binary trace
// (decoding included): events per second.
#include <benchmark/benchmark.h>

#include <string>

#include "bench/trace_bench_util.h"
#include "traces/trace_checker.h"
#include "traces/trace_reader.h"
#include "traces/trace_stats.h"

namespace umsim::trace {
namespace {

const std::string& bench_trace() {
  static const std::string path = [] {
    const std::string p = temp_path("umsim_bench_analysis.umtb");
    write_synthetic_trace(p, Encoding::kBinary, 2'000'000);
    return p;
  }();
  return path;
}

void BM_TraceCheck(benchmark::State& state) {
  std::int64_t events = 0;
  for (auto _ : state) {
    auto reader = open_trace(bench_trace());
    const CheckSummary s = check_trace(*reader, [](const TraceProblem&) {});
    events += static_cast<std::int64_t>(s.events);
  }
  state.SetItemsProcessed(events);
}
BENCHMARK(BM_TraceCheck)->Unit(benchmark::kMillisecond);

void BM_TraceStats(benchmark::State& state) {
  std::int64_t events = 0;
  for (auto _ : state) {
    auto reader = open_trace(bench_trace());
    const TraceStats s = collect_stats(*reader);
    events += static_cast<std::int64_t>(s.events);
    benchmark::DoNotOptimize(s.pages_touched);
  }
  state.SetItemsProcessed(events);
}
BENCHMARK(BM_TraceStats)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace umsim::trace
