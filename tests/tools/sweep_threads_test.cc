// The sweep's worker threads (tools/sweep_threads.h): every point runs once,
// outcomes are handed over one at a time, a stop starts no further point, and a
// multi-threaded sweep of a small trace writes exactly the single-threaded
// lines. CI also runs this test under ThreadSanitizer (tools/ci/tsan_tests.txt),
// where an unguarded shared state in the pool or in a point's run is a failure.
#include "tools/sweep_threads.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/profile_lookup.h"
#include "tools/gpu_memory_spec.h"
#include "tools/resolved_policy_spec.h"
#include "tools/sweep_plan.h"
#include "tools/sweep_runner.h"
#include "traces/trace_reader.h"

namespace umsim::cli {
namespace {

TEST(SweepThreads, EveryPointRunsOnceAndOutcomesArriveOneAtATime) {
  constexpr std::size_t kPoints = 300;
  std::vector<int> handed(kPoints, 0);
  std::vector<std::string> lines(kPoints);
  bool inside = false;  // deliberately not atomic: finish() must never overlap itself
  const unsigned used = run_points_on_threads(
      kPoints, 8, [](std::size_t i) { return "point " + std::to_string(i); },
      [&](std::size_t i, PointOutcome& outcome) {
        EXPECT_FALSE(inside);
        inside = true;
        ++handed[i];
        lines[i] = outcome.line;
        EXPECT_EQ(outcome.error, "");
        inside = false;
        return true;
      });
  EXPECT_EQ(used, 8u);
  for (std::size_t i = 0; i < kPoints; ++i) {
    EXPECT_EQ(handed[i], 1) << "point " << i;
    EXPECT_EQ(lines[i], "point " + std::to_string(i));
  }
}

TEST(SweepThreads, NoMoreThreadsThanPointsAndNoneForNoPoints) {
  int calls = 0;
  auto run = [](std::size_t i) { return std::to_string(i); };
  auto finish = [&](std::size_t, PointOutcome&) { return ++calls > 0; };
  EXPECT_EQ(run_points_on_threads(3, 16, run, finish), 3u);
  EXPECT_EQ(calls, 3);
  EXPECT_EQ(run_points_on_threads(5, 0, run, finish), 1u);  // 0 threads counts as 1
  EXPECT_EQ(calls, 8);
  EXPECT_EQ(run_points_on_threads(0, 4, run, finish), 0u);
  EXPECT_EQ(calls, 8);
}

TEST(SweepThreads, AnExceptionIsThePointsError) {
  std::map<std::size_t, PointOutcome> got;
  run_points_on_threads(
      6, 3,
      [](std::size_t i) -> std::string {
        if (i % 2) throw std::runtime_error("point " + std::to_string(i) + " failed");
        return "ok";
      },
      [&](std::size_t i, PointOutcome& outcome) {
        got[i] = outcome;
        return true;
      });
  ASSERT_EQ(got.size(), 6u);
  for (std::size_t i = 0; i < 6; ++i) {
    EXPECT_EQ(got[i].line, i % 2 ? "" : "ok");
    EXPECT_EQ(got[i].error, i % 2 ? "point " + std::to_string(i) + " failed" : "");
  }
}

TEST(SweepThreads, AStopStartsNoFurtherPoint) {
  // One thread: points 0..4 run, 4 stops the sweep, nothing after it runs.
  std::vector<std::size_t> handed;
  run_points_on_threads(
      100, 1, [](std::size_t i) { return std::to_string(i); },
      [&](std::size_t i, PointOutcome&) {
        handed.push_back(i);
        return i != 4;
      });
  EXPECT_EQ(handed, (std::vector<std::size_t>{0, 1, 2, 3, 4}));

  // Four threads: after the stop, each other thread hands over at most the one
  // point it was running (or had taken just before the stop), then takes no other.
  constexpr unsigned kThreads = 4;
  std::size_t calls = 0, calls_at_stop = 0;
  run_points_on_threads(
      10000, kThreads, [](std::size_t i) { return std::to_string(i); },
      [&](std::size_t, PointOutcome&) {
        if (++calls == 10) calls_at_stop = calls;
        return calls < 10;
      });
  EXPECT_EQ(calls_at_stop, 10u);
  EXPECT_LE(calls, calls_at_stop + (kThreads - 1));
}

// A small trace that faults, migrates, evicts under 4 MiB and reads back on the CPU.
std::string write_small_trace() {
  const char* dir = std::getenv("TEST_TMPDIR");
  const std::string path = std::string(dir ? dir : "/tmp") + "/sweep_threads_small.umt";
  std::ofstream(path) << "umsim-trace 1\n"
                         "alloc A 8MiB managed\n"
                         "alloc B 4MiB managed\n"
                         "cpu w A len=8MiB\n"
                         "kernel k1 gpu=0\n"
                         "  r A len=8MiB\n"
                         "  w B len=4MiB\n"
                         "end\n"
                         "kernel k2 gpu=0\n"
                         "  r A+2MiB len=4MiB count=2\n"
                         "  w B len=4MiB\n"
                         "end\n"
                         "cpu r A len=8MiB\n"
                         "free A\n"
                         "free B\n"
                         "end-of-trace\n";
  return path;
}

// The lines of a sweep over the small trace (both vendors that migrate, seeded
// random policies, the Belady oracle that rereads the trace, two memory sizes),
// run on `threads` threads, in index order.
std::vector<std::string> sweep_lines(const std::string& trace, unsigned threads) {
  SweepAxes axes;
  axes.traces = {trace};
  axes.vendors = {"nvidia", "amd-xnack-on"};
  axes.prefetch = {"none", "random"};
  axes.evict = {"lru", "belady", "random"};
  axes.gpu_mem = {"4MiB", "100%"};
  axes.seeds = {1, 2};
  const std::vector<SweepPoint> points = expand_sweep(axes, takes_unset_seed);
  EXPECT_EQ(points.size(), 40u);
  const sim::HardwareProfile profile = sim::load_profile(sim::kDefaultProfile);
  auto reader = trace::open_trace(trace);
  const TraceFootprint footprint = trace_footprint(*reader);
  std::vector<std::string> lines(points.size());
  run_points_on_threads(
      points.size(), threads, [&](std::size_t i) { return run_sweep_point(points[i], profile, footprint).dump(); },
      [&](std::size_t i, PointOutcome& outcome) {
        EXPECT_EQ(outcome.error, "") << describe_point(points[i]);
        lines[i] = outcome.line;
        return true;
      });
  return lines;
}

TEST(SweepThreads, ManyThreadsWriteTheSingleThreadedLines) {
  const std::string trace = write_small_trace();
  const std::vector<std::string> one = sweep_lines(trace, 1);
  const std::vector<std::string> four = sweep_lines(trace, 4);
  ASSERT_EQ(one.size(), four.size());
  for (std::size_t i = 0; i < one.size(); ++i) {
    EXPECT_FALSE(one[i].empty()) << "point " << i;
    EXPECT_EQ(one[i], four[i]) << "point " << i;
  }
  // The points differ: the sweep compares something.
  EXPECT_NE(one[0], one[1]);
}

}  // namespace
}  // namespace umsim::cli
