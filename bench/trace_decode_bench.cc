// Trace decoding throughput: binary (zstd + varint records) and text.
// Bytes processed = decoded records (sizeof(Event) each), the unit of the
// project's floor of 1 GB/s for binary decoding on one core.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "traces/trace_reader.h"
#include "traces/trace_writer.h"

namespace umsim::trace {
namespace {

// A replay-like trace: a few allocations, kernels of mostly sequential page
// accesses with some strided and random ones, occasional prefetches and syncs.
void write_synthetic_trace(const std::string& path, Encoding encoding, std::size_t accesses) {
  auto w = create_trace_writer(path, encoding);
  const char* names[] = {"weights", "activations", "grads", "scratch"};
  constexpr Bytes kSize = 1ull << 32;
  Event alloc;
  alloc.kind = EventKind::kAlloc;
  alloc.length = kSize;
  for (const char* n : names) w->write(alloc, n);
  std::mt19937_64 rng(42);
  Bytes cursor[4] = {};
  std::size_t written = 0;
  int kernel = 0;
  while (written < accesses) {
    Event k;
    k.kind = EventKind::kKernelBegin;
    k.processor = Processor::gpu(0);
    k.stream = 1;
    k.duration = 50000;
    w->write(k, "kernel" + std::to_string(kernel++ % 16));
    for (int i = 0; i < 1000 && written < accesses; ++i, ++written) {
      Event e;
      e.kind = EventKind::kGpuAccess;
      const unsigned a = rng() % 4;
      e.op = static_cast<std::uint8_t>(rng() % 8 == 0 ? AccessType::kWrite : AccessType::kRead);
      const unsigned pattern = rng() % 16;
      if (pattern < 12) {  // sequential pages
        e.offset = cursor[a];
        e.length = kPageSize;
      } else if (pattern < 15) {  // strided range
        e.offset = cursor[a];
        e.length = 64 * kPageSize;
        e.stride = 2 * kPageSize;
      } else {  // random page
        e.offset = (rng() % (kSize / kPageSize)) * kPageSize;
        e.length = kPageSize;
      }
      cursor[a] = (e.offset + e.length) % (kSize - 64 * kPageSize);
      w->write(e, names[a]);
    }
    Event end;
    end.kind = EventKind::kKernelEnd;
    w->write(end, "");
  }
  w->finish();
}

std::string temp_path(const char* name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  return (std::filesystem::path(dir != nullptr ? dir : std::filesystem::temp_directory_path().c_str()) / name)
      .string();
}

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
