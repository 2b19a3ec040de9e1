#!/usr/bin/env python3
"""The structure of the fault services in replays recorded with
`umsim-hip replay --um-records` (docs/validation.md, "The fault service's copies,
complete"): per kernel, the host-to-GPU copies its fault services issued.

usage: fault_structure.py [--json] DIR [DIR ...]

Each DIR holds one call's NAME.rN.json results and their NAME.rN.csv records
(device_run.sh's diag/ folder). For every kernel of every trace: its median
time per DIR (the timing pass, from the JSON), and over all processes of all
DIRs the range of the pages its faults copied (cause 2, coherence), of its
coherence and prefetch copies (causes 2 and 3), of the MiB it moved, and the
median gap between consecutive copy starts. A markdown table, or with --json
one object per kernel. A record file that is not --um-records' CSV is an error
naming the file and line.
"""

import csv
import glob
import json
import os
import statistics
import sys

from diag_runs import kernel_times

NAME = "fault_structure.py"
HEADER = ["kind", "start_ns", "end_ns", "value", "flags", "address", "device", "kernel"]
COHERENCE, PREFETCH = "2", "3"  # CUPTI's migration causes (hip_backend/um_counters.h)


def fail(message):
    sys.exit(f"{NAME}: {message}")


def read_records(path):
    """{kernel index: [(start_ns, bytes, cause)]} of the file's host-to-GPU copies."""
    copies = {}
    with open(path, newline="") as f:
        rows = csv.reader(f)
        if next(rows, None) != HEADER:
            fail(f"{path}:1: expected the header {','.join(HEADER)} (umsim-hip replay --um-records)")
        for line, row in enumerate(rows, start=2):
            if len(row) != len(HEADER):
                fail(f"{path}:{line}: expected {len(HEADER)} fields, found {len(row)}")
            if row[0] != "h2d":
                continue
            try:
                kernel, start, size = int(row[7]), int(row[1]), int(row[3])
            except ValueError:
                fail(f"{path}:{line}: expected integers in start_ns, value and kernel")
            if kernel >= 0:
                copies.setdefault(kernel, []).append((start, size, row[4]))
    return copies


def summarise(dirs):
    per_kernel = {}  # (trace, index) -> {"name", "times": {dir: [ns]}, "processes": [...]}
    for d in dirs:
        records = sorted(glob.glob(os.path.join(d, "*.r*.csv")))
        if not records:
            fail(f"{d}: no NAME.rN.csv records (umsim-hip replay --um-records)")
        for path in records:
            stem = os.path.basename(path)[: -len(".csv")]
            trace = stem.rsplit(".r", 1)[0]
            result = os.path.join(d, stem + ".json")
            if not os.path.exists(result):
                fail(f"{path}: no result {os.path.basename(result)} beside it")
            copies = read_records(path)
            for index, (name, time_ns) in enumerate(kernel_times(result, fail)):
                k = per_kernel.setdefault((trace, index), {"name": name, "times": {}, "processes": []})
                k["times"].setdefault(d, []).append(time_ns)
                mine = sorted(copies.get(index, []))
                starts = [c[0] for c in mine]
                gaps = [b - a for a, b in zip(starts, starts[1:])]
                k["processes"].append({
                    "faulted_pages": sum(c[1] for c in mine if c[2] == COHERENCE) // 4096,
                    "coherence_copies": sum(1 for c in mine if c[2] == COHERENCE),
                    "prefetch_copies": sum(1 for c in mine if c[2] == PREFETCH),
                    "mib": sum(c[1] for c in mine) / 2**20,
                    "gap_ns": statistics.median(gaps) if gaps else None,
                })
    out = []
    for (trace, index), k in sorted(per_kernel.items()):
        p = k["processes"]
        span = lambda key: [min(x[key] for x in p), max(x[key] for x in p)]
        gaps = [x["gap_ns"] for x in p if x["gap_ns"] is not None]
        out.append({
            "trace": trace, "kernel": k["name"],
            "time_ms": [round(statistics.median(k["times"][d]) / 1e6, 2) if d in k["times"] else None for d in dirs],
            "processes": len(p),
            "faulted_pages": span("faulted_pages"), "coherence_copies": span("coherence_copies"),
            "prefetch_copies": span("prefetch_copies"), "mib": [round(v, 1) for v in span("mib")],
            "median_gap_us": round(statistics.median(gaps) / 1e3, 2) if gaps else None,
        })
    return out


def main():
    args = sys.argv[1:]
    as_json = args[:1] == ["--json"]
    dirs = args[1:] if as_json else args
    if not dirs:
        fail("usage: fault_structure.py [--json] DIR [DIR ...]")
    for d in dirs:
        if not os.path.isdir(d):
            fail(f"{d}: not a directory")
    rows = summarise(dirs)
    if as_json:
        for r in rows:
            print(json.dumps(r))
        return
    rng = lambda v: f"{v[0]:,}" if v[0] == v[1] else f"{v[0]:,}-{v[1]:,}"
    print("| trace | kernel | time, ms (median per DIR) | processes | faulted pages | coherence copies "
          "| prefetch copies | MiB moved | median gap between copies, us |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        times = " / ".join("-" if t is None else f"{t:.2f}" for t in r["time_ms"])
        gap = "-" if r["median_gap_us"] is None else f"{r['median_gap_us']:.2f}"
        print(f"| {r['trace']} | {r['kernel']} | {times} | {r['processes']} | {rng(r['faulted_pages'])} "
              f"| {rng(r['coherence_copies'])} | {rng(r['prefetch_copies'])} | {rng(r['mib'])} | {gap} |")


if __name__ == "__main__":
    main()
