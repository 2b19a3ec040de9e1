// The NVIDIA driver's density prefetcher (uvm_perf_prefetch.c), for one VA block
// and one fault batch:
//   1. First touch at the preferred location: the block is resident nowhere and the
//      faults go to the block's preferred location -> populate the whole block.
//   2. Preferred location set elsewhere -> no prefetch.
//   3. Otherwise build a bitmap over the block's pages: resident on the destination
//      or faulted now. Every 64 KiB big page holding a faulted page and no thrashing
//      page is filled (the driver assumes big pages). Pages past the last whole big
//      page form one more region treated the same way.
//   4. The bitmap is an implicit binary tree: leaves are pages, a node at level k
//      spans 2^k pages (aligned), clipped to the block; levels =
//      log2(roundup_pow2(pages)) + 1 (10 for 512 pages). For every faulted page
//      (not thrashing) walk leaf -> root; a node qualifies when
//      resident_count * 100 > span * threshold; the highest qualifying node wins.
//      The union of winners is the prefetch region.
//   5. Remove faulted pages, excluded pages (thrashing, pinned, CPU-mapped when the
//      destination is the CPU) and pages already on the destination.
//   6. Only if fault_migrations_to_destination >= min_faults.
#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <string>

#include "policies/internal/page_words.h"
#include "policies/policy_kinds.h"

namespace umsim::policies {
namespace {

class TreePrefetcher final : public sim::PrefetchPolicy {
 public:
  explicit TreePrefetcher(const Params& p)
      : threshold_(static_cast<std::uint32_t>(p.get_int("threshold"))),
        min_faults_(static_cast<std::uint32_t>(p.get_int("min_faults"))),
        big_page_pages_(static_cast<std::uint32_t>(p.get_bytes("big_page") / sim::kPageSize)) {
    if (p.get_int("threshold") < 1 || p.get_int("threshold") > 100)
      throw PolicyError("prefetch policy 'tree': threshold must be 1..100 (percent), got " +
                        std::to_string(p.get_int("threshold")));
    if (p.get_int("min_faults") < 1 || p.get_int("min_faults") > 20)
      throw PolicyError("prefetch policy 'tree': min_faults must be 1..20 (as the driver), got " +
                        std::to_string(p.get_int("min_faults")));
    const auto big = p.get_bytes("big_page");
    if (big < sim::kPageSize || big > sim::kBlockSize || !std::has_single_bit(big))
      throw PolicyError("prefetch policy 'tree': big_page must be a power of two from 4KiB to 2MiB");
    sim::PageRanges first_big_page;
    add_highest_over_grown(0, sim::kPagesPerBlock, 0, big_page_pages_, first_big_page);
    empty_block_span_ = first_big_page.count != 0 ? first_big_page.range[0].end : 0;
    if (big_page_pages_ >= kPagesPerGrownBit)
      for (std::uint32_t k = 0; k <= 64 && k * big_page_pages_ <= sim::kPagesPerBlock; ++k)
        widest_level_by_grown_[k] = static_cast<std::uint8_t>(widest_level(k * big_page_pages_, sim::kPagesPerBlock));
  }

  // A few faulted pages, nothing excluded or thrashing, no preferred
  // location: steps 3 and 4 as prefetch() takes them, each seed's region a
  // range (step 5 is the engine's filter).
  bool prefetch_quiet(const sim::QuietFaultRequest& r, sim::PageRanges& out) const override {
    out.count = 0;
    const std::uint32_t leaves = r.pages_in_block;
    if (leaves == 0 || leaves > sim::kPagesPerBlock) return true;
    if (r.fault_migrations_to_destination < min_faults_) return true;
    // Most faults of a replay over a large footprint: one page of a whole
    // block of which nothing is on the destination (its chunk is taken for
    // this fault), where every page wins the same node. Answered here with
    // the mask read in place, the rest out of line: no stack frame.
    if (r.faulted_count == 1 && leaves == sim::kPagesPerBlock && r.faulted[0] < leaves &&
        no_page(r.resident_on_destination)) {
      if (empty_block_span_ != 0) {
        const std::uint32_t f = r.faulted[0] & ~(empty_block_span_ - 1);
        out.add(f, f + empty_block_span_);
      }
      return true;
    }
    return prefetch_seeds(r, out);
  }

