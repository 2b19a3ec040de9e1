// The worker threads of `umsim sweep`: each thread takes the next point (in
// index order), runs it with no lock held, and hands its outcome to one
// callback under a single lock, so that the callback may append to the
// journal, count and report progress as if alone. Points finish in any order;
// the sweep orders its lines by index afterwards.
#pragma once

#include <cstddef>
#include <functional>
#include <string>

namespace umsim::cli {

struct PointOutcome {
  std::string line;   // the point's output line, when it ran
  std::string error;  // why it failed (its exception's message); then `line` is empty
};

// Runs run(i) for every i in [0, count) on min(threads, count) threads
// (threads 0 counts as 1). finish(i, outcome) is called once for each point
// run, one call at a time, and must not throw; when it returns false no further
// point is started (points already running still finish and are handed to it).
// Returns the number of threads used.
unsigned run_points_on_threads(std::size_t count, unsigned threads, const std::function<std::string(std::size_t)>& run,
                               const std::function<bool(std::size_t, PointOutcome&)>& finish);

}  // namespace umsim::cli
