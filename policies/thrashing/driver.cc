// The NVIDIA driver's thrashing detection and mitigation (uvm_perf_thrashing.c).
//
// Detection (on_migration, on_revocation), on every fault/prefetch/access-counter
// migration of a block's pages and every revocation of a processor's write
// permission on them (read duplication): an event names the processor the pages
// went to, or the one whose permission went. Per-page state exists only once two
// consecutive events of the block named different processors within one lapse
// (500 us). A page with another event within a lapse of its previous one counts
// one more thrashing event; at `threshold` (3) events it is thrashing. A
// thrashing page quiet for more than a lapse is reset on its next event; a block
// with no thrashing event for an epoch (2000 lapses) is reset, at most
// `max_resets` (4) times. On ReadMostly memory migrations are no events (the
// driver clears the moved pages' thrashing state instead): only revocations count.
//
// Mitigation (on_fault), the driver's hint for the requesting processor, before
// the fault is serviced:
//   - pin at the preferred location if every thrashing processor can access it;
//   - pin where the page is if all thrashing processors have fast access there
//     (NVLink + native atomics: `fast_links` for every processor, off on PCIe
//     hosts; `peer_fast_links` for pages only GPUs thrash on, on by default: GPUs
//     that map each other are joined by NVLink on the machines modelled);
//   - otherwise throttling periods of `nap` lapses: one processor per period is
//     spared (alternating), the others are throttled; once a page has been
//     throttled `pin_threshold` (10) times, the spared processor pins it locally
//     and the others map it remotely; pins expire after `pin` lapses (150 ms).
//
// The adaptive lapse (adjust_thrashing_lapse): every hint on a thrashing page
// votes +1 when the page's last event is at least a lapse old, -1 otherwise; at
// +32 votes the lapse grows by an eighth (at most 50 ms per step, up to 500 ms)
// and the vote halves. The driver adapts only its default lapse (500 us), so a
// `lapse` set to anything else stays fixed. Nap, epoch and pin durations are
// multiples of the initial lapse, as in the driver.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "policies/internal/page_words.h"
#include "policies/policy_kinds.h"