  // prefetch_quiet's other requests: several seeds, or one in a block partly
  // on the destination or short.
  [[gnu::noinline]] bool prefetch_seeds(const sim::QuietFaultRequest& r, sim::PageRanges& out) const {
    const std::uint32_t leaves = r.pages_in_block;
    if (r.faulted_count == 1) return prefetch_one(r, out);
    if (big_page_pages_ >= kPagesPerGrownBit && leaves == sim::kPagesPerBlock && no_page(r.resident_on_destination))
      return prefetch_over_big_pages(r, out);
    PageWords tree = PageWords::of(r.resident_on_destination);
    tree.truncate(leaves);
    if (tree.none()) return prefetch_over_grown(r, out);
    PageWords faulted;
    std::uint32_t first_word = PageWords::kWords, end_word = 0;  // the words holding a faulted page
    for (std::uint32_t k = 0; k < r.faulted_count; ++k) {
      const std::uint32_t page = r.faulted[k];
      if (page >= leaves) continue;  // past a short block's end
      faulted.set(page);
      first_word = std::min(first_word, page / 64);
      end_word = page / 64 + 1;  // ascending
    }
    if (end_word == 0) return true;
    tree |= faulted;
    grow_big_pages(tree, faulted, NoThrashing{}, leaves, first_word, end_word);
    walk_tree(tree, faulted, NoThrashing{}, leaves, first_word, end_word,
              [&](std::uint32_t first, std::uint32_t end) { out.add(first, end); });
    return true;
  }

  // prefetch_quiet's one seed in a block partly on the destination or
  // short, without the seeds' masks: its big page (or the tail past the
  // last whole one) filled, then the highest node above it that qualifies.
  bool prefetch_one(const sim::QuietFaultRequest& r, sim::PageRanges& out) const {
    const std::uint32_t leaves = r.pages_in_block, page = r.faulted[0];
    if (page >= leaves) return true;
    const std::uint32_t whole_end = leaves / big_page_pages_ * big_page_pages_;
    const std::uint32_t grown_first = page < whole_end ? page & ~(big_page_pages_ - 1) : whole_end;
    const std::uint32_t grown_end = page < whole_end ? grown_first + big_page_pages_ : leaves;
    PageWords tree = PageWords::of(r.resident_on_destination);
    tree.truncate(leaves);
    if (tree.none()) {  // a short block's (prefetch_quiet answers a whole one)
      add_highest_over_grown(page, leaves, grown_first, grown_end, out);
      return true;
    }
    tree.fill(grown_first, grown_end);
    std::uint32_t words_before[PageWords::kWords + 1];
    add_highest(page, leaves, count_words(tree, words_before), TreeCount{tree, words_before}, out);
    return true;
  }

  // prefetch_quiet's several seeds where nothing of the block is on the
  // destination (mostly so: its chunk is taken for these faults), without
  // masks: the tree is then the seeds' grown big pages (and the tail past the
  // last whole one) alone, a node's count its overlap with them. Every seed of
  // a grown range wins the same node: at the big page's level or above where
  // any node qualifies (below it a grown range's nodes qualify as the big page
  // does), so one walk per range, from its first page.
  bool prefetch_over_grown(const sim::QuietFaultRequest& r, sim::PageRanges& out) const {
    const std::uint32_t leaves = r.pages_in_block;
    const std::uint32_t whole_end = leaves / big_page_pages_ * big_page_pages_;
    sim::PageRange grown[sim::kMaxQuietFaults];
    std::uint32_t ranges = 0, resident = 0;
    for (std::uint32_t k = 0; k < r.faulted_count; ++k) {
      const std::uint32_t page = r.faulted[k];
      if (page >= leaves) continue;  // past a short block's end
      const std::uint32_t first = page < whole_end ? page & ~(big_page_pages_ - 1) : whole_end;
      if (ranges != 0 && grown[ranges - 1].first == first) continue;  // ascending: the same big page
      const std::uint32_t end = page < whole_end ? first + big_page_pages_ : leaves;
      grown[ranges++] = {first, end};
      resident += end - first;
    }
    auto node_count = [&](std::uint32_t f, std::uint32_t span) {
      std::uint32_t n = 0;
      for (std::uint32_t i = 0; i < ranges; ++i) {
        const std::uint32_t lo = std::max(f, grown[i].first), hi = std::min(f + span, grown[i].end);
        n += lo < hi ? hi - lo : 0;
      }
      return n;
    };
    for (std::uint32_t i = 0; i < ranges; ++i) {
      const std::uint32_t added = out.count;
      add_highest(grown[i].first, leaves, resident, node_count, out);
      if (out.count != added && out.range[added].end == leaves) break;  // as walk_tree: a region reached the block's end
    }
    return true;
  }

