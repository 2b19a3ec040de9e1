// The cache simulator's own ground: a Zipf(1.0) request stream over 2 M pages
// of 4 KiB (20 M requests), a GPU memory of 10% of the pages, LRU at 4 KiB,
// prefetching off, under the `ideal` profile (no batching, no costs: a cache
// simulation) and under the default H200 profile. libCacheSim's LRU replays the
// same stream at 7.7 M requests/s on the 2-core development machine.
//   ./bazelw run -c opt //bench:zipf_cache_bench
// Floors (one core, -c opt): ideal >= 30 M requests/s, default >= 15 M/s; the
// miss count (GPU faults) equals a plain LRU's on the same stream; the replay's
// peak memory (counter replay_peak_MiB) <= 64 MiB.
#include <malloc.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <string>
#include <list>
#include <random>
#include <unordered_map>
#include <vector>

#include <benchmark/benchmark.h>

#include "policies/policy_kinds.h"
#include "sim/engine.h"
#include "sim/profile_lookup.h"
#include "traces/event_factory.h"
#include "traces/trace_reader.h"

namespace umsim::sim {
namespace {

constexpr std::uint64_t kRequests = 20'000'000;
constexpr std::uint32_t kPages = 2'000'000;
constexpr std::uint64_t kCachePages = kPages / 10;

// Page of each request: Zipf(1.0) ranks by inverse CDF (binary search), the
// ranks scattered over the allocation by a fixed permutation (hot pages do not
// share VA blocks more than chance says). Seeded: the same stream every run.
const std::vector<std::uint32_t>& zipf_pages() {
  static const std::vector<std::uint32_t> pages = [] {
    std::vector<double> cdf(kPages);
    double sum = 0;
    for (std::uint32_t r = 0; r < kPages; ++r) cdf[r] = sum += 1.0 / (r + 1.0);
    for (double& c : cdf) c /= sum;
    std::vector<std::uint32_t> page_of_rank(kPages);
    for (std::uint32_t r = 0; r < kPages; ++r) page_of_rank[r] = r;
    std::mt19937_64 rng(20250101);
    std::shuffle(page_of_rank.begin(), page_of_rank.end(), rng);
    std::vector<std::uint32_t> out(kRequests);
    for (auto& p : out) {
      const double u = static_cast<double>(rng() >> 11) * 0x1.0p-53;
      const auto r = static_cast<std::uint32_t>(std::lower_bound(cdf.begin(), cdf.end(), u) - cdf.begin());
      p = page_of_rank[std::min(r, kPages - 1)];
    }
    return out;
  }();
  return pages;
}

// Misses of a plain LRU cache of kCachePages pages on the stream (a list and a
// hash map, as a cache simulator keeps them): the number the replay must match.
std::uint64_t reference_lru_misses() {
  static const std::uint64_t misses = [] {
    std::list<std::uint32_t> order;
    std::unordered_map<std::uint32_t, std::list<std::uint32_t>::iterator> where;
    std::uint64_t m = 0;
    for (std::uint32_t p : zipf_pages()) {
      auto it = where.find(p);
      if (it != where.end()) {
        order.splice(order.end(), order, it->second);
        continue;
      }
      ++m;
      if (order.size() == kCachePages) {
        where.erase(order.front());
        order.pop_front();
      }
      where[p] = order.insert(order.end(), p);
    }
    return m;
  }();
  return misses;
}

// Streams the trace (alloc, one kernel of one-page reads, kernel end) from the
// page list, 48-byte Events in the engine's batches: nothing is decoded.
class ZipfReader final : public trace::TraceReader {
 public:
  ZipfReader() {
    alloc_ = names_.intern("A");
    kernel_ = names_.intern("k");
    access_ = trace::events::access(trace::EventKind::kGpuAccess, trace::AccessType::kRead, 0, kPageSize, 0, 1);
    access_.name = alloc_;
  }
  std::size_t read(std::span<trace::Event> out) override {
    const auto& pages = zipf_pages();
    std::size_t n = 0;
    if (next_ == 0 && n < out.size()) {
      out[n] = trace::events::alloc(std::uint64_t{kPages} * kPageSize, trace::AllocKind::kManaged,
                                    trace::Processor::none());
      out[n++].name = alloc_;
      ++next_;
    }
    if (next_ == 1 && n < out.size()) {
      out[n] = trace::events::kernel_begin(0, 0, 0);
      out[n++].name = kernel_;
      ++next_;
    }
    // The requests in a loop of their own (a request differs from access_,
    // made once, only in its page), as a trace decoder's inner loop runs.
    const std::uint64_t requests = std::min<std::uint64_t>(out.size() - n, kRequests + 2 - std::min(next_, kRequests + 2));
    for (std::uint64_t r = 0; r < requests; ++r, ++n) {
      out[n] = access_;
      out[n].offset = std::uint64_t{pages[next_ - 2 + r]} * kPageSize;
    }
    next_ += requests;
    if (next_ == kRequests + 2 && n < out.size()) {
      out[n++] = trace::events::of_kind(trace::EventKind::kKernelEnd);
      ++next_;
    }
    return n;
  }
  const trace::NameTable& names() const override { return names_; }
  std::string position(std::size_t) const override { return "<zipf>"; }
  const std::string& source() const override { return source_; }

