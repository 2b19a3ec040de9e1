#!/usr/bin/env python3
"""Fit the small prefetch to the CPU from two diagnostics.

usage: fit_d2h_prefetch.py D2H_SMALL_DIR COLD_PREFETCH_DIR

D2H_SMALL_DIR holds hip_backend/results/h200-pcie5/diag_d2h_small (three
processes of each trace in its traces/ folder), COLD_PREFETCH_DIR
hip_backend/results/h200-pcie5/diag_cold_prefetch. Every trace first moves its
allocation to gpu0, so the CPU holds none of its pages, then prefetches parts
of it back to the CPU with no pause between calls:
  e1_d2h_sizes: 64 KiB (first), another 64 KiB in a new VA block
    (fresh_64KiB), a third beside it (same_64KiB), then larger sizes;
  e2_d2h_blocks: 64 KiB (first), sixteen 64 KiB in one VA block (one_block,
    whose first call is the allocation's second to the CPU), then sixteen each
    in a VA block of its own (own_blocks);
  d2_d2h_after_cpu: 64 KiB (first), 64 KiB beside it (warm), then pairs of
    64 KiB prefetches after pauses; next_1ms, next_4ms and next_16ms are the
    ones right after another (a warm path).

Every first 64 KiB of these lands in a VA block the CPU holds none of, every
later one (same_, warm, next_) in one it holds pages of. Prints, as JSON, in ns:
  next_on_cpu_cost: the process's second prefetch to the CPU less a later one
    (d2: warm - the median of next_1ms/4ms/16ms), median of the processes;
  to_cpu_va_block_cost: what a VA block the CPU holds none of adds (e2:
    own_blocks - one_block, plus one_block's first call's next_on_cpu_cost,
    over the fifteen blocks more), median of the processes;
  first_on_cpu_cost: the process's first prefetch to the CPU less a later one
    and less that block cost (e1: first - same_64KiB; d2: first - the median
    above; e2: first - (one_block less its first call's extras) / 16), median
    over the nine processes;
  check_e1_second: e1's fresh_64KiB - same_64KiB (the second call, in a new
    block), median, against next_on_cpu_cost + to_cpu_va_block_cost.
"""
import json
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import diag_runs  # noqa: E402

WARM_D2 = ["next_1ms", "next_4ms", "next_16ms"]


def fail(message):
    print(f"fit_d2h_prefetch.py: {message}", file=sys.stderr)
    sys.exit(1)


def runs(directory, trace):
    return diag_runs.runs(directory, trace, fail)


def phase(path, times, name):
    return diag_runs.phase(path, times, name, fail)


def main():
    if len(sys.argv) != 3:
        fail("usage: fit_d2h_prefetch.py D2H_SMALL_DIR COLD_PREFETCH_DIR")
    small, cold = sys.argv[1], sys.argv[2]
    for directory in (small, cold):
        if not os.path.isdir(directory):
            fail(f"{directory}: no such folder")
    d2 = runs(cold, "d2_d2h_after_cpu")
    steady_d2 = {p: statistics.median(phase(p, t, x) for x in WARM_D2) for p, t in d2}
    next_cost = statistics.median(phase(p, t, "warm") - steady_d2[p] for p, t in d2)
    e2 = runs(small, "e2_d2h_blocks")
    block = statistics.median((phase(p, t, "own_blocks") - phase(p, t, "one_block") + next_cost) / 15 for p, t in e2)
    first, check = [], []
    for p, t in runs(small, "e1_d2h_sizes"):
        warm = phase(p, t, "same_64KiB")
        first.append(phase(p, t, "first") - warm - block)
        check.append(phase(p, t, "fresh_64KiB") - warm)
    for p, t in d2:
        first.append(phase(p, t, "first") - steady_d2[p] - block)
    for p, t in e2:
        warm = (phase(p, t, "one_block") - next_cost - block) / 16
        first.append(phase(p, t, "first") - warm - block)
    print(json.dumps({"first_on_cpu_cost": round(statistics.median(first)), "next_on_cpu_cost": round(next_cost),
                      "to_cpu_va_block_cost": round(block), "check_e1_second": round(statistics.median(check))}))


if __name__ == "__main__":
    main()
