// NVIDIA access-counter-driven delayed migration (uvm_gpu_access_counters.c).
// Each GPU counts its accesses to memory it maps remotely, per 2 MiB tracking
// region (`granularity`), remembering which of the region's 32 sub-regions
// (64 KiB) were touched. When a region's count reaches `threshold` (256) the
// driver is notified and migrates the touched sub-regions to that GPU; the count
// restarts. Here the contiguous run of touched sub-regions holding the access that
// crossed the threshold migrates at once and the other touched sub-regions on
// their next remote access (the interface moves one range per access). The driver
// only enables these migrations on ATS systems
// (uvm_perf_access_counter_migration_enable = -1), so they are off by default on
// x86 hosts such as the H200 machines: the `nvidia` preset uses the `driver`
// migration policy; select this one to study them. Faults keep the driver's
// default placement. Not modelled: for memory not backed by pages of the tracking
// size the driver moves only the notified page.
#include <algorithm>
#include <bit>
#include <cstdint>
#include <vector>

#include "policies/policy_kinds.h"

namespace umsim::policies {
namespace {

constexpr std::uint32_t kSubRegions = 32;  // UVM_SUB_GRANULARITY_REGIONS

struct TrackingRegion {
  std::uint32_t count = 0;
  std::uint32_t touched = 0;  // sub-regions accessed since the last notification
  std::uint32_t pending = 0;  // notified sub-regions not migrated yet
};

class AccessCounterMigration final : public sim::MigrationPolicy {
 public:
  explicit AccessCounterMigration(const Params& p) : threshold_(p.get_int("threshold")) {
    const sim::Bytes g = p.get_bytes("granularity");
    if (threshold_ < 1 || threshold_ > 32767)
      throw PolicyError("migrate policy 'access-counter': threshold must be 1..32767 (as the driver), got " +
                        std::to_string(threshold_));
    if (g != 64 * 1024 && g != sim::kBlockSize)
      throw PolicyError("migrate policy 'access-counter': granularity must be 64KiB or 2MiB");
    region_pages_ = g / sim::kPageSize;
    // A 64 KiB tracking region is its own single sub-region (the driver fills no sub-granularity mask).
    sub_pages_ = g == sim::kBlockSize ? region_pages_ / kSubRegions : region_pages_;
  }

  bool wants_remote_access_callbacks() const override { return true; }
  sim::MigrationDecision decide(const sim::FaultContext&, const sim::MigrationDecision& driver_default) override {
    return driver_default;
  }
  void on_allocation_created(sim::AllocSlot alloc, std::uint64_t pages) override {
    if (pages_.size() <= alloc) pages_.resize(alloc + 1, 0);
    pages_[alloc] = pages;
    if (regions_.size() <= alloc) regions_.resize(alloc + 1);
    regions_[alloc].clear();  // per GPU arrays appear on that GPU's first remote access
  }
  void on_allocation_freed(sim::AllocSlot alloc) override {
    if (alloc < regions_.size()) regions_[alloc].clear();
  }

  bool on_remote_access(const sim::RemoteAccess& a, std::uint64_t& first_page, std::uint64_t& page_count) override {
    if (!a.requester.is_gpu()) return false;  // access counters are a GPU feature
    TrackingRegion& r = region(a.alloc, a.requester.gpu_index(), a.page / region_pages_);
    const auto sub = static_cast<std::uint32_t>((a.page % region_pages_) / sub_pages_);
    const std::uint32_t bit = 1u << sub;
    if (!(r.pending & bit)) {
      r.touched |= bit;
      if (++r.count < static_cast<std::uint32_t>(threshold_)) return false;
      r.count = 0;
      r.pending |= r.touched;
      r.touched = 0;
    }
    // Migrate the run of pending sub-regions around this one.
    std::uint32_t lo = sub, hi = sub + 1;
    while (lo > 0 && (r.pending >> (lo - 1) & 1u)) --lo;
    while (hi < kSubRegions && (r.pending >> hi & 1u)) ++hi;
    const std::uint32_t run = hi - lo;
    r.pending &= ~(run == 32 ? ~0u : ((1u << run) - 1) << lo);
    const std::uint64_t base = a.page / region_pages_ * region_pages_;
    first_page = base + std::uint64_t{lo} * sub_pages_;
    const std::uint64_t total = a.alloc < pages_.size() && pages_[a.alloc] ? pages_[a.alloc] : first_page + run * sub_pages_;
    page_count = std::min<std::uint64_t>(std::uint64_t{run} * sub_pages_, total - first_page);
    return true;
  }

 private:
  TrackingRegion& region(sim::AllocSlot alloc, int gpu, std::uint64_t index) {
    if (regions_.size() <= alloc) regions_.resize(alloc + 1);
    auto& per_gpu = regions_[alloc];
    if (per_gpu.size() <= static_cast<std::size_t>(gpu)) per_gpu.resize(gpu + 1);
    auto& v = per_gpu[gpu];
    if (v.size() <= index) {
      const std::uint64_t pages = alloc < pages_.size() ? pages_[alloc] : 0;
      v.resize(std::max<std::uint64_t>(index + 1, (pages + region_pages_ - 1) / region_pages_));
    }
    return v[index];
  }

  std::int64_t threshold_;
  std::uint64_t region_pages_ = 512;
  std::uint64_t sub_pages_ = 16;
  std::vector<std::uint64_t> pages_;                                // by allocation
  std::vector<std::vector<std::vector<TrackingRegion>>> regions_;   // [alloc][gpu][tracking region]
};

}  // namespace

UMSIM_REGISTER_POLICY(sim::MigrationPolicy, AccessCounterMigration, "access-counter",
                      "NVIDIA access-counter delayed migration: after 256 remote accesses to a 2 MiB region, its "
                      "touched 64 KiB sub-regions migrate to the GPU (driver default: off on x86)",
                      {{"threshold", ParamType::kInt, "256", "remote accesses to a tracking region before notifying"},
                       {"granularity", ParamType::kBytes, "2MiB",
                        "tracking region: 2MiB (32 sub-regions of 64 KiB) or 64KiB"}});

}  // namespace umsim::policies