 private:
  trace::NameTable names_;
  trace::NameId alloc_ = 0, kernel_ = 0;
  trace::Event access_;
  std::uint64_t next_ = 0;
  std::string source_ = "<zipf>";
};

// Resident memory in KiB from /proc/self/status ("VmRSS:" now, "VmHWM:" peak).
std::uint64_t status_kib(const char* key) {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind(key, 0) == 0) return std::stoull(line.substr(std::strlen(key)));
  return 0;
}

void run(benchmark::State& state, const char* profile) {
  zipf_pages();  // generated once, outside the measurement
  const std::uint64_t expected = reference_lru_misses();
  std::uint64_t misses = 0;
  // The replay's own peak memory: the peak resident set (reset through
  // clear_refs) over what is resident before it (the request list included).
  malloc_trim(0);
  const std::uint64_t before_kib = status_kib("VmRSS:");
  std::ofstream("/proc/self/clear_refs") << "5";
  for (auto _ : state) {
    EngineOptions o;
    o.profile = load_profile(profile);
    o.gpu_memory = kCachePages * kPageSize;
    EnginePolicies p;
    p.prefetch = policies::Registry<PrefetchPolicy>::instance().create("none");
    p.eviction = policies::Registry<EvictionPolicy>::instance().create("lru:granularity=4KiB");
    Engine engine(std::move(o), std::move(p));
    ZipfReader reader;
    const Result r = engine.run(reader);
    misses = r.total.gpu_faults;
    benchmark::DoNotOptimize(r.total.time_ns);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * kRequests));
  state.counters["misses"] = static_cast<double>(misses);
  state.counters["reference_misses"] = static_cast<double>(expected);
  state.counters["replay_peak_MiB"] = static_cast<double>(status_kib("VmHWM:") - before_kib) / 1024.0;
  if (std::string(profile) == "ideal" && misses != expected)
    state.SkipWithError("miss count differs from the reference LRU");
}

void BM_ZipfLru4KIdeal(benchmark::State& state) { run(state, "ideal"); }
BENCHMARK(BM_ZipfLru4KIdeal)->Unit(benchmark::kMillisecond)->Iterations(1);

void BM_ZipfLru4KDefaultProfile(benchmark::State& state) { run(state, "h200-pcie5"); }
BENCHMARK(BM_ZipfLru4KDefaultProfile)->Unit(benchmark::kMillisecond)->Iterations(1);

}  // namespace
}  // namespace umsim::sim
