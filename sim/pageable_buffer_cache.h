// How much of a replay's pageable host buffer the host's caches hold.
//
// Copies between a GPU and pageable host memory (hipMemcpy from a malloc'd
// buffer) go through the runtime's pinned staging buffers: the host CPU copies
// the bytes between the user's buffer and the staging buffer. Its speed is that
// of the CPU's memory unless the user's bytes are in its cache. The trace names
// no host address for such a copy: every pageable copy reads or writes the
// start of one buffer (the HIP backend's one pageable buffer, sized by the
// largest copy), so what matters is how many of the buffer's leading bytes a
// copy finds cached.
//
// On the H200 hosts, uploads of up to 16 MiB repeated from one buffer ran at
// 10-17 GB/s, those of 64 and 256 MiB at 5-10 (the calibrations' "copies"
// runs; docs/validation.md, "Pageable uploads from a cached buffer"). Bytes
// reach that speed on their third copy, not their second: on the H100 hosts
// six uploads of the same 1, 4 or 16 MiB ran the first two slow, the second
// part of the way to the cached speed (docs/validation.md, "Session 129:
// pageable uploads warm up over two copies"), so the cache tells apart bytes
// copied once from bytes copied at least twice.
#pragma once

#include <algorithm>

#include "sim/types.h"

namespace umsim::sim {

class PageableBufferCache {
 public:
  // Of a copy's bytes: `cached` were copied at least twice before and stayed
  // cached, `warming` once; the rest come from the memory.
  struct Hit {
    Bytes cached = 0;
    Bytes warming = 0;
  };

  // `capacity`: bytes of host memory traffic the cache keeps (0: nothing is
  // ever cached, every byte moves at the memory's speed).
  explicit PageableBufferCache(Bytes capacity = 0) : capacity_(capacity) {}

  // What a copy of the buffer's first `bytes` finds.
  Hit hit(Bytes bytes) const {
    const Bytes cached = std::min(bytes, twice_head_);
    return {cached, std::min(bytes, once_head_) - cached};
  }

  // A copy read or wrote the buffer's first `bytes`. A range up to the
  // capacity stays cached, beside what was cached before (both fit), and the
  // part of it copied before is now copied twice; a longer one streams
  // through the cache and leaves only its tail, so a copy from the start
  // finds nothing.
  void copied(Bytes bytes) {
    if (bytes > capacity_) {
      once_head_ = twice_head_ = 0;
      return;
    }
    twice_head_ = std::max(twice_head_, std::min(once_head_, bytes));
    once_head_ = std::max(once_head_, bytes);
  }

  // `bytes` of other host memory traffic (the CPU touching other memory): the
  // buffer's lines are older, so they go first once the cache is full.
  void other_traffic(Bytes bytes) {
    const Bytes left = capacity_ - std::min(capacity_, bytes);
    once_head_ = std::min(once_head_, left);
    twice_head_ = std::min(twice_head_, left);
  }

 private:
  Bytes capacity_;
  // The buffer's leading bytes copied at least once / at least twice since
  // they were last pushed out (twice_head_ <= once_head_); the replay starts
  // with the buffer out of the cache.
  Bytes once_head_ = 0;
  Bytes twice_head_ = 0;
};

}  // namespace umsim::sim
