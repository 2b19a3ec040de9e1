// The NVIDIA driver's thrashing detection and mitigation on hand-made migration
// sequences. Defaults: lapse 500 us, threshold 3, nap 1 lapse, pin 300 lapses.
#include <gtest/gtest.h>

#include "tests/policies/policy_test_util.h"

namespace umsim::policies {
namespace {

using namespace testing;
using sim::ThrashingAction;

constexpr sim::Nanos kUs = 1000;
const sim::Processor kGpu = sim::Processor::gpu(0);
const sim::Processor kCpu = sim::Processor::cpu();

sim::MigrationNotice move(sim::PageMask pages, sim::Processor from, sim::Processor to, sim::Nanos now,
                          sim::Processor preferred = sim::Processor::none()) {
  sim::MigrationNotice n;
  n.pages = pages;
  n.from = from;
  n.to = to;
  n.now = now;
  n.preferred = preferred;
  return n;
}

// One fault service that migrates `pages` from `from` to `to` (the requester):
// the policy's hint before it (its action), then its detection after the
// migration (the pages that became thrashing), as one response.
sim::ThrashingResponse fault_and_move(sim::ThrashingPolicy& p, const sim::MigrationNotice& n) {
  sim::FaultNotice f;
  f.alloc = n.alloc;
  f.block = n.block;
  f.pages = n.pages;
  f.requester = n.to;
  f.resident = n.from;
  f.preferred = n.preferred;
  f.now = n.now;
  sim::ThrashingResponse r = p.on_fault(f);
  const sim::ThrashingResponse d = p.on_migration(n);
  r.detected = d.detected;
  if (r.action == ThrashingAction::kNone) r.thrashing = d.thrashing;
  EXPECT_EQ(d.action, ThrashingAction::kNone) << "the driver acts before a fault is serviced, not after";
  return r;
}

// Page 0 ping-pongs between the GPU and the CPU every 100 us; returns the responses.
std::vector<sim::ThrashingResponse> ping_pong(sim::ThrashingPolicy& p, int steps,
                                              sim::Processor preferred = sim::Processor::none()) {
  std::vector<sim::ThrashingResponse> out;
  for (int i = 0; i < steps; ++i) {
    const sim::Processor to = i % 2 == 0 ? kGpu : kCpu;
    const sim::Processor from = i == 0 ? sim::Processor::none() : (i % 2 == 0 ? kCpu : kGpu);
    out.push_back(fault_and_move(p, move(pages({0}), from, to, i * 100 * kUs, preferred)));
  }
  return out;
}

sim::PageMask thrashing_now(const sim::ThrashingPolicy& p) {
  sim::PageMask m;
  p.thrashing_pages(0, 0, 0, m);
  return m;
}

// t(us): 0    100  200  300  400  500  600  700  800  900  1000 1100 1200
// to:    gpu  cpu  gpu  cpu  gpu  cpu  gpu  cpu  gpu  cpu  gpu  cpu  gpu
// 100 us: the second block event from another processor within a lapse creates the
//   per-page state (page stamped, no event yet). 200, 300, 400: events 1, 2, 3 -> thrashing.
// 500 (cpu): first throttling period [500, 1000], the CPU is spared: no action.
// 600 (gpu): not spared -> throttled until 1000: 400 us (throttle count 1).
// 700 (cpu): spared. 800 (gpu): still throttled (200 us left), count unchanged.
// 900 (cpu): spared. 1000 (gpu): its throttle ended; new period [1000, 1500] spares the GPU.
// 1100 (cpu): throttled 400 us, count 2. 1200 (gpu): spared and count 2 >= pin_threshold 2:
//   pin the page on the GPU for 150 ms.
TEST(DriverThrashing, DetectThrottleThenPin) {
  auto p = make<sim::ThrashingPolicy>("driver:pin_threshold=2");
  p->on_allocation_created(0, 512);
  const auto r = ping_pong(*p, 13);
  for (int i : {0, 1, 2, 3, 4, 5, 7, 9, 10}) EXPECT_EQ(r[i].action, ThrashingAction::kNone) << "t=" << i * 100;
  EXPECT_TRUE(r[3].detected.none());
  EXPECT_TRUE(r[4].detected.test(0));  // detected at the third event, reported once
  EXPECT_TRUE(r[4].thrashing.test(0));
  EXPECT_TRUE(r[5].detected.none());
  EXPECT_TRUE(r[5].thrashing.none());  // no action, nothing new
  EXPECT_EQ(r[6].action, ThrashingAction::kThrottle);
  EXPECT_EQ(r[6].throttle_ns, 400 * kUs);
  EXPECT_EQ(r[8].action, ThrashingAction::kThrottle);
  EXPECT_EQ(r[8].throttle_ns, 200 * kUs);
  EXPECT_EQ(r[11].action, ThrashingAction::kThrottle);
  EXPECT_EQ(r[11].throttle_ns, 400 * kUs);
  EXPECT_EQ(r[12].action, ThrashingAction::kPin);
  EXPECT_EQ(r[12].pin_to, kGpu);
  EXPECT_EQ(r[12].until, 1200 * kUs + 150'000 * kUs);
  EXPECT_TRUE(r[12].thrashing.test(0));
  EXPECT_TRUE(thrashing_now(*p).test(0));
}

// Default pin_threshold 10: the page is only throttled within 13 steps.
TEST(DriverThrashing, DefaultNeedsTenThrottlesBeforePinning) {
  auto p = make<sim::ThrashingPolicy>("driver");
  const auto r = ping_pong(*p, 13);
  for (const auto& x : r) EXPECT_NE(x.action, ThrashingAction::kPin);
  EXPECT_EQ(r[6].action, ThrashingAction::kThrottle);
}

// A preferred location every thrashing processor can access (the CPU) gets the pin at
// the first decision on a thrashing page (500 us).
TEST(DriverThrashing, PinsAtAnAccessiblePreferredLocation) {
  auto p = make<sim::ThrashingPolicy>("driver");
  const auto r = ping_pong(*p, 6, kCpu);
  EXPECT_EQ(r[5].action, ThrashingAction::kPin);
  EXPECT_EQ(r[5].pin_to, kCpu);
  // A GPU preferred location is not accessible by the CPU on PCIe hosts: throttling instead.
  auto q = make<sim::ThrashingPolicy>("driver");
  const auto s = ping_pong(*q, 7, kGpu);
  EXPECT_NE(s[5].action, ThrashingAction::kPin);
}

// Two GPUs joined by NVLink pull page 0 back and forth every 100 us: the same
// detection as with the CPU (thrashing at 400 us), then at the first decision
// (500 us, gpu1 requesting a page that came from gpu0) the page is pinned
// where it came from and gpu1 maps it; with peer_fast_links=false the
// requester is throttled instead, as between a GPU and the CPU on PCIe.
TEST(DriverThrashing, GpusOnFastPeerLinksPinInPlace) {
  const sim::Processor g0 = sim::Processor::gpu(0), g1 = sim::Processor::gpu(1);
  auto run = [&](const char* spec) {
    auto p = make<sim::ThrashingPolicy>(spec);
    std::vector<sim::ThrashingResponse> out;
    for (int i = 0; i < 6; ++i) {
      const sim::Processor to = i % 2 == 0 ? g0 : g1;
      const sim::Processor from = i == 0 ? sim::Processor::none() : (i % 2 == 0 ? g1 : g0);
      out.push_back(fault_and_move(*p, move(pages({0}), from, to, i * 100 * kUs)));
    }
    return out;
  };
  const auto fast = run("driver");
  for (int i = 0; i < 5; ++i) EXPECT_EQ(fast[i].action, ThrashingAction::kNone) << "t=" << i * 100;
  EXPECT_EQ(fast[5].action, ThrashingAction::kPin);
  EXPECT_EQ(fast[5].pin_to, g0);
  const auto slow = run("driver:peer_fast_links=false");
  EXPECT_NE(slow[5].action, ThrashingAction::kPin);
  // A page the CPU thrashes on too is not on a fast link on PCIe hosts.
  auto p = make<sim::ThrashingPolicy>("driver");
  const auto r = ping_pong(*p, 13);
  for (const auto& x : r) EXPECT_NE(x.action, ThrashingAction::kPin);
}

TEST(DriverThrashing, ForcedResponses) {
  auto t = make<sim::ThrashingPolicy>("driver:response=throttle");
  auto rt = ping_pong(*t, 6);
  EXPECT_EQ(rt[4].action, ThrashingAction::kNone);  // detection happens after the decision
  EXPECT_EQ(rt[5].action, ThrashingAction::kThrottle);
  EXPECT_EQ(rt[5].throttle_ns, 500 * kUs);  // one nap
  auto m = make<sim::ThrashingPolicy>("driver:response=map-remote");
  auto rm = ping_pong(*m, 6);
  EXPECT_EQ(rm[5].action, ThrashingAction::kMapRemote);
  EXPECT_EQ(rm[5].pin_to, kGpu);  // where the page was: the CPU maps it there
  auto pin = make<sim::ThrashingPolicy>("driver:response=pin,pin=0");
  auto rp = ping_pong(*pin, 6);
  EXPECT_EQ(rp[5].action, ThrashingAction::kPin);
  EXPECT_EQ(rp[5].pin_to, kCpu);
  EXPECT_EQ(rp[5].until, UINT64_MAX);  // pin=0: forever
}

TEST(DriverThrashing, NoThrashingWithoutFastPingPong) {
  // The same processor migrating again and again: the block never gets page state.
  auto same = make<sim::ThrashingPolicy>("driver");
  for (int i = 0; i < 20; ++i) fault_and_move(*same, move(pages({0}), kCpu, kGpu, i * 10 * kUs));
  EXPECT_TRUE(thrashing_now(*same).none());
  // Ping-pong slower than the lapse (600 us > 500 us): never thrashing.
  auto slow = make<sim::ThrashingPolicy>("driver");
  for (int i = 0; i < 20; ++i) {
    const auto r = fault_and_move(*slow, move(pages({0}), i % 2 ? kGpu : kCpu, i % 2 ? kCpu : kGpu, i * 600 * kUs));
    EXPECT_EQ(r.action, ThrashingAction::kNone);
  }
  EXPECT_TRUE(thrashing_now(*slow).none());
  // A tighter lapse turns the 100 us ping-pong into non-thrashing as well.
  auto tight = make<sim::ThrashingPolicy>("driver:lapse=50us");
  ping_pong(*tight, 10);
  EXPECT_TRUE(thrashing_now(*tight).none());
}

// Thrashing detected by 400 us (last event then; later ones refresh it). After an epoch
// (2000 lapses = 1 s) without thrashing events the block's state is reset.
TEST(DriverThrashing, EpochResetsTheBlock) {
  auto p = make<sim::ThrashingPolicy>("driver");
  ping_pong(*p, 5);
  ASSERT_TRUE(thrashing_now(*p).test(0));
  const auto r = fault_and_move(*p, move(pages({0}), kGpu, kCpu, 400 * kUs + 1'000'000 * kUs + 1));
  EXPECT_EQ(r.action, ThrashingAction::kNone);
  EXPECT_TRUE(thrashing_now(*p).none());
}

// A block without page state is quiet (on_fault answers nothing); a migration
// that would start tracking its pages (another processor within a lapse) is
// left to on_migration, which the quiet notice must not have changed.
TEST(DriverThrashing, QuietBlocksAndQuietMigrations) {
  auto p = make<sim::ThrashingPolicy>("driver");
  EXPECT_TRUE(p->quiet_block(0, 0));
  const sim::BlockMigration first{0, 0, kCpu, kGpu, sim::MigrationCause::kFault, sim::Processor::none(), 0};
  EXPECT_TRUE(p->on_quiet_migration(first));
  EXPECT_TRUE(p->quiet_block(0, 0));
  sim::BlockMigration back = first;
  back.from = kGpu;
  back.to = kCpu;
  back.now = 100 * kUs;
  EXPECT_FALSE(p->on_quiet_migration(back));  // ping-pong within a lapse: page state from now on
  EXPECT_TRUE(p->quiet_block(0, 0));
  p->on_migration(move(pages({0}), kGpu, kCpu, 100 * kUs));
  EXPECT_FALSE(p->quiet_block(0, 0));
  // The same history through on_migration alone gives the same state (ping_pong's).
  auto q = make<sim::ThrashingPolicy>("driver");
  auto quiet = make<sim::ThrashingPolicy>("driver");
  for (int i = 0; i < 6; ++i) {
    const sim::Processor to = i % 2 == 0 ? kGpu : kCpu, from = i % 2 == 0 ? kCpu : kGpu;
    const sim::MigrationNotice n = move(pages({0}), from, to, i * 100 * kUs);
    q->on_migration(n);
    if (!quiet->on_quiet_migration({0, 0, from, to, sim::MigrationCause::kFault, sim::Processor::none(), n.now}))
      quiet->on_migration(n);
  }
  EXPECT_EQ(thrashing_now(*q), thrashing_now(*quiet));
  EXPECT_TRUE(thrashing_now(*q).test(0));
}

// ignores_quiet_repeats: after an accepted quiet migration, the prefetched
// pages' (same block, processor and time) leave the policy as it was: a ping-
// pong history with and without the repeats ends in the same state.
TEST(DriverThrashing, QuietRepeatsChangeNothing) {
  auto once = make<sim::ThrashingPolicy>("driver");
  auto twice = make<sim::ThrashingPolicy>("driver");
  EXPECT_TRUE(twice->ignores_quiet_repeats());
  for (int i = 0; i < 6; ++i) {
    const sim::Processor to = i % 2 == 0 ? kGpu : kCpu, from = i % 2 == 0 ? kCpu : kGpu;
    const sim::MigrationNotice n = move(pages({0}), from, to, i * 100 * kUs);
    const sim::BlockMigration m{0, 0, from, to, sim::MigrationCause::kFault, sim::Processor::none(), n.now};
    if (!once->on_quiet_migration(m)) once->on_migration(n);
    if (!twice->on_quiet_migration(m)) {
      twice->on_migration(n);
      continue;
    }
    sim::BlockMigration repeat = m;
    repeat.cause = sim::MigrationCause::kPrefetchPolicy;
    repeat.preferred = kGpu;
    EXPECT_TRUE(twice->on_quiet_migration(repeat));
  }
  EXPECT_EQ(thrashing_now(*once), thrashing_now(*twice));
  EXPECT_EQ(once->quiet_block(0, 0), twice->quiet_block(0, 0));
  EXPECT_TRUE(thrashing_now(*once).test(0));
}

// Only the moved pages that thrash are reported; other pages of the block are untouched.
TEST(DriverThrashing, PerPageState) {
  auto p = make<sim::ThrashingPolicy>("driver");
  ping_pong(*p, 5);
  fault_and_move(*p, move(pages({0, 7}), kGpu, kCpu, 500 * kUs));
  EXPECT_TRUE(thrashing_now(*p).test(0));
  EXPECT_FALSE(thrashing_now(*p).test(7));  // migrated once only
  EXPECT_THROW(make<sim::ThrashingPolicy>("driver:threshold=8"), PolicyError);
  EXPECT_THROW(make<sim::ThrashingPolicy>("driver:nap=0"), PolicyError);
}

// The adaptive lapse. Pages 0-31 of block 0 thrash (ping-pong every 100 us up to
// 400 us); a fault on all 32 at 1,400 us, a millisecond after their last
// migration, gives 32 votes for a longer lapse: 500 -> 562.5 us. A ping-pong
// every 550 us (slower than the initial lapse) then makes block 1's page
// thrashing by its fifth migration, where the same ping-pong leaves a policy
// without those votes (or with a lapse set by hand, which never adapts) calm.
TEST(DriverThrashing, ThirtyTwoLateFaultsOnThrashingPagesLengthenTheLapse) {
  const sim::PageMask first32 = pages(0, 32);
  auto ping_pong_block = [](sim::ThrashingPolicy& p, std::uint64_t block, const sim::PageMask& m, sim::Nanos start,
                            sim::Nanos every, int steps) {
    for (int i = 0; i < steps; ++i) {
      sim::MigrationNotice n = move(m, i == 0 ? sim::Processor::none() : (i % 2 == 0 ? kCpu : kGpu),
                                    i % 2 == 0 ? kGpu : kCpu, start + static_cast<sim::Nanos>(i) * every);
      n.block = block;
      fault_and_move(p, n);
    }
  };
  auto thrashing_in = [](const sim::ThrashingPolicy& p, std::uint64_t block) {
    sim::PageMask m;
    p.thrashing_pages(0, block, 0, m);
    return m;
  };
  auto run = [&](const char* spec, bool votes) {
    auto p = make<sim::ThrashingPolicy>(spec);
    p->on_allocation_created(0, 4 * 512);
    ping_pong_block(*p, 0, first32, 0, 100 * kUs, 5);
    EXPECT_EQ(thrashing_in(*p, 0).count(), 32u);
    if (votes) {
      sim::FaultNotice f;
      f.pages = first32;
      f.requester = kCpu;
      f.resident = kGpu;
      f.now = 1400 * kUs;
      EXPECT_EQ(p->on_fault(f).action, ThrashingAction::kNone);  // a millisecond quiet: no longer thrashing
    }
    ping_pong_block(*p, 1, pages({0}), 2000 * kUs, 550 * kUs, 5);
    return thrashing_in(*p, 1).test(0);
  };
  EXPECT_TRUE(run("driver", true));
  EXPECT_FALSE(run("driver", false));
  EXPECT_FALSE(run("driver:lapse=499us", true));
  EXPECT_TRUE(run("driver:lapse=563us", false));  // the lengthened lapse, set by hand
}

sim::RevocationNotice revoke(sim::PageMask pages, sim::Processor revoked, sim::Nanos now) {
  sim::RevocationNotice n;
  n.pages = pages;
  n.revoked = revoked;
  n.now = now;
  return n;
}

// On ReadMostly memory a migration is no thrashing event (thrashing_event_cb
// clears the moved pages' state and returns): the 100 us ping-pong that
// thrashes plain memory by 400 us never does, and a thrashing page that moves
// read-duplicated is reset.
TEST(DriverThrashing, ReadMostlyMigrationsAreNoEvents) {
  auto p = make<sim::ThrashingPolicy>("driver");
  for (int i = 0; i < 13; ++i) {
    sim::MigrationNotice n = move(pages({0}), i % 2 ? kGpu : kCpu, i % 2 ? kCpu : kGpu, i * 100 * kUs);
    n.read_duplication = true;
    EXPECT_TRUE(p->on_migration(n).detected.none()) << "t=" << i * 100;
  }
  EXPECT_TRUE(thrashing_now(*p).none());
  EXPECT_TRUE(p->quiet_block(0, 0));  // not even tracked
  auto q = make<sim::ThrashingPolicy>("driver");
  ping_pong(*q, 5);
  ASSERT_TRUE(thrashing_now(*q).test(0));
  sim::MigrationNotice n = move(pages({0, 1}), kGpu, kCpu, 450 * kUs);
  n.read_duplication = true;
  EXPECT_TRUE(q->on_migration(n).detected.none());
  EXPECT_TRUE(thrashing_now(*q).none());
}

// Revocations are events naming the processor whose permission went, counted
// as migrations are. Alternating every 100 us: at 0 the block notes the GPU; at
// 100 the CPU within a lapse starts per-page state (page stamped); 200, 300,
// 400: events 1, 2, 3 -> thrashing, reported once.
TEST(DriverThrashing, RevocationsAreEvents) {
  auto p = make<sim::ThrashingPolicy>("driver");
  for (int i = 0; i < 6; ++i) {
    const auto r = p->on_revocation(revoke(pages({0}), i % 2 ? kCpu : kGpu, i * 100 * kUs));
    EXPECT_EQ(r.action, ThrashingAction::kNone);
    EXPECT_EQ(r.detected.test(0), i == 4) << "t=" << i * 100;
  }
  EXPECT_TRUE(thrashing_now(*p).test(0));
}

// A GPU's write and atomic permissions go together (two events at once), and
// a CPU turn's read duplications all name the GPU: events of one processor
// never start a block's tracking, however close. One CPU event within a lapse
// does; then each turn's pair counts one event (the second within a lapse of
// the first), so the third such pair makes the page thrash.
TEST(DriverThrashing, OneProcessorsRevocationsNeverStartTracking) {
  auto p = make<sim::ThrashingPolicy>("driver");
  for (int i = 0; i < 20; ++i)
    for (int level = 0; level < 2; ++level) p->on_revocation(revoke(pages({0}), kGpu, i * 50 * kUs));
  EXPECT_TRUE(p->quiet_block(0, 0));
  EXPECT_TRUE(thrashing_now(*p).none());
  // t = 1000 us: the CPU's write revoked, 50 us after the GPU's last pair: tracking starts (page stamped).
  EXPECT_TRUE(p->on_revocation(revoke(pages({0}), kCpu, 1000 * kUs)).detected.none());
  EXPECT_FALSE(p->quiet_block(0, 0));
  // Pairs naming the GPU 10 ms apart: the first event of each pair is beyond a lapse (no count), the second +1.
  for (int turn = 1; turn <= 3; ++turn) {
    sim::PageMask detected;
    for (int level = 0; level < 2; ++level)
      detected |= p->on_revocation(revoke(pages({0}), kGpu, 1000 * kUs + turn * 10'000 * kUs)).detected;
    EXPECT_EQ(detected.test(0), turn == 3) << "turn " << turn;
  }
  EXPECT_TRUE(thrashing_now(*p).test(0));
}

TEST(NoThrashing, NeverResponds) {
  auto p = make<sim::ThrashingPolicy>("none");
  for (const auto& r : ping_pong(*p, 20)) EXPECT_EQ(r.action, ThrashingAction::kNone);
}

}  // namespace
}  // namespace umsim::policies
