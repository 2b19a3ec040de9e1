#include "hip_backend/safety.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "traces/checked_math.h"

namespace umsim::hip {

namespace {
std::string gib(std::uint64_t b) { return fmt::format("{:.2f} GiB", static_cast<double>(b) / (1ull << 30)); }
}  // namespace

std::uint64_t backend_device_bytes(const Plan& plan) {
  // As replay_runtime's setup() allocates them: at least one entry.
  const std::uint64_t entries = saturating_mul(std::max<std::uint64_t>(plan.entries.size(), 1), sizeof(std::uint64_t));
  return saturating_add(entries, AccessEntry::kMaxSlots * sizeof(char*) + sizeof(unsigned));
}

std::uint64_t safe_managed_limit(std::uint64_t free_bytes, double fraction) {
  return static_cast<std::uint64_t>(static_cast<long double>(free_bytes) * fraction);
}

void check_footprint(const Plan& plan, const MemoryInfo& gpu, double fraction) {
  if (!(fraction > 0.0 && fraction <= 0.5))
    throw UnsafeTraceError(fmt::format("safe fraction {} is out of range (0, 0.5]", fraction));
  if (gpu.free_bytes == 0)
    throw UnsafeTraceError("the GPU reports 0 bytes free (hipMemGetInfo); refusing to allocate anything");
  // Host buffers of explicit copies: bounded so a trace cannot pin most of the host's memory.
  constexpr std::uint64_t kMaxStagingBytes = std::uint64_t{4} << 30;
  const std::uint64_t staging = plan.pinned_staging_bytes + plan.pageable_staging_bytes;
  if (staging > kMaxStagingBytes)
    throw UnsafeTraceError(fmt::format(
        "{}: refusing to replay: the copies' host buffers need {} ({} pinned, {} pageable), more than the {} the "
        "backend allocates for them (split the copies)",
        plan.trace, gib(staging), gib(plan.pinned_staging_bytes), gib(plan.pageable_staging_bytes),
        gib(kMaxStagingBytes)));
  const std::uint64_t limit = safe_managed_limit(gpu.free_bytes, fraction);
  // Device allocations and the backend's buffers take GPU memory the managed pages then cannot use.
  const std::uint64_t backend = backend_device_bytes(plan);
  const auto managed_and_device = checked_add(plan.peak_managed_bytes, plan.peak_device_bytes);
  const auto need = managed_and_device ? checked_add(*managed_and_device, backend) : std::nullopt;
  if (!need)
    throw UnsafeTraceError(fmt::format(
        "{}: refusing to replay: managed footprint ({} bytes) plus device memory ({} bytes) plus the backend's buffers "
        "({} bytes) exceeds 2^64 bytes",
        plan.trace, plan.peak_managed_bytes, plan.peak_device_bytes, backend));
  if (*need > limit)
    throw UnsafeTraceError(fmt::format(
        "{}: refusing to replay: managed footprint {} (+ {} device memory, + {} for the backend's access list) exceeds "
        "{:.0f}% of the GPU's free memory ({} of {} free, limit {}); the backend never oversubscribes a real GPU: "
        "study oversubscription with `umsim replay` instead",
        plan.trace, gib(plan.peak_managed_bytes), gib(plan.peak_device_bytes), gib(backend), fraction * 100,
        gib(gpu.free_bytes), gib(gpu.total_bytes), gib(limit)));
}

}  // namespace umsim::hip
