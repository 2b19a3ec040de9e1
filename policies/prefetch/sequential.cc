// Sequential-local prefetch (UVMSmart's "seq-64K"): every faulted page brings the
// rest of the aligned `size` region around it (a 64 KiB big page by default).
#include <bit>

#include "policies/internal/page_words.h"
#include "policies/policy_kinds.h"

namespace umsim::policies {
namespace {

class SequentialPrefetcher final : public sim::PrefetchPolicy {
 public:
  explicit SequentialPrefetcher(const Params& p) {
    const auto size = p.get_bytes("size");
    if (size < sim::kPageSize || size > sim::kBlockSize || !std::has_single_bit(size))
      throw PolicyError("prefetch policy 'sequential': size must be a power of two from 4KiB to 2MiB");
    region_pages_ = static_cast<std::uint32_t>(size / sim::kPageSize);
  }
  void prefetch(const sim::PrefetchRequest& r, sim::PageMask& out) override {
    PageWords faulted = PageWords::of(r.faulted);
    faulted.truncate(r.pages_in_block);
    PageWords region;
    faulted.for_each([&](std::uint32_t page) {
      const std::uint32_t first = page & ~(region_pages_ - 1);
      region.fill(first, std::min(first + region_pages_, r.pages_in_block));
    });
    region.clear(faulted);
    region.clear(PageWords::of(r.excluded));
    region.clear(PageWords::of(r.resident_on_destination));
    out |= region.mask();
  }

 private:
  std::uint32_t region_pages_ = 16;
};

}  // namespace

UMSIM_REGISTER_POLICY(sim::PrefetchPolicy, SequentialPrefetcher, "sequential",
                      "sequential-local: fill the aligned region (64 KiB) around each faulted page",
                      {{"size", ParamType::kBytes, "64KiB", "aligned region brought in around each faulted page"}});

}  // namespace umsim::policies
