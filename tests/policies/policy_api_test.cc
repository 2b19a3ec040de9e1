// The richer policy API through the engine and on hand-made situations: what
// the access hook sees, the incoming chunk of choose_victim_for, eviction versus
// free, prefetches beyond the faulting block and their budget; and the example
// policies that use them (ARC, next-blocks).
#include <gtest/gtest.h>

#include "tests/policies/policy_test_util.h"
#include "tests/policies/replay_harness.h"

namespace umsim::policies {
namespace {

using namespace testing;

// FIFO eviction that records every call the engine makes.
struct Calls {
  std::vector<sim::ChunkAccess> accesses;
  std::vector<std::string> kernel_names;
  std::vector<sim::IncomingChunk> incoming;
  std::vector<sim::ChunkInfo> evicted, freed;
};
Calls* g_calls = nullptr;

class RecordingEviction final : public sim::EvictionPolicy {
 public:
  explicit RecordingEviction(const Params&) {}
  bool wants_access_callbacks() const override { return true; }
  void on_chunk_allocated(const sim::ChunkInfo& c, sim::Nanos) override { order_.push_back(c.slot); }
  void on_access(const sim::ChunkAccess& a) override {
    g_calls->accesses.push_back(a);
    g_calls->kernel_names.emplace_back(a.kernel_name);
  }
  void on_chunk_evicted(const sim::ChunkInfo& c, sim::Nanos) override {
    g_calls->evicted.push_back(c);
    drop(c.slot);
  }
  void on_chunk_freed(const sim::ChunkInfo& c) override {
    g_calls->freed.push_back(c);
    drop(c.slot);
  }
  std::uint32_t choose_victim(int, sim::Nanos) override { return order_.empty() ? sim::kNoVictim : order_.front(); }
  std::uint32_t choose_victim_for(const sim::IncomingChunk& in, sim::Nanos now) override {
    g_calls->incoming.push_back(in);
    return choose_victim(in.gpu, now);
  }

