// A link direction shared by a GPU's fault service and the transfers beside
// it (sim/shared_link.h): hand-computed timings, on the link alone and in a
// replay under round_profile() (1 us latency, 4 GB/s).
#include <gtest/gtest.h>

#include "sim/shared_link.h"
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

const LinkSharing kShared{true, /*fault_share=*/0.25};
const CopyClient kFaults{};
const CopyClient kStream1{false, 1};

// 300 ns of work starting at 100 through a stretch [200, 600) at half speed:
// 100 at full speed, 200 in the stretch (its 400 ns), the last 0 after it
// -> 600; 500 ns of work: the rest, 200, after it -> 800.
TEST(SharedLink, SlowdownStretchesTheWorkInsideIt) {
  const LinkSlowdown s{200, 600, 0.5};
  EXPECT_EQ(s.end_of(100, 300), 600u);
  EXPECT_EQ(s.end_of(100, 500), 800u);
  EXPECT_EQ(s.end_of(600, 50), 650u);  // after it: full speed
  EXPECT_EQ(s.end_of(0, 150), 150u);   // done before it
  EXPECT_EQ(s.later(150), 150u);       // a completion before the stretch stays
  EXPECT_EQ(s.later(300), 400u);       // 100 ns of work from 200 at half speed
}

// Without sharing a fault copy queues behind the transfer (1000 + 100).
TEST(SharedLink, OffQueuesFaultCopiesBehindTransfers) {
  SharedLink link(1, LinkSharing{});
  EXPECT_EQ(link.schedule(kStream1, 0, 1000), 1000u);
  EXPECT_EQ(link.schedule(kFaults, 200, 100), 1100u);
  EXPECT_TRUE(link.take_slowdowns().empty());
}

// A fault copy ready at 200 beside a transfer busy until 1000 gets a quarter
// of the link: 200 + 4 x 100 = 600. The transfer has three quarters in
// [200, 600): 300 of its 800 ns of work left there, the other 500 after
// -> 1100, later by the fault copy's 100. The transfers' queue goes on from
// there (1100 + 100). A fault copy with no transfer beside it runs at full
// speed (1300 -> 1400), and a transfer beside it gets the rest of the link:
// ready at 1300, 75 of its 400 ns by 1400, the other 325 after -> 1725.
TEST(SharedLink, FaultCopiesShareTheLinkWithTransfers) {
  SharedLink link(1, kShared);
  EXPECT_EQ(link.schedule(kStream1, 0, 1000), 1000u);
  EXPECT_EQ(link.schedule(kFaults, 200, 100), 600u);
  EXPECT_TRUE(link.pending(1, 1099));
  EXPECT_FALSE(link.pending(1, 1100));
  EXPECT_FALSE(link.pending(2, 0));
  const std::vector<LinkSlowdown> slowed = link.take_slowdowns();
  ASSERT_EQ(slowed.size(), 1u);
  EXPECT_EQ(slowed[0].from, 200u);
  EXPECT_EQ(slowed[0].until, 600u);
  EXPECT_EQ(slowed[0].later(1000), 1100u);
  EXPECT_TRUE(link.take_slowdowns().empty());
  EXPECT_EQ(link.schedule(kStream1, 0, 100), 1200u);
  EXPECT_EQ(link.schedule(kFaults, 1300, 100), 1400u);
  EXPECT_TRUE(link.take_slowdowns().empty());
  EXPECT_EQ(link.schedule(kStream1, 1300, 400), 1725u);
}

// Copies of one client still queue in order: two fault copies on one link,
// two streams' transfers on another (the streams' transfers are one queue).
TEST(SharedLink, OneClientsCopiesQueue) {
  SharedLink faults(1, kShared);
  EXPECT_EQ(faults.schedule(kFaults, 0, 100), 100u);
  EXPECT_EQ(faults.schedule(kFaults, 0, 100), 200u);
  SharedLink transfers(1, kShared);
  EXPECT_EQ(transfers.schedule(CopyClient{false, 2}, 0, 100), 100u);
  EXPECT_EQ(transfers.schedule(kStream1, 0, 100), 200u);
}

// A kernel on stream 2 faults one page while stream 1 prefetches 2 MiB.
// Host: CPU writes of 512 + 1 pages, 513 x 110 = 56430. The prefetch: block
// cost 500, then its copy 1000 + 2 MiB / 4 = 525288, from 56930 to 582218.
// The kernel starts at 56430; its batch: 10000 + 2000 + 100 -> 68530, then the
// page's copy, 1000 + 4096 / 4 = 2024:
// - queued (no sharing) behind the prefetch: 582218 + 2024 = 584242, the
//   kernel's stall 527812, the replay's end with it;
// - shared: a quarter of the link beside the prefetch, 4 x 2024 = 8096
//   -> 76626, the stall 20196; the prefetch ends 2024 later, at 584242: the
//   link moved the same bytes by the same time, the kernel no longer waits.
TEST(SharedLink, KernelFaultsBesideAPrefetchChain) {
  const auto t = TraceBuilder()
                     .alloc("A", 2_MiB)
                     .alloc("B", 4_KiB)
                     .cpu_write("A")
                     .cpu_write("B")
                     .prefetch("A", Processor::gpu(0), /*stream=*/1)
                     .kernel("k", 0, 0, /*stream=*/2)
                     .read("B")
                     .end()
                     .sync()
                     .build();
  const Result queued = replay(t, options_for(round_profile()));
  EXPECT_EQ(queued.kernels[0].start_ns, 56430u);
  EXPECT_EQ(queued.kernels[0].counters.stall_ns, 527812u);
  EXPECT_EQ(queued.total.time_ns, 584242u);
  HardwareProfile p = round_profile();
  p.link_sharing = kShared;
  const Result shared = replay(t, options_for(p));
  EXPECT_EQ(shared.kernels[0].start_ns, 56430u);
  EXPECT_EQ(shared.kernels[0].counters.stall_ns, 20196u);
  EXPECT_EQ(shared.kernels[0].counters.time_ns, 20196u);
  EXPECT_EQ(shared.total.time_ns, 584242u);
  EXPECT_EQ(shared.total.bytes_h2d, queued.total.bytes_h2d);
}

}  // namespace
}  // namespace umsim::sim
