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

// Tracking regions of 2 MiB with 32 sub-regions of 64 KiB (16 pages). GPU 0 reads
// page 37 (sub-region 2) 255 times and page 48 (sub-region 3) once: the 256th access
// to the region notifies; sub-regions 2 and 3 (touched, contiguous) migrate: pages 32..63.
TEST(AccessCounterMigration, MigratesTheTouchedSubRegionsAtTheThreshold) {
  auto p = make<sim::MigrationPolicy>("access-counter");
  p->on_allocation_created(0, 1024);
  EXPECT_TRUE(p->wants_remote_access_callbacks());
  EXPECT_EQ(p->decide(fault(sim::Processor::gpu(0), 1), kDefault), kDefault);
  std::uint64_t first = 0, count = 0;
  for (int i = 0; i < 255; ++i) ASSERT_FALSE(p->on_remote_access(remote(0, 37), first, count)) << i;
  // Another GPU's counters and another tracking region (page 600: region 1) are separate.
  EXPECT_FALSE(p->on_remote_access(remote(1, 37), first, count));
  EXPECT_FALSE(p->on_remote_access(remote(0, 600), first, count));
  EXPECT_TRUE(p->on_remote_access(remote(0, 48), first, count));
  EXPECT_EQ(first, 32u);
  EXPECT_EQ(count, 32u);
  // The count restarted.
  EXPECT_FALSE(p->on_remote_access(remote(0, 40), first, count));
  // CPU accesses have no access counters.
  sim::RemoteAccess cpu;
  cpu.requester = sim::Processor::cpu();
  EXPECT_FALSE(p->on_remote_access(cpu, first, count));
}

// Touched sub-regions 0 and 5 are not contiguous: the access crossing the threshold (in
// sub-region 5) migrates pages 80..95; sub-region 0 migrates at its next remote access.
TEST(AccessCounterMigration, SeparateTouchedSubRegionsMigrateOnTheirNextAccess) {
  auto p = make<sim::MigrationPolicy>("access-counter:threshold=4");
  p->on_allocation_created(0, 512);
  std::uint64_t first = 0, count = 0;
  for (int i = 0; i < 3; ++i) ASSERT_FALSE(p->on_remote_access(remote(0, 3), first, count));
  ASSERT_TRUE(p->on_remote_access(remote(0, 85), first, count));
  EXPECT_EQ(first, 80u);
  EXPECT_EQ(count, 16u);
  ASSERT_TRUE(p->on_remote_access(remote(0, 9), first, count));
  EXPECT_EQ(first, 0u);
  EXPECT_EQ(count, 16u);
  EXPECT_FALSE(p->on_remote_access(remote(0, 9), first, count));  // nothing pending any more
}

TEST(AccessCounterMigration, SixtyFourKiBTrackingClipsAndValidates) {
  auto p = make<sim::MigrationPolicy>("access-counter:threshold=1,granularity=64KiB");
  p->on_allocation_created(3, 20);  // 20 pages: the second 64 KiB region has 4
  std::uint64_t first = 0, count = 0;
  EXPECT_TRUE(p->on_remote_access(remote(0, 18, 3), first, count));
  EXPECT_EQ(first, 16u);
  EXPECT_EQ(count, 4u);
  EXPECT_THROW(make<sim::MigrationPolicy>("access-counter:threshold=0"), PolicyError);
  EXPECT_THROW(make<sim::MigrationPolicy>("access-counter:threshold=40000"), PolicyError);
  EXPECT_THROW(make<sim::MigrationPolicy>("access-counter:granularity=16MiB"), PolicyError);
}

}  // namespace
}  // namespace umsim::policies
