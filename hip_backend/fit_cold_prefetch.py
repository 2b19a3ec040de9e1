#!/usr/bin/env python3
"""Fit the prefetch path's pause costs from the cold-prefetch diagnostic.

usage: fit_cold_prefetch.py DIAG_DIR

DIAG_DIR holds the diagnostic's replays (hip_backend/results/h200-pcie5/
diag_cold_prefetch: three processes of each trace in its traces/ folder):
  d1_h2d_after_cpu, d2_d2h_after_cpu: a 64 KiB prefetch (to gpu0, to the CPU)
    after CPU work of 1 ms - 1 s with no prefetch in between (phase after_X),
    then one right after it (next_X);
  d1 also opens with the process's first prefetch into a fresh allocation
    (phase first) and one right after it (warm);
  d4_used_then_1s: a prefetch and a kernel on another allocation, 1 s of CPU
    writes, then the first prefetch into the written (fresh) allocation (first)
    and one right after it (warm);
  d3_first_after_1s: as d4 without the early GPU use (reported, not fitted).

Prints, as JSON, in ns:
  idle_call_cost: after_X less next_X for the pauses of 1-16 ms, median over
    both directions and the three processes;
  cold_excess: the same for the pauses of 64 ms - 1 s (a check on
    prefetch.cold_call_cost, which the calibration measures);
  first_on_gpu_cost: first less warm, less cold_excess, median over d1's and
    d4's processes (the first prefetch into a fresh allocation is cold too);
  check_d3: d3's first less warm less cold_excess, median of its processes.
"""
import json
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import diag_runs  # noqa: E402

SHORT = ["1ms", "4ms", "16ms"]
LONG = ["64ms", "256ms", "1s"]


def fail(message):
    print(f"fit_cold_prefetch.py: {message}", file=sys.stderr)
    sys.exit(1)


def runs(directory, trace):
    return diag_runs.runs(directory, trace, fail)


def phase(path, times, name):
    return diag_runs.phase(path, times, name, fail, hint="is this the cold-prefetch diagnostic?")


def excess(directory, traces, pauses):
    return [phase(p, t, f"after_{x}") - phase(p, t, f"next_{x}")
            for trace in traces for p, t in runs(directory, trace) for x in pauses]


def first_excess(directory, trace, cold):
    return [phase(p, t, "first") - phase(p, t, "warm") - cold for p, t in runs(directory, trace)]


def main():
    if len(sys.argv) != 2:
        fail("usage: fit_cold_prefetch.py DIAG_DIR")
    directory = sys.argv[1]
    if not os.path.isdir(directory):
        fail(f"{directory}: no such folder")
    sweeps = ["d1_h2d_after_cpu", "d2_d2h_after_cpu"]
    idle = statistics.median(excess(directory, sweeps, SHORT))
    cold = statistics.median(excess(directory, sweeps, LONG))
    first = statistics.median(first_excess(directory, "d1_h2d_after_cpu", cold) +
                              first_excess(directory, "d4_used_then_1s", cold))
    check = statistics.median(first_excess(directory, "d3_first_after_1s", cold))
    print(json.dumps({"idle_call_cost": round(idle), "cold_excess": round(cold),
                      "first_on_gpu_cost": round(first), "check_d3": round(check)}))


if __name__ == "__main__":
    main()