  // prefetch_over_grown for a whole block and big pages of
  // kPagesPerGrownBit pages or more (a replay over a large footprint: a few
  // faults in a block whose chunk is taken for them), without a loop over the
  // grown ranges at every level: the grown big pages are the bits of one
  // word. A node wider than a big page holds a grown one whole or not at all,
  // and counts its bits' pages; a node no wider lies in the seed's own grown
  // big page and counts its whole span, so the first such level walked
  // qualifies unless the threshold is 100%. The same nodes, in the same
  // order, as add_highest with those counts; the widest level from a table
  // by the number of grown big pages (no division per seed).
  bool prefetch_over_big_pages(const sim::QuietFaultRequest& r, sim::PageRanges& out) const {
    const std::uint32_t big_level = static_cast<std::uint32_t>(std::countr_zero(big_page_pages_));
    std::uint64_t grown = 0;  // bit u: big page u grown
    for (std::uint32_t k = 0; k < r.faulted_count; ++k)
      if (r.faulted[k] < sim::kPagesPerBlock) grown |= std::uint64_t{1} << (r.faulted[k] >> big_level);
    auto grown_count = [&](std::uint64_t bits) {
      std::uint32_t n = 0;
      for (std::uint64_t x = bits & grown; x != 0; x &= x - 1) ++n;  // a few bits: no popcount
      return n;
    };
    const std::uint32_t top = widest_level_by_grown_[grown_count(~std::uint64_t{0})];
    for (std::uint64_t seeds = grown; seeds != 0; seeds &= seeds - 1) {
      const auto u = static_cast<std::uint32_t>(std::countr_zero(seeds));
      const std::uint32_t page = u << big_level, added = out.count;
      for (std::uint32_t level = top; level-- > 0;) {
        const std::uint32_t span = 1u << level;
        if (level <= big_level) {  // in the seed's big page: its span counted, over the threshold below 100%
          if (threshold_ < 100) out.add(page, page + span);
          break;
        }
        const std::uint32_t bits = span >> big_level;  // 2 to 64
        const std::uint64_t window = (bits == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << bits) - 1) << (u & ~(bits - 1));
        if (grown_count(window) * big_page_pages_ * 100 > span * threshold_) {
          const std::uint32_t f = page & ~(span - 1);
          out.add(f, f + span);
          break;
        }
      }
      if (out.count != added && out.range[added].end == sim::kPagesPerBlock) break;  // as walk_tree: a region reached the block's end
    }
    return true;
  }

  // Adds the highest node above `page` that qualifies (if any) where nothing
  // of the block is on the destination but the grown pages [grown_first,
  // grown_end), around `page`: a node's count is its overlap with them.
  void add_highest_over_grown(std::uint32_t page, std::uint32_t leaves, std::uint32_t grown_first,
                              std::uint32_t grown_end, sim::PageRanges& out) const {
    add_highest(page, leaves, grown_end - grown_first, [&](std::uint32_t f, std::uint32_t span) {
      return std::min(f + span, grown_end) - std::max(f, grown_first);
    }, out);
  }

  // Adds the highest node above `page` that qualifies, if any, in a tree of
  // `resident` pages whose nodes node_count(first, span) counts.
  template <typename NodeCount>
  void add_highest(std::uint32_t page, std::uint32_t leaves, std::uint32_t resident, const NodeCount& node_count,
                   sim::PageRanges& out) const {
    std::uint32_t first = 0, end = 0;
    for (std::uint32_t level = widest_level(resident, leaves); level-- > 0;)
      if (qualifies(page, level, leaves, node_count, first, end)) {
        out.add(first, end);
        return;
      }
  }