namespace umsim::policies {
namespace {

enum class Forced { kAuto, kThrottle, kPin, kMapRemote };

Forced parse_forced(const std::string& s) {
  if (s == "auto") return Forced::kAuto;
  if (s == "throttle") return Forced::kThrottle;
  if (s == "pin") return Forced::kPin;
  if (s == "map-remote") return Forced::kMapRemote;
  throw PolicyError("thrashing policy 'driver': response must be auto, throttle, pin or map-remote, got '" + s + "'");
}

struct PageState {
  sim::Nanos stamp = 0;            // last migration time + 1 (0 = none yet)
  sim::Nanos throttling_end = 0;   // end of the current throttling period
  sim::Nanos pin_deadline = 0;
  std::uint16_t processors = 0;    // processors involved (mask, bit 0 = CPU)
  std::uint16_t throttled = 0;     // processors throttled in the current period
  std::uint8_t events = 0;         // consecutive thrashing events (3 bits in the driver)
  std::uint8_t throttling_count = 0;
  bool pinned = false;
  sim::Processor pinned_residency = sim::Processor::none();
  sim::Processor do_not_throttle = sim::Processor::none();
};

struct BlockState {
  std::unique_ptr<PageState[]> pages;  // created on the first sign of thrashing in the block
  sim::Nanos last_stamp = 0;           // last migration + 1
  sim::Nanos last_thrashing_stamp = 0;
  sim::Processor last_processor = sim::Processor::none();
  std::uint8_t resets = 0;
  std::uint32_t pinned_count = 0;
  sim::PageMask thrashing;
};

enum class Hint { kNone, kThrottle, kPin };

constexpr sim::Nanos kDefaultLapseNs = 500'000;          // UVM_PERF_THRASHING_LAPSE_USEC_DEFAULT
constexpr sim::Nanos kMaxLapseNs = kDefaultLapseNs * 1000;  // UVM_PERF_THRASHING_LAPSE_USEC_MAX
constexpr sim::Nanos kMinLapseNs = kDefaultLapseNs / 100;   // UVM_PERF_THRASHING_LAPSE_USEC_MIN
constexpr std::int64_t kLapseVoteThreshold = 32;

// Time from `then` to `now`. The engine's processors keep their own clocks
// (each GPU's kernels, the host), so a migration may carry an earlier time than
// the one before it: for the lapse, it happened at the same time.
sim::Nanos since(sim::Nanos now, sim::Nanos then) { return now > then ? now - then : 0; }

class DriverThrashing final : public sim::ThrashingPolicy {
 public:
  explicit DriverThrashing(const Params& p)
      : threshold_(p.get_int("threshold")),
        pin_threshold_(p.get_int("pin_threshold")),
        lapse_ns_(p.get_duration_ns("lapse")),
        adaptive_lapse_(lapse_ns_ == kDefaultLapseNs),
        nap_ns_(lapse_ns_ * static_cast<std::uint64_t>(p.get_int("nap"))),
        epoch_ns_(lapse_ns_ * static_cast<std::uint64_t>(p.get_int("epoch"))),
        pin_ns_(lapse_ns_ * static_cast<std::uint64_t>(p.get_int("pin"))),
        max_resets_(p.get_int("max_resets")),
        forced_(parse_forced(p.get_string("response"))),
        fast_links_(p.get_bool("fast_links")),
        peer_fast_links_(p.get_bool("peer_fast_links")),
        peer_access_(p.get_bool("peer_access")),
        cpu_maps_gpu_(p.get_bool("cpu_maps_gpu")) {
    auto check = [](bool ok, const std::string& what) {
      if (!ok) throw PolicyError("thrashing policy 'driver': " + what);
    };
    check(threshold_ >= 1 && threshold_ <= 7, "threshold must be 1..7 (3-bit counter in the driver)");
    check(pin_threshold_ >= 1 && pin_threshold_ <= 255, "pin_threshold must be 1..255");
    check(lapse_ns_ > 0, "lapse must be positive");
    check(p.get_int("nap") >= 1 && p.get_int("nap") <= 100, "nap must be 1..100 lapses");
    check(p.get_int("epoch") >= 1, "epoch must be >= 1 lapse");
    check(p.get_int("pin") >= 0, "pin must be >= 0 lapses");
    check(max_resets_ >= 0, "max_resets must be >= 0");
  }

  void on_allocation_created(sim::AllocSlot alloc, std::uint64_t pages) override {
    if (blocks_.size() <= alloc) blocks_.resize(alloc + 1);
    blocks_[alloc] = std::vector<BlockState>((pages + sim::kPagesPerBlock - 1) / sim::kPagesPerBlock);
  }
  void on_allocation_freed(sim::AllocSlot alloc) override {
    if (alloc < blocks_.size()) blocks_[alloc].clear();
  }

  void thrashing_pages(sim::AllocSlot alloc, std::uint64_t block, sim::Nanos, sim::PageMask& out) const override {
    if (alloc >= blocks_.size() || block >= blocks_[alloc].size()) return;
    const BlockState& b = blocks_[alloc][block];
    if (b.pages) out |= b.thrashing;  // a block without per-page state has no thrashing pages
  }

  // A block without per-page state has no pins and no thrashing pages: on_fault answers nothing.
  bool quiet_block(sim::AllocSlot alloc, std::uint64_t block) const override {
    return alloc >= blocks_.size() || block >= blocks_[alloc].size() || !blocks_[alloc][block].pages;
  }

  // on_migration's common case, which reads no page: the block stays without
  // per-page state and only notes when and where it last went.
  bool on_quiet_migration(const sim::BlockMigration& m) override {
    if (m.alloc >= blocks_.size() || m.block >= blocks_[m.alloc].size()) [[unlikely]]
      return quiet_migration_of_grown(m);
    return note_quiet_migration(blocks_[m.alloc][m.block], m);
  }
  // A repeat finds the block as the accepted migration left it, last gone to
  // the same processor at the same stamp: not potential thrashing, and its
  // note writes the same values.
  bool ignores_quiet_repeats() const override { return true; }

