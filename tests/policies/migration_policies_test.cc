// Migration policies: the driver default, AMD zero-copy, access-counter migration.
#include <gtest/gtest.h>

#include "tests/policies/policy_test_util.h"

namespace umsim::policies {
namespace {

using namespace testing;

const sim::MigrationDecision kDefault{sim::Placement::kMigrate, sim::Processor::gpu(0)};

sim::FaultContext fault(sim::Processor requester, std::uint16_t resident_mask) {
  sim::FaultContext f;
  f.requester = requester;
  f.resident_mask = resident_mask;
  return f;
}

TEST(DriverMigration, KeepsTheEnginesHintAwareDefault) {
  auto p = make<sim::MigrationPolicy>("driver");
  const sim::MigrationDecision dup{sim::Placement::kDuplicate, sim::Processor::gpu(1)};
  EXPECT_EQ(p->decide(fault(sim::Processor::gpu(0), 1), kDefault), kDefault);
  EXPECT_EQ(p->decide(fault(sim::Processor::gpu(1), 1), dup), dup);
  EXPECT_FALSE(p->wants_remote_access_callbacks());
}

TEST(ZeroCopyMigration, GpusMapWhereThePageLives) {
  auto p = make<sim::MigrationPolicy>("zero-copy");
  const sim::MigrationDecision host{sim::Placement::kMapRemote, sim::Processor::cpu()};
  EXPECT_EQ(p->decide(fault(sim::Processor::gpu(0), 0), kDefault), host);       // unpopulated: host memory
  EXPECT_EQ(p->decide(fault(sim::Processor::gpu(0), 0b001), kDefault), host);   // on the CPU
  // Prefetched to GPU 1 (bit 2): GPU 0 maps it there.
  EXPECT_EQ(p->decide(fault(sim::Processor::gpu(0), 0b100), kDefault),
            (sim::MigrationDecision{sim::Placement::kMapRemote, sim::Processor::gpu(1)}));
  // CPU faults keep the default (bring a prefetched page back).
  const sim::MigrationDecision to_cpu{sim::Placement::kMigrate, sim::Processor::cpu()};
  EXPECT_EQ(p->decide(fault(sim::Processor::cpu(), 0b010), to_cpu), to_cpu);
}

sim::RemoteAccess remote(int gpu, std::uint64_t page, sim::AllocSlot alloc = 0) {
  sim::RemoteAccess a;
  a.requester = sim::Processor::gpu(gpu);
  a.page = page;
  a.alloc = alloc;
  return a;
}

// 64 KiB sub-regions (16 pages); the 256th remote access from a GPU migrates the region.
TEST(AccessCounterMigration, MigratesTheSubRegionAtTheThreshold) {
  auto p = make<sim::MigrationPolicy>("access-counter");
  p->on_allocation_created(0, 1024);
  EXPECT_TRUE(p->wants_remote_access_callbacks());
  EXPECT_EQ(p->decide(fault(sim::Processor::gpu(0), 1), kDefault), kDefault);
  std::uint64_t first = 0, count = 0;
  for (int i = 0; i < 255; ++i) ASSERT_FALSE(p->on_remote_access(remote(0, 37), first, count)) << i;
  // Another GPU's counter and another sub-region are separate.
  EXPECT_FALSE(p->on_remote_access(remote(1, 37), first, count));
  EXPECT_FALSE(p->on_remote_access(remote(0, 48), first, count));
  EXPECT_TRUE(p->on_remote_access(remote(0, 40), first, count));
  EXPECT_EQ(first, 32u);
  EXPECT_EQ(count, 16u);
  // The count restarted.
  EXPECT_FALSE(p->on_remote_access(remote(0, 40), first, count));
  // CPU accesses have no access counters.
  sim::RemoteAccess cpu;
  cpu.requester = sim::Processor::cpu();
  EXPECT_FALSE(p->on_remote_access(cpu, first, count));
}

TEST(AccessCounterMigration, ClipsTheLastRegionAndValidates) {
  auto p = make<sim::MigrationPolicy>("access-counter:threshold=1");
  p->on_allocation_created(3, 20);  // 20 pages: second region has 4
  std::uint64_t first = 0, count = 0;
  EXPECT_TRUE(p->on_remote_access(remote(0, 18, 3), first, count));
  EXPECT_EQ(first, 16u);
  EXPECT_EQ(count, 4u);
  EXPECT_THROW(make<sim::MigrationPolicy>("access-counter:threshold=0"), PolicyError);
  EXPECT_THROW(make<sim::MigrationPolicy>("access-counter:granularity=100KiB"), PolicyError);
}

}  // namespace
}  // namespace umsim::policies