  void prefetch(const sim::PrefetchRequest& r, sim::PageMask& out) override {
    const std::uint32_t leaves = r.pages_in_block;
    if (leaves == 0 || leaves > sim::kPagesPerBlock) return;
    if (r.fault_migrations_to_destination < min_faults_) return;
    // One pass over the request's words builds every mask the steps use (a
    // fault-heavy replay asks once per fault, mostly with a single page),
    // reading the request's masks in place.
    // Pages that block big-page growth and seeding: the thrashing policy's pages and,
    // unless the destination is the CPU (where `excluded` also lists CPU-mapped pages),
    // every excluded page (pinned pages count as thrashing in the driver).
    const std::uint64_t excluded_block = r.destination.is_cpu() ? 0 : ~std::uint64_t{0};
    PageWords faulted, thrashing, tree;
    // The words holding a faulted page, [first_word, end_word): only they seed
    // the walk and grow big pages (a fault-heavy replay's request has one or a
    // few faulted pages in a 512-page block).
    std::uint32_t first_word = PageWords::kWords, end_word = 0;
    for (std::uint32_t i = 0; i < PageWords::kWords; ++i) {
      faulted.w[i] = sim::mask_word(r.faulted, i);
      tree.w[i] = sim::mask_word(r.resident_on_destination, i) | faulted.w[i];
    }
    // Pages past a short last block's end are dropped (a whole block's keep all).
    faulted.truncate(leaves);
    tree.truncate(leaves);
    for (std::uint32_t i = 0; i < PageWords::kWords; ++i)
      if (faulted.w[i] != 0) {
        first_word = std::min(first_word, i);
        end_word = i + 1;
      }
    if (end_word == 0) return;
    // Growth and seeding read the thrashing words only around the faulted
    // ones: [first_word, end_word) widened to whole big pages.
    const std::uint32_t words_per_big_page = std::max<std::uint32_t>(1, big_page_pages_ / 64);
    const std::uint32_t thrashing_end = std::min(PageWords::kWords, (end_word + words_per_big_page - 1) /
                                                                        words_per_big_page * words_per_big_page);
    for (std::uint32_t i = first_word / words_per_big_page * words_per_big_page; i < thrashing_end; ++i)
      thrashing.w[i] = sim::mask_word(r.thrashing, i) | (sim::mask_word(r.excluded, i) & excluded_block);

    PageWords region;
    std::uint32_t region_first = 0, region_end = 0;  // the region's pages lie in [region_first, region_end)
    if (r.destination_is_preferred && r.resident_anywhere.none()) {
      region.fill(0, leaves);
      region_end = leaves;
    } else if (!r.preferred_location_elsewhere) {
      grow_big_pages(tree, faulted, ThrashingWords{thrashing}, leaves, first_word, end_word);
      region_first = leaves;
      walk_tree(tree, faulted, ThrashingWords{thrashing}, leaves, first_word, end_word, [&](std::uint32_t first, std::uint32_t end) {
        region.fill(first, end);
        region_first = std::min(region_first, first);
        region_end = std::max(region_end, end);
      });
    }
    // Step 5: faulted, excluded, thrashing and already resident pages never
    // move as prefetch (tested only in the words where the region has pages).
    for (std::uint32_t i = region_first / 64; i * 64 < region_end; ++i) {
      if (region.w[i] == 0) continue;
      const std::uint64_t drop = sim::mask_word(r.faulted, i) | sim::mask_word(r.excluded, i) |
                                 sim::mask_word(r.thrashing, i) | sim::mask_word(r.resident_on_destination, i);
      sim::set_mask_word(out, i, sim::mask_word(out, i) | (region.w[i] & ~drop));
    }
  }

 private:
  // The pages that block growth and seeding, read as words: prefetch()'s
  // thrashing and excluded pages, or none at all (prefetch_quiet's requests,
  // which then read no words).
  struct ThrashingWords {
    const PageWords& pages;
    std::uint64_t word(std::uint32_t i) const { return pages.w[i]; }
    bool any(std::uint32_t first, std::uint32_t end) const { return pages.any(first, end); }
  };
  struct NoThrashing {
    static constexpr std::uint64_t word(std::uint32_t) { return 0; }
    static constexpr bool any(std::uint32_t, std::uint32_t) { return false; }
  };