  sim::ThrashingResponse on_fault(const sim::FaultNotice& n) override {
    if (n.alloc >= blocks_.size() || n.block >= blocks_[n.alloc].size()) return {};
    BlockState& b = blocks_[n.alloc][n.block];
    if (!b.pages) return {};  // no page state: no thrashing, no pins
    const PageWords faulted = PageWords::of(n.pages);
    expire_pins(b, faulted, n.now);
    return decide(b, n, faulted);
  }

  sim::ThrashingResponse on_migration(const sim::MigrationNotice& n) override {
    BlockState& b = block(n.alloc, n.block);
    if (n.read_duplication) {  // thrashing_reset_pages_in_region, and no event
      if (b.pages) {
        PageWords moved = PageWords::of(n.pages);
        moved &= PageWords::of(b.thrashing);
        moved.for_each([&](std::uint32_t i) { reset_page(b, i); });
      }
      return {};
    }
    const sim::Nanos stamp = n.now + 1;
    // A block without per-page state has no pins and no thrashing pages:
    // unless this migration starts tracking its pages, it only notes when and
    // where the block last went (the common case of a fault-heavy replay, with
    // none of the masks below).
    if (!b.pages && !potential_thrashing(b, n.to, stamp)) {
      note_last_migration(b, n.to, stamp);
      return {};
    }
    const PageWords moved = PageWords::of(n.pages);
    expire_pins(b, moved, n.now);
    return detected_by(b, [&] { detect(b, n.to, moved, stamp, /*migration=*/true); });
  }

  // Rare (read duplications only): no quiet-block shortcut, detect() notes a block without page state.
  sim::ThrashingResponse on_revocation(const sim::RevocationNotice& n) override {
    BlockState& b = block(n.alloc, n.block);
    const PageWords revoked = PageWords::of(n.pages);
    expire_pins(b, revoked, n.now);
    return detected_by(b, [&] { detect(b, n.revoked, revoked, n.now + 1, /*migration=*/false); });
  }

 private:
  BlockState& block(sim::AllocSlot alloc, std::uint64_t index) {
    if (alloc < blocks_.size() && index < blocks_[alloc].size()) return blocks_[alloc][index];
    return grown_block(alloc, index);
  }
  // block()'s rare case, out of line: the resizes would otherwise make every
  // call save and restore registers.
  [[gnu::noinline]] BlockState& grown_block(sim::AllocSlot alloc, std::uint64_t index) {
    if (blocks_.size() <= alloc) blocks_.resize(alloc + 1);
    auto& v = blocks_[alloc];
    if (v.size() <= index) v.resize(index + 1);
    return v[index];
  }

  bool note_quiet_migration(BlockState& b, const sim::BlockMigration& m) const {
    const sim::Nanos stamp = m.now + 1;
    if (b.pages || potential_thrashing(b, m.to, stamp)) return false;
    note_last_migration(b, m.to, stamp);
    return true;
  }
  // on_quiet_migration's rare case, out of line and reached by a jump: the
  // resizes would otherwise make every call (one a fault service) save and
  // restore registers.
  [[gnu::noinline]] bool quiet_migration_of_grown(const sim::BlockMigration& m) {
    return note_quiet_migration(grown_block(m.alloc, m.block), m);
  }

  static void note_last_migration(BlockState& b, sim::Processor to, sim::Nanos stamp) {
    b.last_stamp = std::max(stamp, b.last_stamp);
    b.last_processor = to;
  }

  // Pins whose time is up end as the driver's unpin timer would end them.
  void expire_pins(BlockState& b, const PageWords& pages, sim::Nanos now) {
    if (b.pages && pin_ns_ > 0) pages.for_each([&](std::uint32_t i) {
      PageState& s = b.pages[i];
      if (s.pinned && now >= s.pin_deadline) reset_page(b, i);
    });
  }

