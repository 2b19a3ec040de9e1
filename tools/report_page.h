// The page `umsim report` writes: one self-contained HTML file (no network:
// inline CSS, inline JavaScript that draws SVG plots) built from sweep results
// only. Plots: policy comparison per trace and memory size, oversubscription
// curves per trace, kernel timelines per GPU for a chosen point; a sortable
// table of every point and the failed points with their errors.
#pragma once

#include <string>
#include <vector>

#include "tools/sweep_results.h"

namespace umsim::cli {

// `lines` are finished or failed sweep points (any order); `sources` name the
// input files in the page's header.
std::string report_page(const std::vector<SweepLine>& lines, const std::vector<std::string>& sources);

// The number of plots report_page draws for `lines`: one comparison per
// (trace, GPU memory) and one curve and one timeline per trace that has
// finished points. The page checks itself against it (tests read it too).
std::size_t report_plot_count(const std::vector<SweepLine>& lines);

}  // namespace umsim::cli
