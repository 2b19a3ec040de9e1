// AMD KFD with XNACK on (kfd_svm.c): a GPU fault migrates the whole aligned
// window around the faulting address, [ALIGN_DOWN(addr, 2MiB), ALIGN(addr+1, 2MiB)),
// i.e. the svm_range granularity (2^9 pages by default). There is no density
// prefetcher. The window size follows the driver's granularity parameter.
#include <bit>

#include "policies/internal/page_words.h"
#include "policies/policy_kinds.h"

namespace umsim::policies {
namespace {

class AmdWindowPrefetcher final : public sim::PrefetchPolicy {
 public:
  explicit AmdWindowPrefetcher(const Params& p) {
    const auto w = p.get_bytes("window");
    if (w < sim::kPageSize || w > sim::kBlockSize || !std::has_single_bit(w))
      throw PolicyError("prefetch policy 'amd-window': window must be a power of two from 4KiB to 2MiB");
    window_pages_ = static_cast<std::uint32_t>(w / sim::kPageSize);
  }
  void prefetch(const sim::PrefetchRequest& r, sim::PageMask& out) override {
    PageWords faulted = PageWords::of(r.faulted);
    faulted.truncate(r.pages_in_block);
    PageWords region;
    faulted.for_each([&](std::uint32_t page) {
      const std::uint32_t first = page & ~(window_pages_ - 1);
      region.fill(first, std::min(first + window_pages_, r.pages_in_block));
    });
    region.clear(faulted);
    region.clear(PageWords::of(r.excluded));
    region.clear(PageWords::of(r.resident_on_destination));
    out |= region.mask();
  }

 private:
  std::uint32_t window_pages_ = sim::kPagesPerBlock;
};

}  // namespace

UMSIM_REGISTER_POLICY(sim::PrefetchPolicy, AmdWindowPrefetcher, "amd-window",
                      "AMD KFD XNACK on: a fault migrates the whole 2 MiB-aligned window (no density prefetch)",
                      {{"window", ParamType::kBytes, "2MiB", "svm_range migration granularity (2^9 pages)"}});

}  // namespace umsim::policies