  // adjust_thrashing_lapse: a vote per hint on a thrashing page.
  void vote_on_lapse(sim::Nanos since_last_event) {
    if (!adaptive_lapse_) return;
    lapse_votes_ += since_last_event < lapse_ns_ ? -1 : 1;
    if (lapse_votes_ < kLapseVoteThreshold) return;
    if (lapse_ns_ < kMaxLapseNs) lapse_ns_ += std::min(lapse_ns_ / 8, kMaxLapseNs / 10);
    else if (lapse_ns_ > kMinLapseNs) lapse_ns_ -= std::max(lapse_ns_ / 8, kMinLapseNs);
    lapse_votes_ /= 2;
  }

  void reset_page(BlockState& b, std::uint32_t i) {
    PageState& s = b.pages[i];
    if (s.pinned && b.pinned_count > 0) --b.pinned_count;
    s = PageState{};
    b.thrashing.reset(i);
  }

  // Two consecutive migrations of a block without per-page state to different
  // processors within one lapse: its pages are tracked from now on.
  bool potential_thrashing(const BlockState& b, sim::Processor to, sim::Nanos stamp) const {
    return b.last_stamp != 0 && !(b.last_processor == to) && since(stamp, b.last_stamp) <= lapse_ns_;
  }

  // The pages that became thrashing while `event` ran, reported (no action).
  template <typename Event>
  static sim::ThrashingResponse detected_by(BlockState& b, Event&& event) {
    const sim::PageMask before = b.thrashing;
    event();
    sim::ThrashingResponse response;
    response.detected = b.thrashing & ~before;
    response.thrashing = response.detected;
    return response;
  }

  // thrashing_event_cb: the detection half, for an event naming `processor`.
  void detect(BlockState& b, sim::Processor processor, const PageWords& pages, sim::Nanos stamp, bool migration) {
    if (!b.pages) {
      if (!potential_thrashing(b, processor, stamp)) {
        note_last_migration(b, processor, stamp);
        return;
      }
      b.pages = std::make_unique<PageState[]>(sim::kPagesPerBlock);
    }
    pages.for_each([&](std::uint32_t i) {
      PageState& s = b.pages[i];
      if (migration && s.pinned) return;  // a pinned page moving to its pinned residency is not an event
      const sim::Nanos last = s.stamp;
      s.processors |= sim::processor_bit(processor);
      s.stamp = std::max(stamp, last);
      if (last == 0) return;
      if (since(stamp, last) <= lapse_ns_) {
        if (s.events < 7) ++s.events;
        if (s.events == threshold_) b.thrashing.set(i);
        if (s.events >= threshold_) b.last_thrashing_stamp = stamp;
      } else if (s.events >= threshold_ && !s.pinned) {
        reset_page(b, i);
        b.pages[i].processors = sim::processor_bit(processor);
        b.pages[i].stamp = stamp;
      }
    });
    note_last_migration(b, processor, stamp);
  }

