// The model as a cache simulator: under the `ideal` profile (faults serviced
// one at a time, no costs), prefetching off and eviction at 4 KiB, a kernel's
// GPU faults are the misses of its eviction policy as a cache of
// --gpu-mem / 4 KiB pages. On seeded uniform and Zipf page streams, the fault
// counts of lru, fifo, clock, lfu and belady equal a plain implementation of
// each below (vectors and linear scans). The LRU, FIFO, CLOCK (new pages
// unreferenced, just behind the hand) and Belady MIN definitions are
// libCacheSim's; LFU here breaks ties by the oldest insertion and counts hits
// since insertion.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "policies/policy_kinds.h"
#include "sim/engine.h"
#include "sim/profile_lookup.h"
#include "traces/memory_trace_reader.h"
#include "traces/trace_builder.h"

namespace umsim::policies {
namespace {

using Stream = std::vector<std::uint32_t>;  // page of each request

constexpr std::uint32_t kPages = 3000;

Stream uniform_stream(std::uint32_t seed, std::size_t n) {
  std::mt19937_64 rng(seed);
  Stream s(n);
  for (auto& p : s) p = static_cast<std::uint32_t>(rng() % kPages);
  return s;
}

Stream zipf_stream(std::uint32_t seed, std::size_t n, double alpha) {
  std::vector<double> cdf(kPages);
  double sum = 0;
  for (std::uint32_t r = 0; r < kPages; ++r) cdf[r] = sum += 1.0 / std::pow(r + 1.0, alpha);
  std::vector<std::uint32_t> page_of_rank(kPages);
  for (std::uint32_t r = 0; r < kPages; ++r) page_of_rank[r] = r;
  std::mt19937_64 rng(seed);
  std::shuffle(page_of_rank.begin(), page_of_rank.end(), rng);
  Stream s(n);
  for (auto& p : s) {
    const double u = static_cast<double>(rng() >> 11) * 0x1.0p-53 * sum;
    const auto r = static_cast<std::size_t>(std::lower_bound(cdf.begin(), cdf.end(), u) - cdf.begin());
    p = page_of_rank[std::min<std::size_t>(r, kPages - 1)];
  }
  return s;
}

// ---- plain references: misses of a cache of `size` pages --------------------

std::uint64_t lru_misses(const Stream& s, std::size_t size) {
  std::vector<std::uint32_t> cache;  // least recent first
  std::uint64_t misses = 0;
  for (std::uint32_t p : s) {
    auto it = std::find(cache.begin(), cache.end(), p);
    if (it != cache.end()) {
      cache.erase(it);
    } else {
      ++misses;
      if (cache.size() == size) cache.erase(cache.begin());
    }
    cache.push_back(p);
  }
  return misses;
}

std::uint64_t fifo_misses(const Stream& s, std::size_t size) {
  std::vector<std::uint32_t> cache;  // oldest insertion first
  std::uint64_t misses = 0;
  for (std::uint32_t p : s) {
    if (std::find(cache.begin(), cache.end(), p) != cache.end()) continue;
    ++misses;
    if (cache.size() == size) cache.erase(cache.begin());
    cache.push_back(p);
  }
  return misses;
}

std::uint64_t clock_misses(const Stream& s, std::size_t size) {
  std::vector<std::uint32_t> frame;
  std::vector<bool> referenced;
  std::size_t hand = 0;
  std::uint64_t misses = 0;
  for (std::uint32_t p : s) {
    auto it = std::find(frame.begin(), frame.end(), p);
    if (it != frame.end()) {
      referenced[static_cast<std::size_t>(it - frame.begin())] = true;
      continue;
    }
    ++misses;
    if (frame.size() < size) {
      frame.push_back(p);
      referenced.push_back(false);
      continue;
    }
    while (referenced[hand]) referenced[hand] = false, hand = (hand + 1) % size;
    frame[hand] = p;
    referenced[hand] = false;
    hand = (hand + 1) % size;
  }
  return misses;
}

std::uint64_t lfu_misses(const Stream& s, std::size_t size) {
  struct Entry {
    std::uint32_t page;
    std::uint64_t hits, inserted;
  };
  std::vector<Entry> cache;
  std::uint64_t misses = 0, t = 0;
  for (std::uint32_t p : s) {
    ++t;
    auto it = std::find_if(cache.begin(), cache.end(), [p](const Entry& e) { return e.page == p; });
    if (it != cache.end()) {
      ++it->hits;
      continue;
    }
    ++misses;
    if (cache.size() == size)
      cache.erase(std::min_element(cache.begin(), cache.end(), [](const Entry& a, const Entry& b) {
        return a.hits != b.hits ? a.hits < b.hits : a.inserted < b.inserted;
      }));
    cache.push_back({p, 0, t});
  }
  return misses;
}

std::uint64_t belady_misses(const Stream& s, std::size_t size) {
  std::vector<std::size_t> next(s.size());
  std::vector<std::size_t> seen(kPages, std::numeric_limits<std::size_t>::max());
  for (std::size_t i = s.size(); i-- > 0;) next[i] = seen[s[i]], seen[s[i]] = i;
  std::vector<std::uint32_t> cache;
  std::vector<std::size_t> next_use(kPages, 0);
  std::uint64_t misses = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const std::uint32_t p = s[i];
    next_use[p] = next[i];
    if (std::find(cache.begin(), cache.end(), p) != cache.end()) continue;
    ++misses;
    if (cache.size() == size)
      cache.erase(std::max_element(cache.begin(), cache.end(),
                                   [&](std::uint32_t a, std::uint32_t b) { return next_use[a] < next_use[b]; }));
    cache.push_back(p);
  }
  return misses;
}

// ---- the model ---------------------------------------------------------------

std::uint64_t model_misses(const Stream& s, std::size_t size, const std::string& evict) {
  trace::TraceBuilder b;
  b.alloc("A", std::uint64_t{kPages} * sim::kPageSize).kernel("k", 0, 0);
  for (std::uint32_t p : s) b.read("A", std::uint64_t{p} * sim::kPageSize, sim::kPageSize);
  const auto t = std::make_shared<const trace::BuiltTrace>(b.end().build());
  sim::EngineOptions o;
  o.profile = sim::load_profile("ideal");
  o.gpu_memory = size * sim::kPageSize;
  o.check_invariants = true;
  o.reopen = [t] { return std::make_unique<trace::MemoryTraceReader>(t); };
  sim::EnginePolicies p;
  p.prefetch = Registry<sim::PrefetchPolicy>::instance().create("none");
  p.eviction = Registry<sim::EvictionPolicy>::instance().create(evict);
  sim::Engine engine(std::move(o), std::move(p));
  trace::MemoryTraceReader reader(t);
  const Result r = engine.run(reader);
  EXPECT_EQ(r.total.fault_batches, r.total.gpu_faults) << "the ideal profile services every fault on its own";
  EXPECT_EQ(r.total.time_ns, 0u) << "the ideal profile has no costs";
  return r.total.gpu_faults;
}

struct Case {
  const char* name;
  Stream stream;
  std::size_t cache_pages;
};

std::vector<Case> cases() {
  return {{"uniform", uniform_stream(1, 20000), 600},
          {"uniform-large-cache", uniform_stream(2, 20000), 2048},
          {"zipf-0.8", zipf_stream(3, 30000, 0.8), 512},
          {"zipf-1.0", zipf_stream(4, 30000, 1.0), 700}};
}

template <typename Reference>
void expect_same_misses(const std::string& evict, Reference reference) {
  for (const Case& c : cases()) {
    const std::uint64_t expected = reference(c.stream, c.cache_pages);
    EXPECT_EQ(model_misses(c.stream, c.cache_pages, evict), expected) << evict << " on " << c.name;
    EXPECT_GT(expected, std::uint64_t{c.cache_pages}) << "the case must evict";
  }
}

TEST(CacheMissReference, Lru) { expect_same_misses("lru:granularity=4KiB", lru_misses); }
TEST(CacheMissReference, Fifo) { expect_same_misses("fifo:granularity=4KiB", fifo_misses); }
TEST(CacheMissReference, Clock) { expect_same_misses("clock:granularity=4KiB", clock_misses); }
TEST(CacheMissReference, Lfu) { expect_same_misses("lfu:granularity=4KiB", lfu_misses); }
TEST(CacheMissReference, Belady) { expect_same_misses("belady:granularity=4KiB", belady_misses); }

// Hand-checked: LRU and FIFO part on a stream where recency matters.
TEST(CacheMissReference, ReferencesDifferWhereTheyShould) {
  const Stream s = {1, 2, 1, 3, 1, 4};
  EXPECT_EQ(lru_misses(s, 2), 4u);   // 1 2 | 1 hit | 3 evicts 2 | 1 hit | 4 evicts 3
  EXPECT_EQ(fifo_misses(s, 2), 5u);  // 1 2 | 1 hit | 3 evicts 1 | 1 evicts 2 | 4 evicts 3
  EXPECT_EQ(belady_misses(s, 2), 4u);
}

}  // namespace
}  // namespace umsim::policies
