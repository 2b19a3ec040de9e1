// Property test: seeded random traces mixing every event kind, replayed under
// every vendor mode, several memory sizes and chunk granularities, with the
// invariant checker on after every event. Expectations that hold for any
// trace: no invariant breaks, totals equal the sum of the phases, bytes moved
// by eviction never exceed D2H, and two runs give identical results.
#include <random>
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "policies/policy_kinds.h"
#include "sim/fifo_eviction.h"
#include "tests/sim/sim_test_util.h"
#include "traces/trace_builder.h"

namespace umsim::sim {
namespace {

using namespace trace::literals;
using testing::options_for;
using testing::replay;
using testing::round_profile;
using trace::Advice;
using trace::AllocKind;
using trace::Processor;
using trace::TraceBuilder;

trace::BuiltTrace random_trace(unsigned seed, int gpus) {
  std::mt19937 rng(seed);
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  TraceBuilder b;
  const char* names[] = {"a", "b", "c", "d"};
  Bytes sizes[4] = {0, 0, 0, 0};
  bool device[4] = {false, false, false, false};
  for (int i = 0; i < 4; ++i) {
    sizes[i] = (1 + pick(6)) * 1_MiB + pick(4) * 4_KiB;
    const AllocKind kind = i == 3 ? AllocKind::kDevice : (i == 2 && pick(2) ? AllocKind::kPinned : AllocKind::kManaged);
    device[i] = kind == AllocKind::kDevice;
    b.alloc(names[i], sizes[i], kind, device[i] ? Processor::gpu(pick(gpus)) : Processor::none());
  }
  auto range = [&](int i, Bytes& off, Bytes& len) {
    const Bytes pages = sizes[i] / 4_KiB;
    off = static_cast<Bytes>(pick(static_cast<int>(pages))) * 4_KiB;
    len = std::min<Bytes>(sizes[i] - off, (1 + pick(300)) * 4_KiB);
  };
  for (int step = 0; step < 120; ++step) {
    int i = pick(4);
    Bytes off, len;
    range(i, off, len);
    switch (pick(9)) {
      case 0:
      case 1:
      case 2: {
        b.kernel("k", pick(gpus), pick(5000), static_cast<trace::StreamId>(pick(3)));
        for (int n = 1 + pick(4); n > 0; --n) {
          i = pick(4);
          if (device[i] && gpus > 1) i = 0;  // peer-mapped device memory is fine too, but keep it simple
          range(i, off, len);
          const Bytes stride = pick(3) == 0 ? (1 + pick(4)) * 8_KiB : 0;
          if (pick(3) == 0) b.write(names[i], off, len, stride, 1 + pick(2));
          else b.read(names[i], off, len, stride, 1 + pick(2));
        }
        b.end();
        break;
      }
      case 3:
        if (!device[i]) pick(2) ? b.cpu_read(names[i], off, len) : b.cpu_write(names[i], off, len, pick(2) ? 8_KiB : 0);
        break;
      case 4:
        b.prefetch(names[i], pick(3) == 0 ? Processor::cpu() : Processor::gpu(pick(gpus)),
                   static_cast<trace::StreamId>(pick(3)), off, len);
        break;
      case 5: {
        const auto advice = static_cast<Advice>(pick(6));
        const Processor target = pick(3) == 0 ? Processor::cpu() : Processor::gpu(pick(gpus));
        b.advise(names[i], advice, target, off, len);
        break;
      }
      case 6:
        pick(2) ? b.sync() : b.sync_stream(static_cast<trace::StreamId>(pick(3)));
        break;
      case 7:
        b.record("e", static_cast<trace::StreamId>(pick(3))).wait("e", static_cast<trace::StreamId>(pick(3)));
        break;
      case 8:
        b.phase(pick(2) ? "p1" : "p2");
        break;
    }
  }
  return b.free("a").sync().build();
}

struct Config {
  const char* vendor;
  Bytes gpu_memory;
  const char* prefetch;
  const char* evict;
  const char* thrashing;
};

TEST(RandomTraces, InvariantsHoldEverywhere) {
  const Config configs[] = {
      {"nvidia", 8_MiB, "tree", "fifo", "driver"},
      {"nvidia", 64_MiB, "none", "lru:granularity=64KiB", "none"},
      {"nvidia", 6_MiB, "sequential", "lru:granularity=4KiB", "driver"},
      {"amd-xnack-on", 8_MiB, "amd-window", "lru", "none"},
      {"amd-xnack-off", 16_MiB, "none", "clock", "none"},
      {"amd-apu-xnack-on", 8_MiB, "none", "lru", "none"},
      {"amd-apu-xnack-off", 8_MiB, "none", "fifo", "none"},
      {"nvidia", 10_MiB, "stride", "belady", "driver"},
  };
  int runs = 0;
  Counters seen;  // summed over all runs: the traces must exercise every mechanism
  for (unsigned seed = 1; seed <= 24; ++seed) {
    const int gpus = 1 + static_cast<int>(seed % 2);
    const auto t = random_trace(seed, gpus);
    for (const Config& c : configs) {
      auto make = [&] {
        EnginePolicies p;
        p.prefetch = policies::Registry<PrefetchPolicy>::instance().create(c.prefetch);
        p.eviction = policies::Registry<EvictionPolicy>::instance().create(c.evict);
        p.thrashing = policies::Registry<ThrashingPolicy>::instance().create(c.thrashing);
        return p;
      };
      auto o = options_for(round_profile(gpus), c.gpu_memory);
      const std::string vendor = c.vendor;
      // The NVIDIA profiles' stream rules, as the measured profiles set them:
      // kernels that do not fault wait for faulting ones, compute slows beside faults.
      o.profile.gpu_resident_kernels_wait_for_faults = vendor == "nvidia";
      if (vendor == "nvidia") o.profile.gpu_compute_beside_faults = 0.64;
      o.vendor = vendor == "nvidia"              ? VendorSemantics::nvidia()
                 : vendor == "amd-xnack-on"      ? VendorSemantics::amd_xnack_on()
                 : vendor == "amd-xnack-off"     ? VendorSemantics::amd_xnack_off()
                 : vendor == "amd-apu-xnack-on"  ? VendorSemantics::amd_apu_xnack_on()
                                                 : VendorSemantics::amd_apu_xnack_off();
      Result r;
      try {
        r = replay(t, o, make());
      } catch (const SimulationError& e) {
        // Only "device memory does not fit" is an acceptable refusal here.
        const std::string m = e.what();
        EXPECT_TRUE(m.find("device allocation") != std::string::npos || m.find("hold device allocations") != std::string::npos)
            << "seed " << seed << " " << c.vendor << " " << c.evict << ": " << m;
        continue;
      }
      ++runs;
      seen += r.total;
      Counters sum;
      for (const auto& p : r.phases) sum += p.counters;
      sum.time_ns = r.total.time_ns;
      EXPECT_EQ(sum, r.total) << "seed " << seed;
      EXPECT_LE(r.total.bytes_evicted, r.total.bytes_d2h) << "seed " << seed;
      EXPECT_LE(r.total.gpu_fault_pages, r.total.gpu_faults) << "seed " << seed;
      if (vendor.rfind("amd-apu", 0) == 0) {  // one memory: nothing ever moves, the CPU never faults
        EXPECT_EQ(r.total.bytes_h2d + r.total.bytes_d2h + r.total.bytes_peer, 0u) << "seed " << seed << " " << vendor;
        EXPECT_EQ(r.total.cpu_faults, 0u) << "seed " << seed << " " << vendor;
      }
      EXPECT_EQ(to_json(r).dump(), to_json(replay(t, o, make())).dump()) << "seed " << seed;
    }
  }
  EXPECT_GT(runs, 40);
  EXPECT_GT(seen.evictions, 0u);
  EXPECT_GT(seen.cpu_faults, 0u);
  EXPECT_GT(seen.remote_accesses, 0u);
  EXPECT_GT(seen.bytes_peer, 0u);
  EXPECT_GT(seen.bytes_prefetched, 0u);
  EXPECT_GT(seen.thrashing_events, 0u);
}

// A prefetch policy that never adds a page: with it the engine services every
// block through service_block (a prefetch policy could add pages), without it
// blocks whose faulted pages all come from host memory take the short path
// (sim/short_fault_service.cc). The results must not differ.
class NothingPrefetch : public PrefetchPolicy {
 public:
  void prefetch(const PrefetchRequest&, PageMask&) override {}
};

// A thrashing policy that never responds but does not say so (never_responds):
// the engine calls it at every fault service, where `none` is not called at
// all and the short paths apply. The results must not differ.
class SilentThrashing final : public ThrashingPolicy {
 public:
  ThrashingResponse on_migration(const MigrationNotice&) override { return {}; }
};

// Replays through run(true) and run(false) and expects the same result, byte
// for byte (or both refused: device memory that does not fit); counts what it compared.
template <typename Run>
void expect_same_result(Run&& run, const std::string& what, Counters& seen, int& compared) {
  Result a;
  try {
    a = run(true);
  } catch (const SimulationError&) {
    EXPECT_THROW(run(false), SimulationError) << what;
    return;
  }
  const Result b = run(false);
  seen += a.total;
  ++compared;
  EXPECT_EQ(to_json(a).dump(), to_json(b).dump()) << what;
}

// Scattered single-page touches of a buffer partly written by the CPU: one to
// a few faulted pages per VA block and batch, host copies and first touches.
trace::BuiltTrace scattered_trace(unsigned seed) {
  std::mt19937 rng(seed);
  TraceBuilder b;
  b.alloc("a", 12_MiB).cpu_write("a", 0, 5_MiB).cpu_write("a", 8_MiB, 1_MiB, 12_KiB);
  for (int k = 0; k < 3; ++k) {
    b.kernel("k", 0, 1000);
    for (int n = 0; n < 700; ++n) {
      const Bytes off = static_cast<Bytes>(rng() % (12_MiB / 4_KiB)) * 4_KiB;
      rng() % 3 == 0 ? b.write("a", off, 4_KiB) : b.read("a", off, 4_KiB);
    }
    b.end().cpu_read("a", 0, 2_MiB);
  }
  return b.free("a").sync().build();
}

// Scattered single-page touches of two buffers beside a device allocation,
// with read-modify-writes, advice on a few pages, a prefetch to the GPU and
// CPU reads between kernels (pages back in host memory whose 4 KiB chunks
// stay), on one stream or two: every miss of the replay loop a page-granular
// cache simulation meets, and the cases lone_fault hands to the general path.
trace::BuiltTrace two_buffer_trace(unsigned seed, int streams) {
  std::mt19937 rng(seed);
  TraceBuilder b;
  b.alloc("a", 3_MiB).alloc("b", 2_MiB + 8_KiB).alloc("d", 1_MiB, AllocKind::kDevice, Processor::gpu(0));
  b.cpu_write("a", 0, 1_MiB).cpu_write("b", 1_MiB, 1_MiB + 8_KiB, 12_KiB);
  b.advise("a", Advice::kSetReadMostly, Processor::none(), 2_MiB, 64_KiB);
  b.advise("b", Advice::kSetPreferredLocation, Processor::cpu(), 0, 64_KiB);
  b.prefetch("b", Processor::gpu(0), 0, 1_MiB, 256_KiB).sync();
  for (int k = 0; k < 4; ++k) {
    b.kernel("k", 0, 1000, static_cast<trace::StreamId>(k % streams));
    for (int n = 0; n < 600; ++n) {
      const char* name = rng() % 3 == 0 ? "b" : "a";
      const Bytes size = name[0] == 'a' ? 3_MiB : 2_MiB + 8_KiB;
      const Bytes off = static_cast<Bytes>(rng() % (size / 4_KiB)) * 4_KiB;
      switch (rng() % 8) {
        case 0: b.write(name, off, 4_KiB); break;
        case 1: b.read_modify_write(name, off, 4_KiB); break;
        case 2: b.read("d", static_cast<Bytes>(rng() % 256) * 4_KiB, 4_KiB); break;
        default: b.read(name, off + rng() % 4_KiB / 2, 64); break;  // within one page
      }
    }
    b.end();
    if (k % 2) b.cpu_read("a", 0, 1_MiB, 16_KiB);
  }
  return b.free("a").sync().build();
}

TEST(RandomTraces, ShortFaultPathGivesTheBlockServiceResult) {
  const char* evictions[] = {"fifo", "lru:granularity=4KiB", "lru:granularity=64KiB", "fifo:granularity=64KiB"};
  int compared = 0;
  Counters seen;
  for (unsigned seed = 1; seed <= 8; ++seed) {
    const trace::BuiltTrace traces[] = {scattered_trace(seed), random_trace(seed, 1)};
    for (const auto& t : traces)
      for (const char* evict : evictions)
        for (const Bytes memory : {3_MiB, 6_MiB, 64_MiB})
          for (const bool thrashing_none : {false, true}) {
            auto run = [&](bool short_path) {
              EnginePolicies p;
              if (!short_path) p.prefetch = std::make_unique<NothingPrefetch>();
              p.eviction = policies::Registry<EvictionPolicy>::instance().create(evict);
              if (thrashing_none)
                p.thrashing = short_path ? policies::Registry<ThrashingPolicy>::instance().create("none")
                                         : std::make_unique<SilentThrashing>();
              return replay(t, options_for(round_profile(), memory), std::move(p));
            };
            expect_same_result(run, fmt::format("seed {} {} {} thrashing none {}", seed, evict, memory, thrashing_none),
                               seen, compared);
          }
  }
  EXPECT_GT(compared, 240);
  EXPECT_GT(seen.evictions, 0u);
  EXPECT_GT(seen.bytes_h2d, 0u);
}

// Forwards every hook to `inner` but offers neither its recency nor its
// eviction order, and asks for a call on every hit: the engine then calls each
// hook itself and replays every access through the general path (no tight
// loop of settled single-page accesses).
class HooksOnly final : public EvictionPolicy {
 public:
  explicit HooksOnly(std::unique_ptr<EvictionPolicy> inner) : inner_(std::move(inner)) {}
  Bytes granularity() const override { return inner_->granularity(); }
  bool wants_access_callbacks() const override { return true; }
  void attach(const EvictionContext& ctx) override {
    EvictionPolicy::attach(ctx);
    inner_->attach(ctx);
  }
  void on_allocation_created(AllocSlot alloc, std::uint64_t pages) override {
    inner_->on_allocation_created(alloc, pages);
  }
  void on_allocation_freed(AllocSlot alloc) override { inner_->on_allocation_freed(alloc); }
  void on_chunk_allocated(const ChunkInfo& c, Nanos now) override { inner_->on_chunk_allocated(c, now); }
  void on_access(const ChunkAccess& a) override { inner_->on_access(a); }
  void on_chunk_residency_changed(const ChunkInfo& c, bool resident, Nanos now) override {
    inner_->on_chunk_residency_changed(c, resident, now);
  }
  void on_chunk_evicted(const ChunkInfo& c, Nanos now) override { inner_->on_chunk_evicted(c, now); }
  void on_chunk_freed(const ChunkInfo& c) override { inner_->on_chunk_freed(c); }
  std::uint32_t choose_victim(int gpu, Nanos now) override { return inner_->choose_victim(gpu, now); }
  std::uint32_t choose_victim_for(const IncomingChunk& incoming, Nanos now) override {
    return inner_->choose_victim_for(incoming, now);
  }
  std::size_t upcoming_victims(int gpu, std::uint32_t (&out)[2]) const override {
    return inner_->upcoming_victims(gpu, out);
  }

