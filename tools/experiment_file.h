// An experiment file (`umsim sweep --config exp.toml`): the axes of a sweep
// written down once, so that a sweep can be repeated, resumed and shared:
//
//   traces = ["train.umtb", "bfs.umtb"]   # relative to the experiment file
//   prefetch = ["tree", "tree:threshold=25", "none"]
//   evict = ["fifo", "lru:granularity=4KiB", "random"]
//   gpu_mem = ["100%", "150%"]
//   profiles = ["h200-pcie"]
//   seeds = [1, 2, 3]
//
// Every key is optional and takes an array (or one value); `vendors`,
// `migrate` and `thrashing` work the same way. docs/sweeps.md lists them.
#pragma once

#include <string>

#include "tools/sweep_plan.h"

namespace umsim::cli {

// Reads `path` into axes: each key given replaces that axis of `*axes`.
// Throws std::runtime_error ("exp.toml:LINE: ...") on a syntax error, an
// unknown key or a value of the wrong type.
void read_experiment_file(const std::string& path, SweepAxes* axes);

}  // namespace umsim::cli