  // Step 4. The nodes of span >= big page above a page are shared by every page of its
  // aligned big page, so the upper part of the walk is done once per big page; the
  // lower levels only matter when no upper node qualifies.
  // The seeds are the faulted pages that do not thrash, in words [first_word, end_word);
  // each seed's winning node [first, end) goes to on_region(first, end).
  template <typename Thrashing, typename OnRegion>
  void walk_tree(const PageWords& tree, const PageWords& faulted, const Thrashing& thrashing, std::uint32_t leaves,
                 std::uint32_t first_word, std::uint32_t end_word, OnRegion&& on_region) const {
    const std::uint32_t levels = static_cast<std::uint32_t>(std::bit_width(std::bit_ceil(leaves)));
    std::uint32_t words_before[PageWords::kWords + 1];
    const std::uint32_t top = widest_level(count_words(tree, words_before), leaves);
    const TreeCount count{tree, words_before};
    const std::uint32_t big_level = static_cast<std::uint32_t>(std::countr_zero(big_page_pages_));
    std::uint32_t last_big_page = ~0u;
    bool stop = false;  // set once a region reaches the block's end
    auto walk_from = [&](std::uint32_t page) {
      const std::uint32_t big_page = page / big_page_pages_;
      if (big_page == last_big_page) return;  // same upper walk, already filled
      std::uint32_t best_first = 0, best_end = 0;
      for (std::uint32_t level = top; level-- > std::min(big_level, levels);) {
        if (qualifies(page, level, leaves, count, best_first, best_end)) break;
      }
      if (best_end != 0) {
        last_big_page = big_page;
      } else {
        for (std::uint32_t level = std::min(big_level, levels); level-- > 0;)
          if (qualifies(page, level, leaves, count, best_first, best_end)) break;
      }
      if (best_end == 0) return;  // no node qualifies
      on_region(best_first, best_end);
      if (best_end == leaves) stop = true;
    };
    for (std::uint32_t i = first_word; i < end_word && !stop; ++i)  // the driver stops once a region reaches the block's end
      for (std::uint64_t x = faulted.w[i] & ~thrashing.word(i); x != 0 && !stop; x &= x - 1)
        walk_from(i * 64 + static_cast<std::uint32_t>(std::countr_zero(x)));
  }

  // Whether no page of a whole block's mask is set, read in place (a copy
  // into PageWords takes a stack frame). The OR of the words takes no branch.
  static bool no_page(const sim::PageMask& mask) {
    std::uint64_t any = 0;
#pragma GCC unroll 8
    for (std::uint32_t w = 0; w < PageWords::kWords; ++w) any |= sim::mask_word(mask, w);
    return any == 0;
  }

  // Counts of the tree's words before each word (words_before[0..kWords]),
  // once: a node of 64 pages and more is the difference of two of them
  // instead of a count of its words for every seed. Returns the tree's count.
  static std::uint32_t count_words(const PageWords& tree, std::uint32_t* words_before) {
    words_before[0] = 0;
    for (std::uint32_t i = 0; i < PageWords::kWords; ++i)  // most words of a sparse block are empty
      words_before[i + 1] = words_before[i] + (tree.w[i] != 0 ? popcount64(tree.w[i]) : 0);
    return words_before[PageWords::kWords];
  }

  // The level above the widest one that can qualify: no node holds more than
  // the tree's `resident` pages, so where no node is clipped (a power-of-two
  // block), levels too wide for them to pass the threshold are not walked.
  std::uint32_t widest_level(std::uint32_t resident, std::uint32_t leaves) const {
    const std::uint32_t levels = static_cast<std::uint32_t>(std::bit_width(std::bit_ceil(leaves)));
    if ((leaves & (leaves - 1)) != 0) return levels;  // not a power of two (std::has_single_bit calls libgcc here)
    // The widest level whose span 2^(top-1) has span * threshold < resident * 100,
    // i.e. span <= (resident * 100 - 1) / threshold: that quotient's bit width.
    return resident == 0 ? 0 : std::min<std::uint32_t>(levels, std::bit_width((resident * 100 - 1) / threshold_));
  }