 private:
  std::unique_ptr<EvictionPolicy> inner_;
};

// Replays `t` with the eviction policy `evict` ("builtin": the built-in FIFO)
// as it is (in_line: its lists kept by the engine where it offers them) or
// behind HooksOnly, with the same resolved configuration both ways.
Result replay_in_line_or_hooks(const trace::BuiltTrace& t, const char* evict, const HardwareProfile& profile,
                               Bytes memory, bool in_line) {
  EnginePolicies p;
  std::unique_ptr<EvictionPolicy> e = std::string(evict) == "builtin"
                                          ? std::make_unique<FifoByAllocationEviction>()
                                          : policies::Registry<EvictionPolicy>::instance().create(evict);
  p.eviction = in_line ? std::move(e) : std::make_unique<HooksOnly>(std::move(e));
  p.resolved["evict"] = evict;
  return replay(t, options_for(profile, memory), std::move(p));
}

// LRU and the built-in FIFO give the engine their slot lists (eviction_order,
// recency_order), which it keeps in line, and settled single-page accesses
// replay in one tight loop: the same results, byte for byte, as the policies'
// own hooks and the general access path, with faults serviced one at a time
// (the loop goes on after each, a miss at 4 KiB in one pass: lone_fault.cc)
// and in batches, on one GPU and two; a chunk needed on a full GPU takes the
// order's first chunk over at every granularity (first_chunk_replacement.h).
TEST(RandomTraces, InLineEvictionOrderAndAccessLoopGiveTheHooksResult) {
  const char* evictions[] = {"builtin", "lru:granularity=4KiB", "lru:granularity=64KiB", "lru",
                             "fifo:granularity=4KiB"};
  int compared = 0;
  Counters seen;
  for (unsigned seed = 1; seed <= 4; ++seed)
    for (const int gpus : {1, 2}) {
      const trace::BuiltTrace traces[] = {scattered_trace(seed), random_trace(seed, gpus),
                                          two_buffer_trace(seed, gpus)};
      for (const auto& t : traces)
        for (const char* evict : evictions)
          for (const Bytes memory : {3_MiB, 8_MiB})
            for (const std::uint32_t batch : {1u, 256u}) {
              HardwareProfile profile = round_profile(gpus);
              profile.fault_batch_size = batch;
              profile.fault_concurrency = batch;
              auto run = [&](bool in_line) { return replay_in_line_or_hooks(t, evict, profile, memory, in_line); };
              expect_same_result(
                  run, fmt::format("seed {} gpus {} {} {} batch {}", seed, gpus, evict, memory, batch), seen, compared);
            }
    }
  EXPECT_GT(compared, 200);
  EXPECT_GT(seen.evictions, 1000u);
  EXPECT_GT(seen.accesses, seen.gpu_faults);
}

// A block service whose faulted pages need more 64 KiB chunks than the GPU
// has left beside a device allocation (30 of its 32): the chunks the service
// already filled stay held (busy), so the in-line replacement of the order's
// first chunk must not take them either; with one chunk more, it fits.
TEST(RandomTraces, ChunksFilledByABlockServiceAreHeldWhenTakenOverInLine) {
  TraceBuilder b;
  b.alloc("d", 2_MiB - 128_KiB, trace::AllocKind::kDevice).alloc("a", 4_MiB);
  b.kernel("k", 0, 1000).read("a", 0, 4_KiB).read("a", 64_KiB, 4_KiB).end();
  b.kernel("k", 0, 1000).read("a", 2_MiB, 4_KiB).read("a", 2_MiB + 64_KiB, 4_KiB).read("a", 2_MiB + 128_KiB, 4_KiB);
  const trace::BuiltTrace t = b.end().free("a").free("d").sync().build();
  HardwareProfile profile = round_profile(1);
  profile.fault_batch_size = 256;
  profile.fault_concurrency = 256;
  const char* evict = "lru:granularity=64KiB";
  for (const bool in_line : {true, false})
    EXPECT_THROW(replay_in_line_or_hooks(t, evict, profile, 2_MiB, in_line), SimulationError) << in_line;
  int compared = 0;
  Counters seen;
  auto run = [&](bool in_line) { return replay_in_line_or_hooks(t, evict, profile, 2_MiB + 64_KiB, in_line); };
  expect_same_result(run, "three chunks", seen, compared);
  EXPECT_EQ(compared, 1);
  EXPECT_EQ(seen.evictions, 2u);
}

// Kernels long enough to run ahead of the stream timeline (more than 2^16
// accesses: the engine replays them in its access loop, where the short
// traces above go through the stream scheduler's calls): scattered single-page
// touches of two buffers with writes, read-modify-writes, partial-page reads,
// a few ranges, ReadMostly advice on some pages, and CPU reads between the
// kernels. Faults join the open batch inside the loop (and fill it outside).
trace::BuiltTrace long_kernel_trace(unsigned seed) {
  std::mt19937 rng(seed);
  TraceBuilder b;
  b.alloc("a", 6_MiB).alloc("b", 2_MiB + 8_KiB).cpu_write("a", 0, 2_MiB).cpu_write("b", 1_MiB, 1_MiB, 12_KiB);
  b.advise("a", Advice::kSetReadMostly, Processor::none(), 4_MiB, 64_KiB);
  for (int k = 0; k < 2; ++k) {
    b.kernel("k", 0, 1000);
    for (int n = 0; n < 70'000; ++n) {
      const char* name = rng() % 5 == 0 ? "b" : "a";
      const Bytes size = name[0] == 'a' ? 6_MiB : 2_MiB + 8_KiB;
      const Bytes off = static_cast<Bytes>(rng() % (size / 4_KiB)) * 4_KiB;
      switch (rng() % 16) {
        case 0: case 1: case 2: b.write(name, off, 4_KiB); break;
        case 3: b.read_modify_write(name, off, 4_KiB); break;
        case 4: b.read("a", off % 6_MiB - off % 16_KiB, 16_KiB); break;  // a range
        case 5: b.read("a", 4_MiB + static_cast<Bytes>(rng() % 16) * 4_KiB, 4_KiB); break;  // ReadMostly
        default: b.read(name, off + rng() % 4_KiB / 2, 64); break;  // within one page
      }
    }
    b.end().cpu_read("a", 0, 1_MiB, 16_KiB);
  }
  return b.free("a").sync().build();
}

// The access loop of a kernel running ahead, against the general path (the
// hooks only, as above), with batches of one, a few and 256 faults.
TEST(RandomTraces, AccessLoopOfALongKernelGivesTheHooksResult) {
  const char* evictions[] = {"builtin", "lru:granularity=4KiB", "fifo:granularity=4KiB", "lru:granularity=64KiB",
                             "lru"};
  int compared = 0;
  Counters seen;
  for (unsigned seed = 1; seed <= 2; ++seed) {
    const trace::BuiltTrace t = long_kernel_trace(seed);
    for (const char* evict : evictions)
      for (const Bytes memory : {3_MiB, 16_MiB})
        for (const std::uint32_t batch : {1u, 7u, 256u}) {
          HardwareProfile profile = round_profile(1);
          profile.fault_batch_size = batch;
          profile.fault_concurrency = batch;
          auto run = [&](bool in_line) { return replay_in_line_or_hooks(t, evict, profile, memory, in_line); };
          expect_same_result(run, fmt::format("seed {} {} {} batch {}", seed, evict, memory, batch), seen, compared);
        }
  }
  EXPECT_EQ(compared, 60);
  EXPECT_GT(seen.evictions, 10'000u);
  EXPECT_GT(seen.gpu_faults, seen.fault_batches * 2);
}

}  // namespace
}  // namespace umsim::sim
