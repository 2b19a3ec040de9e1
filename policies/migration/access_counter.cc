// NVIDIA access-counter-driven delayed migration: GPUs count their accesses to
// memory that is mapped remotely (not resident on them) per 64 KiB sub-region of
// each 2 MiB region; when a sub-region's count reaches `threshold` (256) the
// sub-region migrates to that GPU and the count restarts. The driver only enables
// this on ATS systems (uvm_perf_access_counter_migration_enable = -1), so it is
// off by default on x86 hosts such as the H200 machines: the `nvidia` preset uses
// the `driver` migration policy; select this one to study it. Faults keep the
// driver's default placement.
#include <algorithm>
#include <bit>
#include <cstdint>
#include <vector>

#include "policies/policy_kinds.h"

namespace umsim::policies {
namespace {

class AccessCounterMigration final : public sim::MigrationPolicy {
 public:
  explicit AccessCounterMigration(const Params& p)
      : threshold_(p.get_int("threshold")), region_bytes_(p.get_bytes("granularity")) {
    if (threshold_ < 1 || threshold_ > 65535)
      throw PolicyError("migrate policy 'access-counter': threshold must be 1..65535, got " +
                        std::to_string(threshold_));
    if (region_bytes_ < sim::kPageSize || region_bytes_ > sim::kBlockSize || !std::has_single_bit(region_bytes_))
      throw PolicyError("migrate policy 'access-counter': granularity must be a power of two from 4KiB to 2MiB");
    region_pages_ = region_bytes_ / sim::kPageSize;
  }

  bool wants_remote_access_callbacks() const override { return true; }
  sim::MigrationDecision decide(const sim::FaultContext&, const sim::MigrationDecision& driver_default) override {
    return driver_default;
  }
  void on_allocation_created(sim::AllocSlot alloc, std::uint64_t pages) override {
    if (pages_.size() <= alloc) pages_.resize(alloc + 1, 0);
    pages_[alloc] = pages;
    if (counters_.size() <= alloc) counters_.resize(alloc + 1);
    counters_[alloc].clear();  // per GPU arrays are created on that GPU's first remote access
  }
  void on_allocation_freed(sim::AllocSlot alloc) override {
    if (alloc < counters_.size()) counters_[alloc] = {};
  }

  bool on_remote_access(const sim::RemoteAccess& a, std::uint64_t& first_page, std::uint64_t& page_count) override {
    if (!a.requester.is_gpu()) return false;  // access counters are a GPU feature
    std::uint16_t& c = counter(a.alloc, a.requester.gpu_index(), a.page / region_pages_);
    if (++c < threshold_) return false;
    c = 0;
    first_page = a.page / region_pages_ * region_pages_;
    const std::uint64_t total = a.alloc < pages_.size() && pages_[a.alloc] ? pages_[a.alloc] : first_page + region_pages_;
    page_count = std::min<std::uint64_t>(region_pages_, total - first_page);
    return true;
  }

 private:
  std::uint16_t& counter(sim::AllocSlot alloc, int gpu, std::uint64_t region) {
    if (counters_.size() <= alloc) counters_.resize(alloc + 1);
    auto& per_gpu = counters_[alloc];
    if (per_gpu.size() <= static_cast<std::size_t>(gpu)) per_gpu.resize(gpu + 1);
    auto& c = per_gpu[gpu];
    if (c.size() <= region) {
      const std::uint64_t pages = alloc < pages_.size() ? pages_[alloc] : 0;
      c.resize(std::max<std::uint64_t>(region + 1, (pages + region_pages_ - 1) / region_pages_), 0);
    }
    return c[region];
  }

  std::int64_t threshold_;
  sim::Bytes region_bytes_;
  std::uint64_t region_pages_ = 16;
  std::vector<std::uint64_t> pages_;                                 // by allocation
  std::vector<std::vector<std::vector<std::uint16_t>>> counters_;    // [alloc][gpu][sub-region]
};

}  // namespace

UMSIM_REGISTER_POLICY(sim::MigrationPolicy, AccessCounterMigration, "access-counter",
                      "NVIDIA access-counter delayed migration: a 64 KiB sub-region migrates to a GPU after 256 "
                      "remote accesses (driver default: off on x86)",
                      {{"threshold", ParamType::kInt, "256", "remote accesses before the sub-region migrates"},
                       {"granularity", ParamType::kBytes, "64KiB", "sub-region size (32 per 2 MiB region)"}});

}  // namespace umsim::policies
