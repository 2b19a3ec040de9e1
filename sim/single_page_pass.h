// Whether a GPU access is the replay loops' single-page case: one contiguous
// pass of 1 to kPageSize bytes within one page, within an allocation of `size`
// bytes. length - 1 wraps to the top for length 0, which it refuses; an end
// within the offset's page never wraps past 2^64 (offset + length reaches 2^64
// at most). The xor form, ((offset ^ last) | (length - 1)) < kPageSize, is one
// instruction shorter in the hit loop but five longer in the general one,
// where the compiler evaluates it without branches (callgrind).
#pragma once

#include "traces/event.h"

namespace umsim::sim {

[[gnu::always_inline]] inline bool is_single_page_pass(const trace::Event& e, trace::Bytes size) {
  return ((e.count ^ 1u) | e.stride) == 0 && e.length - 1 < trace::kPageSize - e.offset % trace::kPageSize &&
         e.offset + e.length - 1 < size;
}

}  // namespace umsim::sim
