// Importer throughput: input lines and bytes per second for NVBit mem_trace
// text and column-mapped CSV (both passes: allocation inference + reduction),
// into a writer that only counts.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "traces/generators/trace_summary.h"
#include "traces/importers/importer.h"

namespace {

// A synthetic mem_trace file: `kernels` launches, each with `warps` LDG/STG lines of 32 lanes.
std::string make_nvbit(int kernels, int warps, std::size_t* bytes, std::size_t* lines) {
  const std::string path = "/tmp/umsim_bench_nvbit.txt";
  std::ofstream out(path);
  char buf[64];
  for (int k = 0; k < kernels; ++k) {
    out << "MEMTRACE: CTX 0x0000000000000001 - LAUNCH - Kernel pc 0x0000000000000002 - Kernel name k" << k
        << " - grid launch id " << k << " - grid size 1,1,1 - block size 32,1,1 - nregs 8 - shmem 0 - cuda stream id 0\n";
    for (int w = 0; w < warps; ++w) {
      out << "MEMTRACE: CTX 0x0000000000000001 - grid_launch_id " << k << " - CTA 0,0,0 - warp " << w % 32 << " - "
          << (w % 3 == 2 ? "STG.E" : "LDG.E") << " -";
      const unsigned long long base = 0x7f0000000000ULL + (w % 3) * 0x10000000ULL + static_cast<unsigned long long>(w) * 128;
      for (int l = 0; l < 32; ++l) {
        std::snprintf(buf, sizeof buf, " 0x%016llx", base + l * 4);
        out << buf;
      }
      out << " \n";
    }
  }
  out.close();
  std::ifstream in(path, std::ios::ate);
  *bytes = static_cast<std::size_t>(in.tellg());
  *lines = static_cast<std::size_t>(kernels) * (warps + 1);
  return path;
}

std::string make_csv(int rows, std::size_t* bytes) {
  const std::string path = "/tmp/umsim_bench_accesses.csv";
  std::ofstream out(path);
  for (int r = 0; r < rows; ++r)
    out << r << "," << (r % 4 == 0 ? "w" : "r") << ",0x" << std::hex << (0x7f0000000000ULL + (r * 4096ULL) % (256 << 20))
        << std::dec << ",64,k" << r / 10000 << ",gpu0,1\n";
  out.close();
  std::ifstream in(path, std::ios::ate);
  *bytes = static_cast<std::size_t>(in.tellg());
  return path;
}

void BM_ImportNvbit(benchmark::State& state) {
  std::size_t bytes = 0, lines = 0;
  const std::string path = make_nvbit(8, 20000, &bytes, &lines);
  for (auto _ : state) {
    umsim::gen::SummaryWriter counting;
    auto r = umsim::import::import_trace("nvbit", path, {}, counting);
    benchmark::DoNotOptimize(r.stats.accesses);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * lines));
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * bytes));
  std::remove(path.c_str());
}
BENCHMARK(BM_ImportNvbit)->Unit(benchmark::kMillisecond);

void BM_ImportCsv(benchmark::State& state) {
  std::size_t bytes = 0;
  const int rows = 500000;
  const std::string path = make_csv(rows, &bytes);
  umsim::import::ImportOptions o;
  o.columns = "time=0,op=1,addr=2,size=3,kernel=4,proc=5,stream=6";
  for (auto _ : state) {
    umsim::gen::SummaryWriter counting;
    auto r = umsim::import::import_trace("csv", path, o, counting);
    benchmark::DoNotOptimize(r.stats.accesses);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * rows));
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * bytes));
  std::remove(path.c_str());
}
BENCHMARK(BM_ImportCsv)->Unit(benchmark::kMillisecond);

}  // namespace
