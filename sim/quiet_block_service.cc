// A block service of a few faulted pages under prefetch and thrashing policies
// when neither has anything to say beyond its common answer: the block has no
// thrashing state (ThrashingPolicy::quiet_block), no pin or remote mapping in
// force, the pages are unadvised and in host memory or nowhere, and the
// prefetch policy answers with ranges (PrefetchPolicy::prefetch_quiet). A
// replay over a large footprint under the NVIDIA driver's policies faults so
// at almost every access: service_block would build, copy and clear a dozen
// 512-page masks (the notice, the request, its answer, the placements) for
// one faulted page (or a few) and the prefetcher's big page. Here the
// policies read the block's own masks in place, the thrashing policy hears of
// the migrations without their pages (on_quiet_migration), and the pages move
// as service_block moves them from the host (move_host_block), with the same
// result. service_block tries this first and goes on where it declines.
// Four services in five move one mask word (the faulted page's big page):
// served in service_quiet_pages with the word's masks as values; the others
// in service_quiet_words, out of line, with arrays of eight words. GCC's
// inliner stops at its growth limits in functions this size: the small
// helpers the move and the eviction call are [[gnu::always_inline]].
#include <algorithm>
#include <bit>

#include "sim/cache_hint.h"
#include "sim/engine.h"
#include "sim/host_words_move.h"
#include "sim/page_mask_iteration.h"
#include "sim/page_runs.h"