  // A node's resident count in a tree with no page past the block's end: a
  // node the end clips counts as its whole span, of under 64 pages a slice
  // of one word, of more whole words (the difference of two words_before).
  struct TreeCount {
    const PageWords& tree;
    const std::uint32_t* words_before;
    std::uint32_t operator()(std::uint32_t f, std::uint32_t span) const {
      return span >= 64 ? words_before[(f + span) >> 6] - words_before[f >> 6]
                        : popcount64((tree.w[f >> 6] >> (f & 63)) & ((std::uint64_t{1} << span) - 1));
    }
  };

  // Whether the node at `level` above `page` qualifies, its resident pages
  // counted by node_count(first, span); if so it is stored in [first, end).
  template <typename NodeCount>
  bool qualifies(std::uint32_t page, std::uint32_t level, std::uint32_t leaves, const NodeCount& node_count,
                 std::uint32_t& first, std::uint32_t& end) const {
    const std::uint32_t span = 1u << level;
    const std::uint32_t f = page & ~(span - 1);
    const std::uint32_t e = std::min(f + span, leaves);
    if (node_count(f, span) * 100 <= (e - f) * threshold_) return false;
    first = f;
    end = e;
    return true;
  }

  // Step 3: fill each big page (and the tail past the last whole big page) that holds a
  // faulted page and no thrashing page.
  // Words without a faulted page, outside [first_word, end_word), grow nothing.
  template <typename Thrashing>
  void grow_big_pages(PageWords& tree, const PageWords& faulted, const Thrashing& thrashing, std::uint32_t leaves,
                      std::uint32_t first_word, std::uint32_t end_word) const {
    const std::uint32_t whole_end = leaves / big_page_pages_ * big_page_pages_;
    auto grow = [&](std::uint32_t first, std::uint32_t end) {
      if (first < end && faulted.any(first, end) && !thrashing.any(first, end)) tree.fill(first, end);
    };
    if (big_page_pages_ <= 64) {
      // Big pages as lanes of each 64-bit word: no per-big-page range calls.
      const std::uint64_t lane = big_page_pages_ == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << big_page_pages_) - 1;
      for (std::uint32_t w = first_word; w < end_word && w * 64 < whole_end; ++w) {
        const std::uint64_t f = faulted.w[w];
        if (f == 0) continue;
        const std::uint32_t lanes_end = std::min<std::uint32_t>(64, whole_end - w * 64);
        // Only the lanes holding a faulted page (lanes_end is a whole number of lanes).
        for (std::uint64_t x = lanes_end == 64 ? f : f & ((std::uint64_t{1} << lanes_end) - 1); x != 0;) {
          const std::uint64_t m = lane << (static_cast<std::uint32_t>(std::countr_zero(x)) & ~(big_page_pages_ - 1));
          if (!(thrashing.word(w) & m)) tree.w[w] |= m;
          x &= ~m;
        }
      }
    } else {
      for (std::uint32_t first = 0; first < whole_end; first += big_page_pages_) grow(first, first + big_page_pages_);
    }
    grow(whole_end, leaves);
  }

  // The smallest big page prefetch_over_big_pages takes: a block's big pages
  // as the bits of one word.
  static constexpr std::uint32_t kPagesPerGrownBit = sim::kPagesPerBlock / 64;

  std::uint32_t threshold_;
  std::uint32_t min_faults_;
  std::uint32_t big_page_pages_;
  // The node prefetch_quiet adds for one page of a whole block with nothing on the
  // destination, as a span (0: none): the same for every faulted page.
  std::uint32_t empty_block_span_ = 0;
  // widest_level(k big pages, a whole block) for k = 0..64, where big pages
  // are of kPagesPerGrownBit pages or more (prefetch_over_big_pages).
  std::uint8_t widest_level_by_grown_[65] = {};
};

}  // namespace

UMSIM_REGISTER_POLICY(sim::PrefetchPolicy, TreePrefetcher, "tree",
                      "NVIDIA driver density prefetcher: 64 KiB big-page fill, then the largest subtree of the "
                      "2 MiB block that is more than threshold% resident",
                      {{"threshold", ParamType::kInt, "51", "percent of a subtree's pages that must be resident"},
                       {"min_faults", ParamType::kInt, "1",
                        "faulted pages migrated to the same processor before prefetching starts"},
                       {"big_page", ParamType::kBytes, "64KiB", "big page size the faulted pages are grown to"}});

}  // namespace umsim::policies
