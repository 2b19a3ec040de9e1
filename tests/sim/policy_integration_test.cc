// The engine with real policies (created through the registry, as the command
// line does) and with deliberately odd test policies: properties that must hold
// for every policy, and enforcement of policy responses.
#include <random>

#include <gtest/gtest.h>

#include "policies/policy_kinds.h"
#include "sim/future_oracle.h"
#include "tests/sim/sim_test_util.h"
#include "traces/trace_builder.h"

namespace umsim::sim {
namespace {

using namespace trace::literals;
using testing::options_for;
using testing::replay;
using testing::round_profile;
using trace::Processor;
using trace::TraceBuilder;

template <typename Interface>
std::unique_ptr<Interface> make(const std::string& spec) {
  return policies::Registry<Interface>::instance().create(spec);
}

EnginePolicies with(const std::string& prefetch, const std::string& evict) {
  EnginePolicies p;
  p.prefetch = make<PrefetchPolicy>(prefetch);
  p.eviction = make<EvictionPolicy>(evict);
  return p;
}

// Random 64 KiB tiles of `size`, each read page by page, in several kernels.
trace::BuiltTrace random_tiles(Bytes size, int kernels, std::uint64_t tiles_per_kernel, unsigned seed) {
  std::mt19937_64 rng(seed);
  TraceBuilder b;
  b.alloc("A", size).cpu_write("A");
  for (int k = 0; k < kernels; ++k) {
    b.kernel("k", 0, 0);
    for (std::uint64_t t = 0; t < tiles_per_kernel; ++t) {
      const Bytes tile = rng() % (size / 64_KiB);
      b.read("A", tile * 64_KiB, 64_KiB);
    }
    b.end();
  }
  return b.build();
}

// With memory for everything, only compulsory faults happen, whatever the
// eviction policy: each touched page is serviced exactly once.
TEST(PolicyProperties, InfiniteCapacityGivesCompulsoryFaultsOnly) {
  const auto t = random_tiles(64_MiB, 3, 200, 1);
  std::vector<bool> touched(64_MiB / 4096);
  for (const auto& e : t.events)
    if (e.kind == trace::EventKind::kGpuAccess) trace::for_each_page_once(e, [&](std::uint64_t p) { touched[p] = true; });
  const auto distinct = static_cast<std::uint64_t>(std::count(touched.begin(), touched.end(), true));
  for (const char* evict : {"fifo", "lru", "lfu", "clock", "random", "belady"}) {
    const Result r = replay(t, options_for(round_profile()), with("none", evict));
    EXPECT_EQ(r.total.gpu_fault_pages, distinct) << evict;
    EXPECT_EQ(r.total.evictions, 0u) << evict;
  }
}

// Belady's MIN evicts no more than any other policy (same 2 MiB granularity).
TEST(PolicyProperties, BeladyEvictsNoMoreThanAnyPolicy) {
  const auto t = random_tiles(64_MiB, 4, 400, 2);
  const Result opt = replay(t, options_for(round_profile(), 16_MiB), with("none", "belady"));
  EXPECT_GT(opt.total.evictions, 0u);
  for (const char* evict : {"fifo", "lru", "lfu", "clock", "random", "tree-preevict"}) {
    const Result r = replay(t, options_for(round_profile(), 16_MiB), with("none", evict));
    EXPECT_LE(opt.total.evictions, r.total.evictions) << evict;  // chunk misses; page faults need not be minimal
  }
}

// Finer eviction granularity works end to end (chunks of 64 KiB and 4 KiB).
TEST(PolicyProperties, SmallerChunksStillRespectCapacity) {
  const auto t = random_tiles(16_MiB, 2, 300, 3);
  for (const char* evict : {"lru:granularity=64KiB", "lru:granularity=4KiB"}) {
    const Result r = replay(t, options_for(round_profile(), 4_MiB), with("none", evict));
    EXPECT_GT(r.total.evictions, 0u) << evict;
    EXPECT_LE(r.total.bytes_evicted, r.total.evictions * 64_KiB) << evict;
  }
}

// faults.copy_runs_by_cause: the tree prefetcher grows a fault to its 64 KiB
// big page, so one fault on page 5 of a CPU-written 64 KiB moves pages 0-15.
// Counted together that is one copy run (run_cost 700 once); by cause, the
// faulted page and the prefetched pages below and above it are three (3 x 700).
// A fault on page 0 leaves two runs by cause ({0}, {1..15}).
TEST(PolicyProperties, CopyRunsByCauseSplitAFaultFromItsPrefetchedPages) {
  const auto fault_on = [](Bytes page) {
    return TraceBuilder().alloc("A", 64_KiB).cpu_write("A").kernel("k", 0, 0).read("A", page * 4_KiB, 4_KiB).end().build();
  };
  HardwareProfile p = round_profile();
  auto time_of = [&](Bytes page) {
    const Result r = replay(fault_on(page), options_for(p), with("tree", "fifo"));
    EXPECT_EQ(r.total.bytes_h2d, 64_KiB);
    return r.kernels[0].counters.time_ns;
  };
  const Nanos plain_mid = time_of(5), plain_first = time_of(0);
  p.fault_run_ns = 700;
  EXPECT_EQ(time_of(5), plain_mid + 700);
  EXPECT_EQ(time_of(0), plain_first + 700);
  p.fault_copy_runs_by_cause = true;
  EXPECT_EQ(time_of(5), plain_mid + 3 * 700);
  EXPECT_EQ(time_of(0), plain_first + 2 * 700);
}

// The driver's tree prefetcher turns a many-thread-block sweep into few faults.
TEST(PolicyProperties, TreePrefetcherCutsFaultsOnAnInterleavedSweep) {
  TraceBuilder b;
  b.alloc("A", 64_MiB).cpu_write("A").kernel("sweep", 0, 0);
  for (Bytes off = 0; off < 1_MiB; off += 4_KiB) b.read("A", off, 64_MiB - off, 1_MiB);
  const auto t = b.end().build();
  const Result none = replay(t, options_for(round_profile()), with("none", "fifo"));
  const Result tree = replay(t, options_for(round_profile()), with("tree", "fifo"));
  EXPECT_EQ(none.total.gpu_faults, 64_MiB / 4096);
  EXPECT_LT(tree.total.gpu_faults * 4, none.total.gpu_faults);
  EXPECT_EQ(tree.total.bytes_h2d, 64_MiB);
  EXPECT_GT(tree.total.bytes_prefetched, 0u);
  EXPECT_LT(tree.kernels[0].counters.time_ns, none.kernels[0].counters.time_ns);
}

// The oracle: next use strictly after a sequence number, per GPU and region.
TEST(FutureOracle, NextUseFollowsTheTrace) {
  // Accesses (seq): 1 A p0 (region 0), 2 A p1, 3 A p600 (region 1), 4 A p0, 5 B p0.
  auto shared = std::make_shared<const trace::BuiltTrace>(TraceBuilder()
                                                              .alloc("A", 4_MiB)
                                                              .alloc("B", 4_KiB)
                                                              .kernel("k", 0)
                                                              .read("A", 0, 8_KiB)
                                                              .read("A", 600 * 4_KiB, 4_KiB)
                                                              .read("A", 0, 4_KiB)
                                                              .read("B")
                                                              .end()
                                                              .build());
  trace::MemoryTraceReader reader(shared);
  const auto oracle = build_future_oracle(reader, 1, kPagesPerBlock);
  EXPECT_EQ(oracle->next_use(0, 0, 0, 0), 1u);
  EXPECT_EQ(oracle->next_use(0, 0, 0, 1), 2u);
  EXPECT_EQ(oracle->next_use(0, 0, 0, 2), 4u);
  EXPECT_EQ(oracle->next_use(0, 0, 512, 0), 3u);
  EXPECT_EQ(oracle->next_use(0, 0, 0, 4), UINT64_MAX);
  EXPECT_EQ(oracle->next_use(0, 1, 0, 0), 5u);
  EXPECT_EQ(oracle->next_use(0, 2, 0, 0), UINT64_MAX);
}

// A thrashing policy that always answers with one fixed response.
class FixedThrashing : public ThrashingPolicy {
 public:
  explicit FixedThrashing(ThrashingResponse r) : response_(r) {}
  ThrashingResponse on_migration(const MigrationNotice& n) override {
    ++calls;
    last = n;
    ThrashingResponse r = response_;
    r.thrashing = n.pages;
    return r;
  }
  int calls = 0;
  MigrationNotice last;

