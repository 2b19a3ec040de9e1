#include "sim/future_oracle.h"

#include <algorithm>
#include <limits>
#include <vector>

#include "sim/page_state.h"

namespace umsim::sim {
namespace {

struct Run {
  std::uint64_t first, last;  // inclusive access sequence numbers
};

class TraceFutureOracle : public FutureOracle {
 public:
  TraceFutureOracle(int gpus, std::uint32_t pages_per_chunk) : gpus_(gpus), pages_per_chunk_(pages_per_chunk) {}

  void touch(int gpu, AllocSlot slot, std::uint64_t page, std::uint64_t seq) {
    if (slot >= runs_.size()) runs_.resize(slot + 1);
    auto& per_gpu = runs_[slot];
    if (per_gpu.empty()) per_gpu.resize(static_cast<std::size_t>(gpus_));
    auto& regions = per_gpu[static_cast<std::size_t>(gpu)];
    const std::uint64_t r = page / pages_per_chunk_;
    if (r >= regions.size()) regions.resize(r + 1);
    auto& runs = regions[r];
    if (!runs.empty() && runs.back().last + 1 == seq) runs.back().last = seq;
    else runs.push_back({seq, seq});
  }

  std::uint64_t next_use(int gpu, AllocSlot alloc, std::uint64_t first_page, std::uint64_t after) const override {
    constexpr std::uint64_t kNever = std::numeric_limits<std::uint64_t>::max();
    if (alloc >= runs_.size() || runs_[alloc].empty()) return kNever;
    const auto& regions = runs_[alloc][static_cast<std::size_t>(gpu)];
    const std::uint64_t r = first_page / pages_per_chunk_;
    if (r >= regions.size()) return kNever;
    const auto& runs = regions[r];
    auto it = std::upper_bound(runs.begin(), runs.end(), after, [](std::uint64_t a, const Run& x) { return a < x.last; });
    if (it == runs.end()) return kNever;
    return std::max(it->first, after + 1);
  }

 private:
  int gpus_;
  std::uint32_t pages_per_chunk_;
  std::vector<std::vector<std::vector<std::vector<Run>>>> runs_;  // [slot][gpu][region]
};

}  // namespace

std::unique_ptr<FutureOracle> build_future_oracle(trace::TraceReader& reader, int gpus, std::uint32_t pages_per_chunk) {
  auto oracle = std::make_unique<TraceFutureOracle>(gpus, pages_per_chunk);
  std::vector<AllocSlot> slot_of_name;
  AllocSlot next_slot = 0;
  int gpu = 0;
  std::uint64_t seq = 0;
  std::vector<trace::Event> buffer(4096);
  for (std::size_t n; (n = reader.read(buffer)) != 0;) {
    for (std::size_t i = 0; i < n; ++i) {
      const trace::Event& e = buffer[i];
      switch (e.kind) {
        case trace::EventKind::kAlloc:
          if (slot_of_name.size() <= e.name) slot_of_name.resize(e.name + 1, kNoSlot);
          slot_of_name[e.name] = next_slot++;
          break;
        case trace::EventKind::kFree:
          if (e.name < slot_of_name.size()) slot_of_name[e.name] = kNoSlot;
          break;
        case trace::EventKind::kKernelBegin:
          gpu = e.processor.is_gpu() ? e.processor.gpu_index() : 0;
          break;
        case trace::EventKind::kGpuAccess: {
          if (e.name >= slot_of_name.size() || slot_of_name[e.name] == kNoSlot || gpu >= gpus) break;
          const AllocSlot slot = slot_of_name[e.name];
          const std::uint64_t count = e.count ? e.count : 1;
          for (std::uint64_t pass = 0; pass < count; ++pass)
            trace::for_each_page_once(e, [&](std::uint64_t page) { oracle->touch(gpu, slot, page, ++seq); });
          break;
        }
        default:
          break;
      }
    }
  }
  return oracle;
}

}  // namespace umsim::sim
