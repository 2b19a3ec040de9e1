// The order in which a kernel's warps touch a range access's touches: the
// range is taken in windows of `window` touches one after another (the pages of
// the warps in flight), each swept in interleaved slices of window / lanes
// touches (step k touches the k-th touch of every slice), so faults reach the
// fault buffer that far apart; a window shorter than that (the range's last)
// keeps the slices' width. Window 0: the whole range is one window of `lanes`
// slices. One lane is address order.
#pragma once

#include <algorithm>
#include <cstdint>

namespace umsim::sim {

class LaneSweep {
 public:
  // window 0: the whole range is one window.
  LaneSweep(std::uint64_t touches, std::uint64_t lanes, std::uint64_t window)
      : n_(touches), window_(window == 0 ? touches : window) {
    const std::uint64_t l = std::max<std::uint64_t>(std::min<std::uint64_t>(lanes, window_), 1);
    width_ = (window_ + l - 1) / l;
    full_windows_ = window_ ? n_ / window_ : 0;
    full_slice_ = std::min(width_, window_);
    last_slice_ = std::min(width_, n_ - full_windows_ * window_);
  }

  // Lane steps of one pass over the range.
  std::uint64_t steps() const { return full_windows_ * full_slice_ + last_slice_; }

  // Visits the touches (0..n-1) of lane step `s`; returns how many.
  template <class Visit>
  std::uint64_t step(std::uint64_t s, Visit&& visit) const {
    std::uint64_t start, end, slice;
    if (s < full_windows_ * full_slice_) {
      start = s / full_slice_ * window_;
      end = start + window_;
      slice = full_slice_;
      s %= full_slice_;
    } else {
      start = full_windows_ * window_;
      end = n_;
      slice = last_slice_;
      s -= full_windows_ * full_slice_;
    }
    std::uint64_t visited = 0;
    for (std::uint64_t i = start + s; i < end; i += slice, ++visited) visit(i);
    return visited;
  }

 private:
  std::uint64_t n_, window_;
  std::uint64_t width_ = 0;  // touches per slice
  // Windows of `window_` touches, lane steps (their slices' width, or fewer
  // where the window is shorter) in each of them and in the last, short one.
  std::uint64_t full_windows_ = 0, full_slice_ = 0, last_slice_ = 0;
};

}  // namespace umsim::sim