namespace umsim::sim {

bool Engine::quiet_pages_apply() const {
  // Where the short path does not apply because of the policies; the same
  // vendor semantics and no migration policy of its own, no pages proposed
  // beyond the block; copy runs counted together (its run count is of both).
  return !short_path_ && !profile_.fault_copy_runs_by_cause && (prefetch_ || thrashing_) && !decide_callbacks_ && !vendor_.single_memory_pool &&
         vendor_.gpu_fault_window_pages <= 1 && prefetch_beyond_budget_ == 0;
}

inline Nanos& Engine::begin_quiet_service(BlockState& bs, PageState* block_pages, const std::uint32_t* pages,
                                          std::uint32_t n, std::uint32_t migrations, Processor requester,
                                          Nanos now) {
  if (thrashing_) pinning_.active = false;  // as thrashing_hint leaves it
  Nanos& t = kernel_.now;
  t = now;
  for (std::uint32_t k = 0; k < n; ++k)
    block_pages[pages[k]].flags &= static_cast<std::uint8_t>(~(kInFaultBuffer | kFaultWrite | kPinned));
  kernel_counters_.gpu_fault_pages += n;
  bs.fault_migrations = migrations;
  bs.last_destination = requester.code;
  return t;
}

template <typename FaultedMask, typename PolicyMask>
inline void Engine::tell_quiet_migrations(AllocSlot slot, std::uint64_t block, const PageState* block_pages,
                                          ProcessorMask copies_of_faulted, Processor requester, bool any_policy,
                                          std::uint32_t first_policy_page, Nanos& t, const FaultedMask& faulted_mask,
                                          const PolicyMask& policy_mask) {
  const Processor from = copies_of_faulted ? Processor::cpu() : Processor::none();  // the first copy found
  // Field by field: from an aggregate initializer GCC cleared the padding
  // with `rep stosb` (18 bytes: slow to start, 19 instructions to callgrind).
  BlockMigration m;
  m.alloc = slot;
  m.block = block;
  m.from = from;
  m.to = requester;
  m.preferred = Processor::none();
  m.now = t;
  const bool accepted = thrashing_->on_quiet_migration(m);
  if (!accepted) notify_thrashing(slot, block, faulted_mask(), from, requester, MigrationCause::kFault, requester, t);
  if (any_policy && !(accepted && quiet_repeats_ignored_)) {
    const std::int8_t preferred = block_pages[first_policy_page].preferred;
    m.cause = MigrationCause::kPrefetchPolicy;
    m.preferred = preferred >= 0 ? Processor{preferred} : Processor::none();
    m.now = t;
    if (!thrashing_->on_quiet_migration(m))
      notify_thrashing(slot, block, policy_mask(), from, requester, MigrationCause::kPrefetchPolicy, requester, t);
  }
}

bool Engine::service_quiet_pages(AllocSlot slot, std::uint64_t block, const std::uint32_t* pages, std::uint32_t n) {
  // First, with the fewest values live across the call.
  if (thrashing_ && !thrashing_->quiet_block(slot, block)) return false;
  Allocation& a = allocs_[slot];
  // Prefetched pages advised ReadMostly would duplicate instead of migrating.
  if (a.read_mostly_advised && vendor_.read_mostly_duplicates) return false;
  const std::uint64_t base = block * kPagesPerBlock;
  PageState* const block_pages = a.pages.data() + base;
  // Unadvised and nowhere but in host memory: the driver's default migrates each to the requester.
  ProcessorMask copies_of_faulted = 0;
  std::uint32_t faulted_host_pages = 0;
  for (std::uint32_t k = 0; k < n; ++k) {
    const PageState& st = block_pages[pages[k]];
    if (st.advised() || (st.copies & ~kCpuBit)) return false;
    copies_of_faulted |= st.copies;
    faulted_host_pages += st.copies == kCpuBit;
  }
  BlockState& bs = a.blocks[block];
  const Processor requester = Processor::gpu(kernel_.gpu);
  // service_block's clock: a throttle's end, then the block's and the pages' costs.
  Nanos now = std::max(kernel_.now, bs.throttle_until) + short_costs_.block[copies_of_faulted != 0] +
              profile_.fault_page_ns * n;
  if (bs.pin_until > now || bs.map_remote_until > now) return false;  // decide() has a say
  const std::uint32_t migrations = bs.last_destination == requester.code ? bs.fault_migrations + n : n;
  const auto g = static_cast<std::size_t>(kernel_.gpu);
  const PageMask& resident = a.gpu_resident[g][block];
  const PageMask& populated = a.populated[block];
  const std::uint32_t in_block = a.pages_in_block(block);
  PageRanges ranges;
  if (prefetch_ && !prefetch_->prefetch_quiet(QuietFaultRequest{slot, block, in_block, requester, pages, n, resident,
                                                                populated, migrations, now},
                                              ranges))
    return false;
  // The words the service touches: the faulted pages' and the ranges'.
  std::uint32_t first_word = pages[0] / 64, end_word = pages[n - 1] / 64 + 1;
  for (std::uint32_t r = 0; r < ranges.count; ++r) {
    PageRange& range = ranges.range[r];
    range.end = std::min(range.end, in_block);
    if (range.first >= range.end) continue;
    // The range's records are written after the eviction that makes room for
    // them: asked of the cache now, its first and last line (a big page's
    // two), they arrive meanwhile.
    prefetch_for_read(block_pages + range.first);
    prefetch_for_read(block_pages + range.end - 1);
    first_word = std::min(first_word, range.first / 64);
    end_word = std::max(end_word, (range.end + 63) / 64);
  }
  // Most services are of one word: a faulted page and the prefetcher's big
  // page around it. With one GPU (the pages' copies are then the populated
  // mask's words) and regions of a word or more (one word, one chunk), they
  // are served below with the word's masks as values in registers; the others
  // out of line, whose arrays of eight words, sharing this frame, had this
  // path's values spilled.
  if (end_word != first_word + 1 || gpus_.size() != 1 || pages_per_chunk_ < 64)
    return service_quiet_words(QuietService{slot, block, pages, n, ranges, first_word, end_word, now, migrations,
                                            copies_of_faulted, faulted_host_pages});
  const std::uint32_t w = first_word;
  std::uint64_t faulted = 0, proposed = 0;
  for (std::uint32_t k = 0; k < n; ++k) faulted |= std::uint64_t{1} << (pages[k] % 64);
  for (std::uint32_t r = 0; r < ranges.count; ++r)  // pages [first, end) of word w
    proposed |= pages_below_in_word(ranges.range[r].end, w) & ~pages_below_in_word(ranges.range[r].first, w);
  // The policy's pages the engine accepts (add_policy_prefetch: not faulted,
  // not resident on the destination), and with the faulted pages the pages to
  // migrate, all in host memory or nowhere (host_only_pages). With one GPU,
  // no moving page is on it (the faulted pages were checked, the policy's are
  // not resident): its copy, if any, is the CPU's, and a page has a copy
  // exactly where it is populated (check_invariants), no record read.
  const std::uint64_t policy = proposed & ~(mask_word(resident, w) | faulted);
  const std::uint64_t moving = policy | faulted;
  const std::uint64_t copy = moving & mask_word(populated, w);
  const std::uint32_t host_pages = count_word(copy);

  // Nothing above changed the engine or the policies; the service from here on.
  Nanos& t = begin_quiet_service(bs, block_pages, pages, n, migrations, requester, now);
  if (const Nanos ns = profile_.fault_migrated_page_ns; ns != 0) t += static_cast<Nanos>(host_pages) * ns;
  if (profile_.fault_run_ns) t += count_word(copy & ~(copy << 1)) * *profile_.fault_run_ns;  // runs' first pages
  t = move_host_words(slot, a, block, OneMaskWord{moving}, OneMaskWord{copy}, w, w + 1, 1u << w, requester, t);
  kernel_counters_.bytes_prefetched += Bytes{host_pages - faulted_host_pages} * kPageSize;
  if (!thrashing_) return true;
  const std::uint32_t first_policy_page = w * 64 + static_cast<std::uint32_t>(std::countr_zero(policy));
  tell_quiet_migrations(slot, block, block_pages, copies_of_faulted, requester, policy != 0, first_policy_page, t,
                        [&] { return mask_of_word(w, faulted); }, [&] { return mask_of_word(w, policy); });
  return true;
}

bool Engine::service_quiet_words(const QuietService& s) {
  const AllocSlot slot = s.slot;
  const std::uint64_t block = s.block;
  const std::uint32_t* const pages = s.pages;
  const std::uint32_t n = s.n, first_word = s.first_word, end_word = s.end_word;
  const PageRanges& ranges = s.ranges;
  Allocation& a = allocs_[slot];
  PageState* const block_pages = a.pages.data() + block * kPagesPerBlock;
  const Processor requester = Processor::gpu(kernel_.gpu);
  const auto g = static_cast<std::size_t>(kernel_.gpu);
  const PageMask& resident = a.gpu_resident[g][block];
  const PageMask& populated = a.populated[block];
  // The faulted pages and the policy's ranges as mask words, and the words
  // they touch (bit w: word w): two faulted pages at random in a block touch
  // two words of the four or so between them, and only those are taken.
  std::uint64_t faulted[kPagesPerBlock / 64], proposed[kPagesPerBlock / 64];
  for (std::uint32_t w = 0; w < kPagesPerBlock / 64; ++w) faulted[w] = proposed[w] = 0;  // stores in line, not memset
  std::uint32_t touched = 0;
  for (std::uint32_t k = 0; k < n; ++k) {
    faulted[pages[k] / 64] |= std::uint64_t{1} << (pages[k] % 64);
    touched |= 1u << (pages[k] / 64);
  }
  for (std::uint32_t r = 0; r < ranges.count; ++r) {  // pages [first, end) of each word they reach
    const PageRange range = ranges.range[r];
    for (std::uint32_t w = range.first / 64; range.first < range.end && w * 64 < range.end; ++w) {
      proposed[w] |= pages_below_in_word(range.end, w) & ~pages_below_in_word(range.first, w);
      touched |= 1u << w;
    }
  }
  // As service_quiet_pages' word: the policy's pages the engine accepts and
  // with the faulted pages the pages to migrate, of the touched words only;
  // moves: bit w where word w has pages to migrate. Only the move's walk for
  // regions under 64 pages reads the words between them (set empty there);
  // every other reader takes the words of `moves`.
  std::uint64_t migrate[kPagesPerBlock / 64], with_copy[kPagesPerBlock / 64];
  if (pages_per_chunk_ < 64)
    for (std::uint32_t w = first_word; w < end_word; ++w) migrate[w] = 0;
  std::uint32_t moves = 0;
  std::uint64_t any_policy = 0;
  std::uint32_t first_policy_page = 0;  // where any_policy
  ProcessorMask elsewhere = 0;  // every copy of the pages
  // With one GPU the pages' copies are the populated mask's words (as for one word).
  const bool one_gpu = gpus_.size() == 1;
  std::uint32_t host_pages = 0;
  for (; touched != 0; touched &= touched - 1) {  // lowest first
    const auto w = static_cast<std::uint32_t>(std::countr_zero(touched));
    const std::uint64_t policy = proposed[w] & ~(mask_word(resident, w) | faulted[w]);
    const std::uint64_t moving = policy | faulted[w];
    std::uint64_t copy = 0;
    if (one_gpu) {
      copy = moving & mask_word(populated, w);
    } else {
      for (std::uint64_t y = moving; y != 0; y &= y - 1) {
        const auto b = static_cast<std::uint32_t>(std::countr_zero(y));
        const ProcessorMask copies = block_pages[w * 64 + b].copies;
        elsewhere |= copies;
        copy |= static_cast<std::uint64_t>(copies & kCpuBit) << b;
      }
    }
    if (copy) host_pages += count_word(copy);
    if (policy && !any_policy) first_policy_page = w * 64 + static_cast<std::uint32_t>(std::countr_zero(policy));
    any_policy |= policy;
    migrate[w] = moving;
    with_copy[w] = copy;
    moves |= static_cast<std::uint32_t>(moving != 0) << w;
  }
  if (elsewhere & ~kCpuBit) return false;  // a page held on a GPU: move_pages' general copies

  // Nothing above changed the engine or the policies; the service from here on.
  Nanos& t = begin_quiet_service(a.blocks[block], block_pages, pages, n, s.migrations, requester, s.now);
  if (const Nanos ns = profile_.fault_migrated_page_ns; ns != 0) t += static_cast<Nanos>(host_pages) * ns;
  if (profile_.fault_run_ns) t += count_page_runs_of_set(with_copy, moves) * *profile_.fault_run_ns;
  if (gpus_.size() > 1) note_served_pages(slot, block, mask_of_word_set(migrate, moves));
  t = move_host_words(slot, a, block, migrate, with_copy, first_word, end_word, moves, requester, t);
  kernel_counters_.bytes_prefetched += Bytes{host_pages - s.faulted_host_pages} * kPageSize;
  if (!thrashing_) return true;
  tell_quiet_migrations(
      slot, block, block_pages, s.copies_of_faulted, requester, any_policy != 0, first_policy_page, t,
      [&] { return mask_of_words(faulted, first_word, end_word); },
      [&] { return mask_of_word_set(migrate, moves) & ~mask_of_words(faulted, first_word, end_word); });
  return true;
}

}  // namespace umsim::sim
