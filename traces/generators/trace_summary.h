// A TraceWriter that summarises what passes through it (and optionally
// forwards every event to another writer): footprint, events by kind, page
// touches and distinct pages touched. Used by `umsim trace gen` / `import` to
// report what they wrote, and by tests as golden statistics.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "traces/event.h"
#include "traces/trace_writer.h"

namespace umsim::gen {

struct TraceSummary {
  std::uint64_t events = 0;
  std::array<std::uint64_t, trace::kEventKindCount> by_kind{};
  std::uint64_t allocations = 0;
  std::uint64_t footprint = 0;       // bytes of every allocation made
  std::uint64_t peak_live = 0;       // most bytes allocated at once
  std::uint64_t page_touches = 0;    // page touches of GPU and CPU accesses (count included)
  std::uint64_t distinct_pages = 0;  // distinct (allocation, page) pairs touched
  std::uint64_t kernels = 0;

  // "events=.. allocations=.. footprint=.. peak_live=.. distinct_pages=.. page_touches=.. kernels=.."
  std::string to_string() const;
};

class SummaryWriter : public trace::TraceWriter {
 public:
  explicit SummaryWriter(trace::TraceWriter* forward = nullptr) : forward_(forward) {}
  void write(const trace::Event& e, std::string_view name, std::string_view source_name = {}) override;
  void comment(std::string_view text) override;
  void finish() override;
  const TraceSummary& summary() const { return summary_; }

 private:
  struct Alloc {
    std::uint64_t size = 0;
    std::vector<std::uint64_t> touched;  // one bit per page
  };
  trace::TraceWriter* forward_;
  TraceSummary summary_;
  std::uint64_t live_ = 0;
  std::map<std::string, Alloc, std::less<>> allocs_;  // live allocations by name
};

}  // namespace umsim::gen
