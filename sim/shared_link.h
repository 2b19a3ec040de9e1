// One direction of a GPU's link as its two kinds of client use it: the GPU's
// fault service (the migrations and evictions of its batches) and transfers
// (streams' prefetches and copies, the host's CPU faults). Each kind queues its
// own copies in order on its own copy-engine timeline.
//
// Without sharing (the default) the two are one timeline: a fault's copies
// queue behind every transfer already scheduled. With sharing (profile
// [copy_engines] fault_share) they overlap: on the H200 a kernel faulting
// beside a prefetch chain is slowed by it, where a queue would make it wait
// for the whole chain (docs/model.md, "A link shared by faults and
// transfers"). While both have copies in flight the fault copies get
// fault_share of the link and the transfers the rest, so the transfers
// already scheduled end later by the link time the fault copies took.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "sim/copy_engines.h"
#include "sim/profile.h"
#include "sim/types.h"

namespace umsim::sim {

// A stretch of time in which copies on a link direction run at `rate` of
// their speed (full speed outside it; 0: they wait for its end).
struct LinkSlowdown {
  Nanos from = 0, until = 0;
  double rate = 1;

  // The end of a copy of `work` ns at full speed that starts at `start`.
  Nanos end_of(Nanos start, Nanos work) const {
    const Nanos slow_from = std::max(start, from);
    if (slow_from >= until || start + work <= slow_from) return start + work;
    const double left = static_cast<double>(work - (slow_from - start));  // at slow_from, above 0
    const double room = rate * static_cast<double>(until - slow_from);    // work the stretch lets through
    if (left <= room) return slow_from + static_cast<Nanos>(std::ceil(left / rate));
    return until + static_cast<Nanos>(std::ceil(left - room));
  }
  // Where a completion at t of copies running without a gap from `from` on moves.
  Nanos later(Nanos t) const { return t <= from ? t : end_of(from, t - from); }
};

// Who issues a copy.
struct CopyClient {
  static constexpr std::uint32_t kHost = UINT32_MAX;
  bool fault_service = true;     // the GPU's fault service; else a transfer
  std::uint32_t stream = kHost;  // a transfer's stream (kHost: the host's, a CPU fault)
};

class SharedLink {
 public:
  // `slowed`: a counter the link adds one to for every slowdown it records
  // (the caller looks at the links only when it is not 0).
  SharedLink(int engines, const LinkSharing& sharing, std::uint32_t* slowed = nullptr)
      : faults_(engines), transfers_(engines), sharing_(sharing), slowed_(slowed) {}

  // Runs a copy of `duration` at full speed that may start at `ready`; returns its end.
  [[gnu::always_inline]] Nanos schedule(const CopyClient& client, Nanos ready, Nanos duration) {
    if (!sharing_.on) return transfers_.schedule(ready, duration);  // one timeline
    return client.fault_service ? schedule_fault_copy(ready, duration)
                                : schedule_transfer(client.stream, ready, duration);
  }

  // The stretches in which fault copies slowed the transfers here since the
  // last call, in order (the caller moves the completions it holds of the
  // streams pending here by them, LinkSlowdown::later); emptied by the next.
  const std::vector<LinkSlowdown>& take_slowdowns() {
    taken_.swap(slowdowns_);
    slowdowns_.clear();
    return taken_;
  }

  // Whether a transfer of `stream` here ends after t.
  bool pending(std::uint32_t stream, Nanos t) const { return stream < stream_end_.size() && stream_end_[stream] > t; }

 private:
  // Beside the transfers scheduled, until they end, at fault_share; they give
  // up that share meanwhile and end later.
  Nanos schedule_fault_copy(Nanos ready, Nanos duration) {
    const Nanos busy = transfers_.busy_until();
    Nanos start = 0;
    const Nanos end = faults_.schedule_with(ready, [&](Nanos s) {
      start = s;
      return LinkSlowdown{s, busy, sharing_.fault_share}.end_of(s, duration);
    });
    if (busy > start) {
      const LinkSlowdown beside{start, end, 1 - sharing_.fault_share};
      transfers_.delay([&](Nanos t) { return beside.later(t); });
      for (Nanos& t : stream_end_) t = beside.later(t);
      slowdowns_.push_back(beside);
      if (slowed_) ++*slowed_;
    }
    return end;
  }

  // A transfer beside fault copies already scheduled gets the rest of the link until they end.
  Nanos schedule_transfer(std::uint32_t stream, Nanos ready, Nanos duration) {
    const Nanos faults_busy = faults_.busy_until();
    const Nanos end = transfers_.schedule_with(ready, [&](Nanos start) {
      return LinkSlowdown{start, faults_busy, 1 - sharing_.fault_share}.end_of(start, duration);
    });
    if (stream != CopyClient::kHost) {
      if (stream >= stream_end_.size()) stream_end_.resize(stream + 1, 0);
      stream_end_[stream] = std::max(stream_end_[stream], end);
    }
    return end;
  }

  CopyEngines faults_, transfers_;
  LinkSharing sharing_;
  std::uint32_t* slowed_;
  std::vector<LinkSlowdown> slowdowns_, taken_;  // since the last take_slowdowns; its last answer
  std::vector<Nanos> stream_end_;                // by stream: its last transfer's end
};

}  // namespace umsim::sim