  // uvm_perf_thrashing_get_hint for the requester, page by page, aggregated into one response.
  sim::ThrashingResponse decide(BlockState& b, const sim::FaultNotice& n, const PageWords& faulted) {
    sim::ThrashingResponse r;
    const sim::Nanos stamp = n.now + 1;
    if (b.last_thrashing_stamp != 0 && since(stamp, b.last_thrashing_stamp) > epoch_ns_ && b.pinned_count == 0 &&
        b.resets < max_resets_) {
      ++b.resets;
      b.pages.reset();
      b.last_processor = sim::Processor::none();
      b.last_stamp = 0;
      b.last_thrashing_stamp = 0;
      b.thrashing.reset();
      return r;
    }
    PageWords throttled, pinned;
    sim::Nanos throttle_end = 0;
    sim::Processor pin_to = sim::Processor::none();
    const sim::Processor req = n.requester;
    faulted.for_each([&](std::uint32_t i) {
      PageState& s = b.pages[i];
      if (s.events < threshold_) return;
      Hint h = Hint::kNone;
      sim::Processor residency = sim::Processor::none();
      if (forced_ != Forced::kAuto) {
        h = forced_ == Forced::kThrottle ? Hint::kThrottle : Hint::kPin;
        residency = req;
        if (h == Hint::kThrottle && stamp >= s.throttling_end) s.throttling_end = stamp + nap_ns_;
      } else {
        const std::uint16_t bit = sim::processor_bit(req);
        bool decided = false;
        if (s.throttled & bit) {
          if (stamp < s.throttling_end && !(req == s.do_not_throttle)) {
            h = Hint::kThrottle;
            decided = true;
          } else {
            s.throttled &= static_cast<std::uint16_t>(~bit);
            if (s.throttled == 0) s.throttling_end = 0;
          }
        }
        if (!decided) {
          vote_on_lapse(since(stamp, s.stamp));
          if (since(stamp, s.stamp) > lapse_ns_ && !s.pinned) return;  // no longer thrashing
          s.processors |= bit;
          throttle_update(s, req, stamp);
          const sim::Processor closest = n.resident.is_none() ? req : n.resident;
          h = hint_for_migration_thrashing(s, req, n.preferred, closest, residency);
        }
      }
      if (h == Hint::kPin) {
        if (!s.pinned || !(s.pinned_residency == residency)) {
          s.throttled = 0;
          s.throttling_end = 0;
        }
        if (!s.pinned) {
          s.pin_deadline = n.now + pin_ns_;
          s.throttling_count = 0;
          s.pinned = true;
          ++b.pinned_count;
        }
        s.pinned_residency = residency;
        if (pin_to.is_none()) pin_to = residency;
        if (residency == pin_to) pinned.set(i);
      } else if (h == Hint::kThrottle) {
        const std::uint16_t bit = sim::processor_bit(req);
        if (!(s.throttled & bit)) {
          s.throttled |= bit;
          if (!s.pinned && s.throttling_count < 255) ++s.throttling_count;
        }
        throttled.set(i);
        throttle_end = std::max(throttle_end, s.throttling_end);
      }
    });
    if (!pinned.none()) {
      r.action = forced_ == Forced::kMapRemote ? sim::ThrashingAction::kMapRemote : sim::ThrashingAction::kPin;
      r.pin_to = forced_ == Forced::kMapRemote && !n.resident.is_none() ? n.resident : pin_to;
      r.until = pin_ns_ > 0 ? n.now + pin_ns_ : UINT64_MAX;
      r.thrashing = pinned.mask();
    } else if (!throttled.none()) {
      r.action = sim::ThrashingAction::kThrottle;
      r.throttle_ns = throttle_end > stamp ? throttle_end - stamp : 0;
      r.thrashing = throttled.mask();
    }
    return r;
  }

  // thrashing_throttle_update: a new throttling period spares another processor.
  void throttle_update(PageState& s, sim::Processor req, sim::Nanos stamp) const {
    if (stamp > s.throttling_end) {
      s.throttling_end = stamp + nap_ns_;
      s.do_not_throttle = s.do_not_throttle == req ? sim::Processor::none() : req;
    } else if (s.do_not_throttle.is_none()) {
      s.do_not_throttle = req;
    }
  }

  // Whether every processor in `mask` can map memory resident on `to`.
  bool can_access(std::uint16_t mask, sim::Processor to) const {
    if (to.is_none()) return false;
    if (to.is_cpu()) return true;  // GPUs map system memory
    for (int code = 0; code < 16; ++code) {
      if (!(mask & (1u << code)) || code == to.code) continue;
      if (code == 0 ? !cpu_maps_gpu_ : !peer_access_) return false;
    }
    return true;
  }