 private:
  ThrashingResponse response_;
};

// Ping-pong one page between gpu0 and the CPU three times.
trace::BuiltTrace ping_pong() {
  return TraceBuilder()
      .alloc("A", 4_KiB)
      .kernel("g1", 0, 0)
      .write("A")
      .end()
      .sync()
      .cpu_write("A")
      .kernel("g2", 0, 0)
      .write("A")
      .end()
      .sync()
      .build();
}

TEST(ThrashingEnforcement, ThrottleDelaysTheNextFault) {
  ThrashingResponse throttle;
  throttle.action = ThrashingAction::kThrottle;
  throttle.throttle_ns = 1_ms;
  EnginePolicies p;
  p.thrashing = std::make_unique<FixedThrashing>(throttle);
  const Result r = replay(ping_pong(), options_for(round_profile()), std::move(p));
  const Result base = replay(ping_pong(), options_for(round_profile()));
  EXPECT_EQ(r.total.throttles, 3u);         // after each of the three migrations
  EXPECT_EQ(r.total.thrashing_events, 3u);  // one page each time
  EXPECT_GT(r.total.time_ns, base.total.time_ns + 1_ms);
}

TEST(ThrashingEnforcement, PinKeepsThePageAndMapsTheOthersRemotely) {
  ThrashingResponse pin;
  pin.action = ThrashingAction::kPin;
  pin.pin_to = Processor::cpu();
  pin.until = 1000_ms;
  EnginePolicies p;
  p.thrashing = std::make_unique<FixedThrashing>(pin);
  // The first GPU touch populates on gpu0 (pinned to the CPU from then on);
  // the CPU write migrates it to the CPU; the second GPU kernel maps it remotely.
  const Result r = replay(ping_pong(), options_for(round_profile()), std::move(p));
  EXPECT_EQ(r.kernels[1].counters.bytes_h2d, 0u);
  EXPECT_EQ(r.kernels[1].counters.remote_accesses, 1u);
}

TEST(ThrashingEnforcement, NoticeDescribesTheMigration) {
  EnginePolicies p;
  auto fixed = std::make_unique<FixedThrashing>(ThrashingResponse{});
  FixedThrashing* seen = fixed.get();
  p.thrashing = std::move(fixed);
  Engine engine(options_for(round_profile()), std::move(p));  // owns the policy: keep it alive
  trace::MemoryTraceReader reader(ping_pong());
  engine.run(reader);
  EXPECT_EQ(seen->calls, 3);  // GPU first touch, CPU fault, GPU fault
  EXPECT_EQ(seen->last.from, Processor::cpu());
  EXPECT_EQ(seen->last.to, Processor::gpu(0));
  EXPECT_EQ(seen->last.cause, MigrationCause::kFault);
  EXPECT_TRUE(seen->last.pages.test(0));
}

// A thrashing policy whose hint, given before a fault is serviced, pins every
// faulted page that is already resident somewhere to where it is.
class PinWhereResident : public ThrashingPolicy {
 public:
  ThrashingResponse on_fault(const FaultNotice& n) override {
    ++faults;
    last = n;
    ThrashingResponse r;
    if (n.resident.is_none()) return r;
    r.action = ThrashingAction::kPin;
    r.pin_to = n.resident;
    r.until = 1000_ms;
    r.thrashing = n.pages;
    return r;
  }
  ThrashingResponse on_migration(const MigrationNotice&) override {
    ++migrations;
    return {};
  }
  int faults = 0, migrations = 0;
  FaultNotice last;
};

// Installs a new Policy as `p`'s thrashing policy and keeps a pointer to it,
// for a test to read what it was told while the engine owns it.
template <typename Policy>
Policy* install_thrashing(EnginePolicies& p) {
  auto policy = std::make_unique<Policy>();
  Policy* kept = policy.get();
  p.thrashing = std::move(policy);
  return kept;
}

// The hint acts on the fault it is given for: the CPU wrote A, so the GPU's
// first fault on it is answered "pinned on the CPU" and maps it remotely, with
// no migration at all (the driver decides before servicing the fault).
TEST(ThrashingEnforcement, AHintAppliesToTheFaultBeingServiced) {
  EnginePolicies p;
  PinWhereResident* seen = install_thrashing<PinWhereResident>(p);
  Engine engine(options_for(round_profile()), std::move(p));
  trace::MemoryTraceReader reader(
      TraceBuilder().alloc("A", 4_KiB).cpu_write("A").kernel("k", 0, 0).read("A").end().sync().build());
  const Result r = engine.run(reader);
  EXPECT_EQ(seen->faults, 1);
  EXPECT_EQ(seen->last.requester, Processor::gpu(0));
  EXPECT_EQ(seen->last.resident, Processor::cpu());
  EXPECT_TRUE(seen->last.pages.test(0));
  EXPECT_EQ(seen->migrations, 0);
  EXPECT_EQ(r.kernels[0].counters.bytes_h2d, 0u);
  EXPECT_EQ(r.kernels[0].counters.remote_accesses, 1u);
}

// Records every event it is told of, in order: "m:TO" for a migration (with
// "/rd" where the pages read-duplicate), "r:REVOKED" for a revocation.
class EventLog : public ThrashingPolicy {
 public:
  ThrashingResponse on_migration(const MigrationNotice& n) override {
    log.push_back("m:" + trace::to_string(n.to) + (n.read_duplication ? "/rd" : ""));
    return {};
  }
  ThrashingResponse on_revocation(const RevocationNotice& n) override {
    log.push_back("r:" + trace::to_string(n.revoked));
    EXPECT_TRUE(n.pages.test(0));
    return {};
  }
  std::vector<std::string> log;
};

// ReadMostly ping-pong of one page (the driver's events, uvm_perf_thrashing.c):
// the GPU's write makes it the sole, writable holder; the CPU's read
// duplicates it, revoking the GPU's write and atomic permissions (two
// revocations naming the GPU); the CPU's write collapses the copies (nothing
// moves: no event); the GPU's read duplicates again, revoking the CPU's write
// (one naming the CPU). Every migration is flagged ReadMostly.
TEST(ThrashingEnforcement, ReadDuplicationRevokesTheSoleHoldersWrite) {
  EnginePolicies p;
  EventLog* seen = install_thrashing<EventLog>(p);
  Engine engine(options_for(round_profile()), std::move(p));
  trace::MemoryTraceReader reader(TraceBuilder()
                                      .alloc("A", 4_KiB)
                                      .advise("A", trace::Advice::kSetReadMostly)
                                      .kernel("w", 0, 0).write("A").end().sync()
                                      .cpu_read("A")
                                      .cpu_write("A")
                                      .kernel("r", 0, 0).read("A").end().sync()
                                      .build());
  engine.run(reader);
  EXPECT_EQ(seen->log, (std::vector<std::string>{"m:gpu0/rd", "r:gpu0", "r:gpu0", "m:cpu/rd", "r:cpu", "m:gpu0/rd"}));
}

// Broken policies are reported, not followed into a crash.
class NoVictim : public EvictionPolicy {
 public:
  void on_chunk_allocated(const ChunkInfo&, Nanos) override {}
  void on_chunk_freed(const ChunkInfo&) override {}
  std::uint32_t choose_victim(int, Nanos) override { return kNoVictim; }
};

TEST(BrokenPolicies, EvictionWithoutVictimIsAnError) {
  EnginePolicies p;
  p.eviction = std::make_unique<NoVictim>();
  const auto t = TraceBuilder().alloc("A", 4_MiB).kernel("k", 0).read("A").end().build();
  try {
    replay(t, options_for(round_profile(), 2_MiB), std::move(p));
    FAIL();
  } catch (const SimulationError& e) {
    EXPECT_NE(std::string(e.what()).find("gpu0 memory is full"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("found no victim"), std::string::npos) << e.what();
  }
}

class ToGpu7 : public MigrationPolicy {
 public:
  MigrationDecision decide(const FaultContext&, const MigrationDecision&) override {
    return {Placement::kMigrate, Processor::gpu(7)};
  }
};

TEST(BrokenPolicies, MigrationToAMissingProcessorIsAnError) {
  EnginePolicies p;
  p.migration = std::make_unique<ToGpu7>();
  const auto t = TraceBuilder().alloc("A", 4_KiB).kernel("k", 0).read("A").end().build();
  EXPECT_THROW(replay(t, options_for(round_profile()), std::move(p)), SimulationError);
}

// A migration policy may override the driver default: here everything maps
// remotely to the CPU (zero-copy), so the GPU never migrates.
class AlwaysRemote : public MigrationPolicy {
 public:
  MigrationDecision decide(const FaultContext&, const MigrationDecision&) override {
    return {Placement::kMapRemote, Processor::cpu()};
  }
};

TEST(PolicyOverrides, MigrationPolicyCanMapRemotely) {
  EnginePolicies p;
  p.migration = std::make_unique<AlwaysRemote>();
  const auto t = TraceBuilder()
                     .alloc("A", 64_KiB)
                     .cpu_write("A")
                     .kernel("k1", 0)
                     .read("A")
                     .end()
                     .kernel("k2", 0)
                     .read("A")
                     .end()
                     .build();
  const Result r = replay(t, options_for(round_profile()), std::move(p));
  EXPECT_EQ(r.total.bytes_h2d, 0u);
  EXPECT_EQ(r.kernels[0].counters.gpu_faults, 16u);      // faults once, replays over the mapping
  EXPECT_EQ(r.kernels[0].counters.remote_accesses, 16u);
  EXPECT_EQ(r.kernels[1].counters.gpu_faults, 0u);       // mapped from then on
  EXPECT_EQ(r.kernels[1].counters.remote_accesses, 16u);
}

// A policy may duplicate pages without ReadMostly advice: reads then hit both
// copies, and a write collapses them like a read-mostly page.
class DuplicateEverything : public MigrationPolicy {
 public:
  MigrationDecision decide(const FaultContext& f, const MigrationDecision&) override {
    return {f.resident_mask ? Placement::kDuplicate : Placement::kMigrate, f.requester};
  }
};

TEST(PolicyOverrides, MigrationPolicyCanDuplicate) {
  EnginePolicies p;
  p.migration = std::make_unique<DuplicateEverything>();
  const auto t = TraceBuilder()
                     .alloc("A", 64_KiB)
                     .cpu_write("A")
                     .kernel("read", 0)
                     .read("A")
                     .end()
                     .sync()
                     .cpu_read("A")
                     .kernel("write", 0)
                     .write("A")
                     .end()
                     .build();
  Engine engine(options_for(round_profile()), std::move(p));
  trace::MemoryTraceReader reader(t);
  const Result r = engine.run(reader);
  EXPECT_EQ(r.total.bytes_h2d, 64_KiB);
  EXPECT_EQ(r.total.cpu_faults, 0u);                  // the CPU kept its copy
  EXPECT_EQ(r.kernels[1].counters.gpu_faults, 16u);   // writes to read-only copies fault
  EXPECT_EQ(r.total.bytes_d2h, 0u);
  for (const PageState& st : engine.allocation("A")->pages)  // ... and collapse to the writer
    EXPECT_EQ(st.copies, processor_bit(Processor::gpu(0)));
}

}  // namespace
}  // namespace umsim::sim
