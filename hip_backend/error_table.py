#!/usr/bin/env python3
"""Aggregates `umsim compare --json` outputs of the validation suite into the
published error table (Markdown): per metric group, the median and worst
absolute relative errors over all compared kernel / phase scopes, and the
worst cases with their trace and scope.

Metric groups:
  time      time_ns of every kernel and phase (phases of pure host work included)
            lasting at least 50 us on either side
  bytes     bytes_h2d and bytes_d2h of every kernel, phase and total where either
            side moved at least 1 MiB; "complete captures" keeps the traces whose
            three hardware repetitions agree on the bytes within 1%
  batches   fault_batches of every kernel where either side counted a batch

usage: error_table.py COMPARE.json... > TABLE.md
"""
import json
import os
import statistics
import sys

MiB = 1 << 20
# Scopes shorter than this on both sides (e.g. an empty "main" phase) are timer
# and synchronisation noise, not model error.
MIN_TIME_NS = 50_000


def rows_of(path):
    c = json.load(open(path))
    name = os.path.basename(path).replace(".compare.json", "")
    for r in c["rows"]:
        yield name, r


def capture_complete(path):
    """Whether the hardware repetitions agree on the bytes moved (within 1%):
    CUPTI loses UM events under heavy demand paging, and then they do not."""
    c = json.load(open(path))
    hw = json.load(open(c["hw"]))
    reps = hw.get("hardware", {}).get("repetitions", {})
    return reps.get("bytes_h2d_spread", 0) <= 0.01 and reps.get("bytes_d2h_spread", 0) <= 0.01


def select(paths, byte_captures=True):
    """Rows by metric group. byte_captures=False skips reading the merged
    hardware results that `capture_complete` needs (a committed comparison may
    name a merged file that was not kept): the complete-capture group is then
    empty, and every other group is the same."""
    groups = {"time": [], "bytes": [], "bytes (complete captures)": [], "batches": []}
    for p in paths:
        complete = byte_captures and capture_complete(p)
        for trace, r in rows_of(p):
            scope, metric, sim, hw = r["scope"], r["metric"], r["sim"], r["hw"]
            err = r["rel_error"]
            if metric == "time_ns" and scope != "total" and max(sim, hw) >= MIN_TIME_NS:
                groups["time"].append((trace, scope, sim, hw, err))
            elif metric in ("bytes_h2d", "bytes_d2h") and max(sim, hw) >= MiB:
                groups["bytes"].append((trace, scope + " " + metric, sim, hw, err))
                if complete:
                    groups["bytes (complete captures)"].append((trace, scope + " " + metric, sim, hw, err))
            elif metric == "fault_batches" and scope.startswith("kernel") and max(sim, hw) > 0:
                groups["batches"].append((trace, scope, sim, hw, err))
    return groups


def fmt_err(e):
    return "inf (hw 0)" if e is None else f"{e * 100:+.1f}%"


def main(paths):
    groups = select(paths)
    print("| metric | compared | median abs error | within 10% | worst |")
    print("|---|---|---|---|---|")
    for g, rows in groups.items():
        if not rows:
            continue
        errs = [abs(e) if e is not None else float("inf") for *_, e in rows]
        within = sum(1 for e in errs if e <= 0.10)
        print(f"| {g} | {len(rows)} | {statistics.median(errs) * 100:.1f}% | {within}/{len(rows)} | "
              f"{max(errs) * 100 if max(errs) != float('inf') else float('inf'):.1f}% |")
    incomplete = sorted({os.path.basename(p).replace(".compare.json", "") for p in paths if not capture_complete(p)})
    print(f"\nHardware byte counts incomplete (repetitions disagree by more than 1%): {', '.join(incomplete) or 'none'}")
    for g, rows in groups.items():
        if g == "bytes (complete captures)":
            continue
        print(f"\n### {g}: worst cases\n")
        print("| trace | scope | sim | hw | error |")
        print("|---|---|---|---|---|")
        ranked = sorted(rows, key=lambda r: -(abs(r[4]) if r[4] is not None else float("inf")))
        for trace, scope, sim, hw, err in ranked[:8]:
            print(f"| {trace} | {scope} | {sim} | {hw} | {fmt_err(err)} |")
    print("\n### per trace: median abs time error\n")
    print("| trace | kernels+phases | median abs time error |")
    print("|---|---|---|")
    by_trace = {}
    for trace, scope, sim, hw, err in groups["time"]:
        by_trace.setdefault(trace, []).append(abs(err))
    for trace in sorted(by_trace):
        print(f"| {trace} | {len(by_trace[trace])} | {statistics.median(by_trace[trace]) * 100:.1f}% |")


if __name__ == "__main__":
    main(sys.argv[1:])