  Hint hint_for_migration_thrashing(PageState& s, sim::Processor req, sim::Processor preferred,
                                    sim::Processor closest, sim::Processor& residency) const {
    if (can_access(s.processors, preferred)) {
      residency = preferred;
      return Hint::kPin;
    }
    const bool preferred_thrashing = !preferred.is_none() && (s.processors & sim::processor_bit(preferred));
    const bool fast = fast_links_ || (peer_fast_links_ && !(s.processors & 1u) && closest.is_gpu());
    if (!preferred_thrashing && fast && can_access(s.processors, closest)) {
      if (closest.is_cpu() && can_access(s.processors, req)) {
        if (req.is_gpu()) {
          residency = req;
          return Hint::kPin;
        }
        return Hint::kNone;
      }
      residency = closest;
      return Hint::kPin;
    }
    if (req == preferred) {
      if (s.pinned) {
        if (preferred == s.pinned_residency || preferred == s.do_not_throttle) {
          residency = preferred;
          return Hint::kPin;
        }
        return Hint::kThrottle;
      }
      if (!(preferred == s.do_not_throttle)) return Hint::kThrottle;
      if (s.throttling_count >= pin_threshold_) {
        residency = preferred;
        return Hint::kPin;
      }
      return Hint::kNone;
    }
    if (s.pinned) {
      if (req == s.do_not_throttle) {
        residency = req;  // all thrashing processors can access it, or no common location: the requester
        return Hint::kPin;
      }
      if (can_access(sim::processor_bit(req), s.pinned_residency)) {
        residency = s.pinned_residency;
        return Hint::kPin;
      }
      return Hint::kThrottle;
    }
    if (!(req == s.do_not_throttle)) return Hint::kThrottle;
    if (s.throttling_count >= pin_threshold_) {
      residency = req;
      return Hint::kPin;
    }
    return Hint::kNone;
  }

  std::int64_t threshold_;
  std::int64_t pin_threshold_;
  sim::Nanos lapse_ns_;  // adapts (see the top of this file)
  bool adaptive_lapse_;
  std::int64_t lapse_votes_ = 0;
  sim::Nanos nap_ns_, epoch_ns_, pin_ns_;
  std::int64_t max_resets_;
  Forced forced_;
  bool fast_links_, peer_fast_links_, peer_access_, cpu_maps_gpu_;
  std::vector<std::vector<BlockState>> blocks_;  // [alloc][block]
};

}  // namespace

UMSIM_REGISTER_POLICY(
    sim::ThrashingPolicy, DriverThrashing, "driver",
    "NVIDIA driver thrashing detection (3 migrations within 500 us) with throttle / pin / remote-map responses",
    {{"threshold", ParamType::kInt, "3", "thrashing events within a lapse that mark a page as thrashing (1..7)"},
     {"pin_threshold", ParamType::kInt, "10", "throttling periods before the page is pinned"},
     {"lapse", ParamType::kDuration, "500us", "window in which two migrations of a page count as thrashing"},
     {"nap", ParamType::kInt, "1", "throttling period, in lapses"},
     {"epoch", ParamType::kInt, "2000", "quiet time (lapses) after which a block's thrashing state resets"},
     {"pin", ParamType::kInt, "300", "pin duration in lapses (300 x 500 us = 150 ms); 0 = forever"},
     {"max_resets", ParamType::kInt, "4", "times a block's thrashing state may be reset"},
     {"response", ParamType::kString, "auto", "auto (the driver's choice), or force throttle / pin / map-remote"},
     {"fast_links", ParamType::kBool, "false", "all processors have NVLink + native atomics (pin in place)"},
     {"peer_fast_links", ParamType::kBool, "true",
      "GPUs reach each other over NVLink + native atomics: pages only GPUs thrash on are pinned in place"},
     {"peer_access", ParamType::kBool, "true", "GPUs can map each other's memory"},
     {"cpu_maps_gpu", ParamType::kBool, "false", "the CPU can map GPU memory (coherent C2C / ATS systems)"}});

}  // namespace umsim::policies
