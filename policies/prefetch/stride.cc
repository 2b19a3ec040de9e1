// Stride detector: per allocation, the faulted pages (in batch order, ascending
// within a block) form a stream; when the same non-zero page delta repeats
// `confidence` times in a row, the next `degree` pages along that stride that lie
// in the faulting block are prefetched.
#include <cstdint>
#include <vector>

#include "policies/internal/page_words.h"
#include "policies/policy_kinds.h"

namespace umsim::policies {
namespace {

class StridePrefetcher final : public sim::PrefetchPolicy {
 public:
  explicit StridePrefetcher(const Params& p) : confidence_(p.get_int("confidence")), degree_(p.get_int("degree")) {
    if (confidence_ < 1) throw PolicyError("prefetch policy 'stride': confidence must be >= 1");
    if (degree_ < 1 || degree_ > sim::kPagesPerBlock)
      throw PolicyError("prefetch policy 'stride': degree must be 1..512");
  }
  void on_allocation_created(sim::AllocSlot alloc, std::uint64_t) override { stream(alloc) = Stream{}; }

  void prefetch(const sim::PrefetchRequest& r, sim::PageMask& out) override {
    Stream& s = stream(r.alloc);
    const std::uint64_t base = r.block * sim::kPagesPerBlock;
    PageWords faulted = PageWords::of(r.faulted);
    faulted.truncate(r.pages_in_block);
    faulted.for_each([&](std::uint32_t page) {
      const std::int64_t abs = static_cast<std::int64_t>(base + page);
      if (s.seen) {
        const std::int64_t delta = abs - s.last;
        if (delta != 0 && delta == s.stride) {
          ++s.repeats;
        } else {
          s.stride = delta;
          s.repeats = delta != 0 ? 1 : 0;
        }
      }
      s.seen = true;
      s.last = abs;
    });
    if (!s.seen || s.stride == 0 || s.repeats < confidence_) return;
    PageWords picked;
    for (std::int64_t k = 1; k <= degree_; ++k) {
      const std::int64_t target = s.last + k * s.stride - static_cast<std::int64_t>(base);
      if (target < 0 || target >= static_cast<std::int64_t>(r.pages_in_block)) break;
      picked.set(static_cast<std::uint32_t>(target));
    }
    picked.clear(faulted);
    picked.clear(PageWords::of(r.excluded));
    picked.clear(PageWords::of(r.resident_on_destination));
    out |= picked.mask();
  }

 private:
  struct Stream {
    bool seen = false;
    std::int64_t last = 0;
    std::int64_t stride = 0;
    std::int64_t repeats = 0;
  };
  Stream& stream(sim::AllocSlot alloc) {
    if (streams_.size() <= alloc) streams_.resize(alloc + 1);
    return streams_[alloc];
  }
  std::int64_t confidence_;
  std::int64_t degree_;
  std::vector<Stream> streams_;  // by allocation slot
};

}  // namespace

UMSIM_REGISTER_POLICY(sim::PrefetchPolicy, StridePrefetcher, "stride",
                      "stride detector: after `confidence` equal page deltas, prefetch `degree` pages ahead",
                      {{"confidence", ParamType::kInt, "2", "equal consecutive deltas needed"},
                       {"degree", ParamType::kInt, "4", "pages prefetched along the stride (within the block)"}});

}  // namespace umsim::policies