 private:
  void drop(std::uint32_t slot) { std::erase(order_, slot); }
  std::vector<std::uint32_t> order_;
};
UMSIM_REGISTER_POLICY(sim::EvictionPolicy, RecordingEviction, "test-recording", "test: records engine calls", {});

// Proposes the 100 blocks after the faulting one, claiming a budget of 100: the engine caps it.
class GreedyBeyond final : public sim::PrefetchPolicy {
 public:
  explicit GreedyBeyond(const Params&) {}
  void prefetch(const sim::PrefetchRequest&, sim::PageMask&) override {}
  std::uint32_t beyond_block_budget() const override { return 100; }
  void prefetch_beyond(const sim::PrefetchRequest& r, std::vector<sim::BlockPages>& out) override {
    sim::PageMask first;
    first.set(0);
    for (std::uint64_t b = 1; b <= 100; ++b) out.push_back({r.block + b, first});
  }
};
UMSIM_REGISTER_POLICY(sim::PrefetchPolicy, GreedyBeyond, "test-greedy-beyond", "test: 100 blocks beyond", {});

Result run(const std::string& trace, const std::string& prefetch, const std::string& evict, sim::Bytes gpu_memory) {
  Combo c;
  c.specs = {prefetch, evict, "driver", "none"};
  ReplayOptions o;
  o.gpu_memory = gpu_memory;
  return replay(trace, c, o);
}

constexpr sim::Bytes MiB = 1 << 20;

TEST(PolicyApi, AccessHookSeesPageTypeKernelAndStream) {
  Calls calls;
  g_calls = &calls;
  run("umsim-trace 1\n"
      "alloc a 4MiB managed\n"
      "kernel first gpu=0 compute=1us\n"
      "  w a+8KiB len=4KiB\n"   // fault: no hook
      "end\n"
      "kernel again gpu=0 compute=1us\n"
      "  r a+8KiB len=4KiB\n"   // hit: page 2 of chunk 0
      "end\n"
      "sync all\n"            // (on the timeline a kernel on stream 1 would start beside "first")
      "kernel _Z6secondPf gpu=0 stream=1 compute=1us\n"
      "  a a+8KiB len=4KiB\n"   // hit by the second kernel, atomically
      "end\n"
      "sync all\n",
      "none", "test-recording", 64 * MiB);
  ASSERT_EQ(calls.accesses.size(), 2u);
  EXPECT_EQ(calls.accesses[0].chunk.first_page, 0u);
  EXPECT_EQ(calls.accesses[0].page_in_chunk, 2u);
  EXPECT_EQ(calls.accesses[0].access, sim::AccessType::kRead);
  EXPECT_EQ(calls.accesses[0].kernel, 1u);  // launches numbered from 0: "first" was 0
  EXPECT_EQ(calls.kernel_names[0], "again");
  EXPECT_EQ(calls.accesses[0].stream, 0u);
  EXPECT_EQ(calls.accesses[1].access, sim::AccessType::kAtomic);
  EXPECT_EQ(calls.accesses[1].kernel, 2u);
  EXPECT_EQ(calls.kernel_names[1], "_Z6secondPf");  // as recorded: mangled
  EXPECT_EQ(calls.accesses[1].stream, 1u);
}

TEST(PolicyApi, VictimsKnowTheIncomingChunkAndEvictionIsNotFree) {
  Calls calls;
  g_calls = &calls;
  // One 2 MiB chunk of GPU memory for a 4 MiB allocation: touching the second
  // half evicts the first; freeing the allocation then frees the second.
  const Result r = run("umsim-trace 1\n"
                       "alloc a 4MiB managed\n"
                       "kernel k0 gpu=0 compute=1us\n"
                       "  w a len=4KiB\n"
                       "end\n"
                       "kernel k1 gpu=0 compute=1us\n"
                       "  w a+2MiB len=4KiB\n"
                       "end\n"
                       "sync all\n"
                       "free a\n",
                       "none", "test-recording", 2 * MiB);
  EXPECT_EQ(r.total.evictions, 1u);
  ASSERT_EQ(calls.incoming.size(), 1u);
  EXPECT_EQ(calls.incoming[0].gpu, 0);
  EXPECT_EQ(calls.incoming[0].first_page, 512u);  // the second 2 MiB region
  ASSERT_EQ(calls.evicted.size(), 1u);
  EXPECT_EQ(calls.evicted[0].first_page, 0u);
  ASSERT_EQ(calls.freed.size(), 1u);
  EXPECT_EQ(calls.freed[0].first_page, 512u);
}

// CPU-written data, so every migrated page is a transfer; one access per kernel,
// so that each fault is serviced on its own.
const std::string kStream =
    "umsim-trace 1\n"
    "alloc a 16MiB managed\n"
    "cpu w a len=16MiB\n"
    "kernel k0 gpu=0 compute=1us\n"
    "  r a len=4KiB\n"       // faults block 0: blocks 0, 1, 2 move
    "end\n"
    "kernel k1 gpu=0 compute=1us\n"
    "  r a+4MiB len=4KiB\n"  // block 2: resident, no fault
    "end\n"
    "kernel k2 gpu=0 compute=1us\n"
    "  r a+6MiB len=4KiB\n"  // faults block 3: blocks 3, 4, 5
    "end\n"
    "sync all\n";

TEST(NextBlocksPrefetch, MovesTheNextBlocksWithTheFault) {
  const Result none = run(kStream, "none", "lru", 64 * MiB);
  EXPECT_EQ(none.total.gpu_faults, 3u);
  EXPECT_EQ(none.total.bytes_h2d, 3 * 4096u);
  const Result next = run(kStream, "next-blocks:blocks=2", "lru", 64 * MiB);
  EXPECT_EQ(next.total.gpu_faults, 2u);
  EXPECT_EQ(next.total.bytes_h2d, 12 * MiB);                 // 2 x 3 blocks of 2 MiB
  EXPECT_EQ(next.total.bytes_prefetched, 12 * MiB - 2 * 4096);  // all but the faulted pages
  // Near the allocation's end the proposals past it are dropped.
  const Result tail = run("umsim-trace 1\nalloc a 5MiB managed\ncpu w a len=5MiB\n"
                          "kernel k gpu=0 compute=1us\n  r a+2MiB len=4KiB\nend\nsync all\n",
                          "next-blocks:blocks=4", "lru", 64 * MiB);
  EXPECT_EQ(tail.total.bytes_h2d, 3 * MiB);  // block 1 (2 MiB) and the 1 MiB block 2
}

TEST(NextBlocksPrefetch, TheEngineCapsTheBudget) {
  // 100 blocks proposed after a fault on block 0 of a 256 MiB allocation; one page each.
  const Result r = run("umsim-trace 1\nalloc a 256MiB managed\ncpu w a len=256MiB\n"
                       "kernel k gpu=0 compute=1us\n  r a len=4KiB\nend\nsync all\n",
                       "test-greedy-beyond", "lru", 1024 * MiB);
  EXPECT_EQ(r.total.bytes_h2d, (1 + sim::kMaxPrefetchBlocksBeyond) * 4096u);
  EXPECT_EQ(r.total.bytes_prefetched, sim::kMaxPrefetchBlocksBeyond * 4096u);
}

TEST(NextBlocksPrefetch, ParametersAreChecked) {
  EXPECT_THROW(make<sim::PrefetchPolicy>("next-blocks:blocks=0"), PolicyError);
  try {
    make<sim::PrefetchPolicy>("next-blocks:blocks=33");
    FAIL();
  } catch (const PolicyError& e) {
    EXPECT_EQ(std::string(e.what()), "prefetch policy 'next-blocks': blocks must be 1 to 32, got 33");
  }
}

std::unique_ptr<sim::EvictionPolicy> arc(std::uint32_t chunks, std::uint64_t regions) {
  auto p = make<sim::EvictionPolicy>("arc");
  p->attach(context(chunks));
  p->on_allocation_created(0, regions * 512);
  return p;
}

sim::ChunkAccess hit(std::uint32_t slot, std::uint64_t region, std::uint64_t kernel) {
  sim::ChunkAccess a;
  a.chunk = chunk(slot, 0, region * 512);
  a.kernel = kernel;
  return a;
}

sim::IncomingChunk incoming(std::uint64_t region) { return {0, 0, region * 512}; }

// Two chunk slots; regions A=0, B=1, C=2, D=3 of one allocation. Hand-traced ARC.
TEST(ArcEviction, AdaptsToGhostHitsAndPrefersReusedChunks) {
  auto p = arc(2, 4);
  p->on_chunk_allocated(chunk(0, 0, 0), 0);    // A -> T1
  p->on_chunk_allocated(chunk(1, 0, 512), 0);  // B -> T1
  p->on_access(hit(0, 0, 0));                  // A's first use (kernel 0)
  p->on_access(hit(0, 0, 0));                  // the same kernel again: still one use
  p->on_access(hit(0, 0, 1));                  // a later kernel: A -> T2
  EXPECT_EQ(p->choose_victim_for(incoming(2), 0), 1u);  // |T1| = 1 > p = 0: B
  p->on_chunk_evicted(chunk(1, 0, 512), 0);              // B -> ghost B1
  p->on_chunk_allocated(chunk(1, 0, 1024), 0);           // C -> T1
  EXPECT_EQ(p->choose_victim_for(incoming(1), 0), 1u);  // C (T1 above target)
  p->on_chunk_evicted(chunk(1, 0, 1024), 0);             // C -> B1
  p->on_chunk_allocated(chunk(1, 0, 512), 0);            // B returns from B1: p = 1, B -> T2
  EXPECT_EQ(p->choose_victim_for(incoming(3), 0), 0u);  // T1 empty: T2's LRU, A
  p->on_chunk_evicted(chunk(0, 0, 0), 0);                // A -> B2
  p->on_chunk_allocated(chunk(0, 0, 1536), 0);           // D -> T1; |T1| = 1 = p
  EXPECT_EQ(p->choose_victim_for(incoming(0), 0), 0u);  // A is a T2 ghost: the tie goes to T1 (D)
  EXPECT_EQ(p->choose_victim_for(incoming(2), 0), 1u);  // C is a T1 ghost: T2 (B)
  EXPECT_EQ(p->choose_victim(0, 0), 1u);                 // no incoming chunk known: as C
}

// An evicted chunk is remembered (its return grows T1's target); a freed one is not.
TEST(ArcEviction, EvictionLeavesAGhostAndFreeDoesNot) {
  auto evicted = arc(2, 2);
  evicted->on_chunk_allocated(chunk(0, 0, 0), 0);
  evicted->on_chunk_allocated(chunk(1, 0, 512), 0);
  evicted->on_chunk_evicted(chunk(0, 0, 0), 0);
  evicted->on_chunk_allocated(chunk(0, 0, 0), 0);  // a ghost hit: p = 1, the chunk goes to T2
  EXPECT_EQ(evicted->choose_victim(0, 0), 0u);     // |T1| = 1 is not above p: T2
  auto freed = arc(2, 2);
  freed->on_chunk_allocated(chunk(0, 0, 0), 0);
  freed->on_chunk_allocated(chunk(1, 0, 512), 0);
  freed->on_chunk_freed(chunk(0, 0, 0));
  freed->on_chunk_allocated(chunk(0, 0, 0), 0);  // new to ARC: T1 behind the other, p = 0
  EXPECT_EQ(freed->choose_victim(0, 0), 1u);
}

}  // namespace
}  // namespace umsim::policies
