// Writing the page records of one mask word's pages where every page takes the
// same copies and mappings: a move's pages landing on a GPU
// (move_host_block), an evicted chunk's pages written back to the CPU
// (write_back_chunk). On a replay that evicts at every fault these stores are
// most of a page's work: each record is addressed from the word's first
// record, and its two masks are written in one store.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "sim/page_state.h"

namespace umsim::sim {

// The record's copies and mapped masks, in one 32-bit store.
[[gnu::always_inline]] inline void set_copies_and_mapped(PageState& st, ProcessorMask copies, ProcessorMask mapped) {
  static_assert(offsetof(PageState, copies) == 0 && offsetof(PageState, mapped) == 2 &&
                std::endian::native == std::endian::little);
  const std::uint32_t both = copies | std::uint32_t{mapped} << 16;
  std::memcpy(static_cast<void*>(&st), &both, sizeof(both));  // a trivially copyable record
}

// Calls fn(record) for the record of every page set in x, lowest first;
// `word_pages` is the record of the word's page 0.
template <typename Fn>
[[gnu::always_inline]] inline void for_each_record_in_word(PageState* word_pages, std::uint64_t x, Fn&& fn) {
  for (; x != 0; x &= x - 1) fn(word_pages[static_cast<std::size_t>(std::countr_zero(x))]);
}

}  // namespace umsim::sim
