// Writing the page records of a run of pages where every page takes the same
// copies and mappings: a move's pages landing on a GPU (move_host_words), an
// evicted chunk's pages written back to the CPU (write_back_chunk). On a
// replay that evicts at every fault these stores are most of a page's work:
// the runs come from the mask words (for_each_run_in_word, PageRunSum), and
// the records of a run are written four at a time.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "sim/page_state.h"

namespace umsim::sim {

// The records of a run of consecutive pages all given the same copies and
// mapped masks, with the flags `cleared` removed: two records an operation, each
// (record & keep) | set as one 64-bit value, without a bit scan per page (a
// replay over a large footprint moves and evicts runs of 16 pages and more:
// the prefetcher's 64 KiB big pages).
[[gnu::always_inline]] inline void set_run_records(PageState* first, std::uint32_t n, ProcessorMask copies,
                                                   ProcessorMask mapped, std::uint8_t cleared) {
  static_assert(sizeof(PageState) == 8 && offsetof(PageState, copies) == 0 && offsetof(PageState, mapped) == 2 &&
                offsetof(PageState, flags) == 7 && std::endian::native == std::endian::little);
  using RecordPair = std::uint64_t __attribute__((vector_size(16)));
  const std::uint64_t set = copies | std::uint64_t{mapped} << 16;
  const std::uint64_t keep = ~std::uint64_t{0xffffffff} & ~(std::uint64_t{cleared} << 56);
  const RecordPair set2 = {set, set}, keep2 = {keep, keep};
  auto* at = reinterpret_cast<unsigned char*>(first);  // the records are trivially copyable
  if (cleared == 0) {
    // Nothing cleared (a move's pages landing): each record's copies and
    // mapped, its first four bytes, stored whole and the rest left alone,
    // without loading the record. A move's records are seldom cached: the
    // stores need not wait for them, where a record's update would.
    const auto head = static_cast<std::uint32_t>(set);
    unsigned char* const quads_end = at + (n & ~3u) * sizeof(PageState);
    for (; at != quads_end; at += 4 * sizeof(PageState)) {
      std::memcpy(at, &head, sizeof(head));
      std::memcpy(at + sizeof(PageState), &head, sizeof(head));
      std::memcpy(at + 2 * sizeof(PageState), &head, sizeof(head));
      std::memcpy(at + 3 * sizeof(PageState), &head, sizeof(head));
    }
    for (unsigned char* const end = at + (n & 3u) * sizeof(PageState); at != end; at += sizeof(PageState))
      std::memcpy(at, &head, sizeof(head));
    return;
  }
  auto set_pair = [&](unsigned char* pair) __attribute__((always_inline)) {
    RecordPair r;
    std::memcpy(&r, pair, sizeof(r));
    r = (r & keep2) | set2;
    std::memcpy(pair, &r, sizeof(r));
  };
  // Four records a step (runs are mostly of 16 pages: the loop's own count
  // and branch once per four), then a pair and a last record.
  unsigned char* const quads_end = at + (n & ~3u) * sizeof(PageState);
  for (; at != quads_end; at += 2 * sizeof(RecordPair)) {
    set_pair(at);
    set_pair(at + sizeof(RecordPair));
  }
  if (n & 2) {
    set_pair(at);
    at += sizeof(RecordPair);
  }
  if (n & 1) {
    std::uint64_t r;
    std::memcpy(&r, at, sizeof(r));
    r = (r & keep) | set;
    std::memcpy(at, &r, sizeof(r));
  }
}

}  // namespace umsim::sim
