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
// runs; docs/validation.md, "Pageable uploads from a cached buffer").
#pragma once

#include <algorithm>

#include "sim/types.h"

namespace umsim::sim {

class PageableBufferCache {
 public:
  // `capacity`: bytes of host memory traffic the cache keeps (0: nothing is
  // ever cached, every byte moves at the memory's speed).
  explicit PageableBufferCache(Bytes capacity = 0) : capacity_(capacity) {}

  // Of a copy of the buffer's first `bytes`, how many are cached.
  Bytes cached_part(Bytes bytes) const { return std::min(bytes, cached_head_); }

  // A copy read or wrote the buffer's first `bytes`. A range up to the
  // capacity stays cached, beside what was cached before (both fit); a longer
  // one streams through the cache and leaves only its tail, so a copy from
  // the start finds nothing.
  void copied(Bytes bytes) { cached_head_ = bytes <= capacity_ ? std::max(cached_head_, bytes) : 0; }

  // `bytes` of other host memory traffic (the CPU touching other memory): the
  // buffer's lines are older, so they go first once the cache is full.
  void other_traffic(Bytes bytes) {
    cached_head_ = std::min(cached_head_, capacity_ - std::min(capacity_, bytes));
  }

 private:
  Bytes capacity_;
  Bytes cached_head_ = 0;  // the replay starts with the buffer out of the cache
};

}  // namespace umsim::sim
