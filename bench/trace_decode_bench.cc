// Trace decoding throughput: binary (zstd + varint records) and text.
// Bytes processed = decoded records (sizeof(Event) each), the unit of the
// project's floor of 1 GB/s for binary decoding on one core.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "bench/trace_bench_util.h"
#include "traces/trace_reader.h"
#include "traces/trace_writer.h"

namespace umsim::trace {
namespace {

void decode_file(benchmark::State& state, const std::string& path) {
  std::vector<Event> batch(static_cast<std::size_t>(state.range(0)));
  std::int64_t records = 0;
  for (auto _ : state) {
    auto reader = open_trace(path);
    std::size_t n;
    while ((n = reader->read(batch)) > 0) {
      records += static_cast<std::int64_t>(n);
      benchmark::DoNotOptimize(batch.data());
    }
  }
  state.SetItemsProcessed(records);
  state.SetBytesProcessed(records * static_cast<std::int64_t>(sizeof(Event)));
  state.counters["file_bytes"] = static_cast<double>(std::filesystem::file_size(path));
}

void BM_BinaryDecode(benchmark::State& state) {
  static const std::string path = [] {
    const std::string p = temp_path("umsim_bench_trace.umtb");
    write_synthetic_trace(p, Encoding::kBinary, 4'000'000);
    return p;
  }();
  decode_file(state, path);
}
BENCHMARK(BM_BinaryDecode)->Arg(256)->Arg(4096)->Unit(benchmark::kMillisecond);

void BM_TextParse(benchmark::State& state) {
  static const std::string path = [] {
    const std::string p = temp_path("umsim_bench_trace.umt");
    write_synthetic_trace(p, Encoding::kText, 1'000'000);
    return p;
  }();
  decode_file(state, path);
  state.counters["text_bytes_per_s"] = benchmark::Counter(
      static_cast<double>(std::filesystem::file_size(path)) * static_cast<double>(state.iterations()),
      benchmark::Counter::kIsRate);
}
BENCHMARK(BM_TextParse)->Arg(4096)->Unit(benchmark::kMillisecond);

void BM_BinaryEncode(benchmark::State& state) {
  std::vector<Event> events;
  std::mt19937_64 rng(7);
  for (int i = 0; i < 1'000'000; ++i) {
    Event e;
    e.kind = EventKind::kGpuAccess;
    e.offset = (rng() % 16 == 0) ? (rng() % (1u << 20)) * kPageSize : static_cast<Bytes>(i) * kPageSize;
    e.length = kPageSize;
    events.push_back(e);
  }
  std::int64_t records = 0;
  for (auto _ : state) {
    std::string out;
    auto w = create_trace_writer_to_string(&out, Encoding::kBinary);
    for (const Event& e : events) w->write(e, "buffer");
    w->finish();
    records += static_cast<std::int64_t>(events.size());
    benchmark::DoNotOptimize(out.data());
  }
  state.SetItemsProcessed(records);
  state.SetBytesProcessed(records * static_cast<std::int64_t>(sizeof(Event)));
}
BENCHMARK(BM_BinaryEncode)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace umsim::trace
