#include "traces/generators/trace_summary.h"

#include <bit>
#include <fmt/format.h>

namespace umsim::gen {

using trace::EventKind;

std::string TraceSummary::to_string() const {
  return fmt::format("events={} allocations={} footprint={} peak_live={} distinct_pages={} page_touches={} kernels={}",
                     events, allocations, footprint, peak_live, distinct_pages, page_touches, kernels);
}

void SummaryWriter::write(const trace::Event& e, std::string_view name, std::string_view source_name) {
  if (forward_) forward_->write(e, name, source_name);
  ++summary_.events;
  ++summary_.by_kind[static_cast<int>(e.kind)];
  switch (e.kind) {
    case EventKind::kAlloc: {
      ++summary_.allocations;
      summary_.footprint += e.length;
      live_ += e.length;
      summary_.peak_live = std::max(summary_.peak_live, live_);
      Alloc& a = allocs_[std::string(name)];
      a.size = e.length;
      a.touched.assign((e.length + trace::kPageSize - 1) / trace::kPageSize / 64 + 1, 0);
      break;
    }
    case EventKind::kFree: {
      auto it = allocs_.find(name);
      if (it != allocs_.end()) {
        live_ -= it->second.size;
        allocs_.erase(it);
      }
      break;
    }
    case EventKind::kKernelBegin: ++summary_.kernels; break;
    case EventKind::kGpuAccess:
    case EventKind::kCpuAccess: {
      auto it = allocs_.find(name);
      if (it == allocs_.end()) break;
      auto& bits = it->second.touched;
      trace::for_each_page_once(e, [&](std::uint64_t page) {
        ++summary_.page_touches;
        std::uint64_t& w = bits[page / 64];
        const std::uint64_t bit = std::uint64_t{1} << (page % 64);
        if (!(w & bit)) ++summary_.distinct_pages, w |= bit;
      });
      if (e.count > 1) {
        std::uint64_t per_pass = 0;
        trace::for_each_page_once(e, [&](std::uint64_t) { ++per_pass; });
        summary_.page_touches += per_pass * (e.count - 1);
      }
      break;
    }
    default: break;
  }
}

void SummaryWriter::comment(std::string_view text) {
  if (forward_) forward_->comment(text);
}

void SummaryWriter::finish() {
  if (forward_) forward_->finish();
}

}  // namespace umsim::gen
