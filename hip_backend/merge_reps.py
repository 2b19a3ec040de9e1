#!/usr/bin/env python3
"""Merges repeated hardware replays of one trace into one result (same schema).

Times (time_ns, stall_ns) are the median over the repetitions, per scope.
Counter values are the maximum over repetitions: CUPTI's unified-memory event
stream loses events under heavy demand paging (its queue overflows; CUPTI's
dropped-record count stays 0), so each repetition's counts are lower bounds and
the largest is the best estimate. The spread between repetitions is recorded in
hardware.repetitions so a reader can see which counts are unreliable.

usage: merge_reps.py REP.json... > MERGED.json
"""
import json
import statistics
import sys

TIMES = ("time_ns", "stall_ns")


def merge_counters(cs):
    out = {}
    for key in cs[0]:
        vals = [c.get(key, 0) for c in cs]
        out[key] = int(statistics.median(vals)) if key in TIMES else max(vals)
    return out


def spread(vals):
    lo, hi = min(vals), max(vals)
    return 0.0 if hi == 0 else round((hi - lo) / hi, 4)


def main(paths):
    reps = [json.load(open(p)) for p in paths]
    base = reps[0]
    merged = dict(base)
    merged["total"] = merge_counters([r["total"] for r in reps])
    for scope in ("kernels", "phases"):
        merged[scope] = []
        for i, s in enumerate(base[scope]):
            m = dict(s)
            m["counters"] = merge_counters([r[scope][i]["counters"] for r in reps])
            m["start_ns"] = int(statistics.median([r[scope][i]["start_ns"] for r in reps]))
            merged[scope].append(m)
    hw = dict(base.get("hardware", {}))
    hw["repetitions"] = {
        "files": paths,
        "merge": "times: median; counters: maximum (UM events can be lost, see docs/validation.md)",
        "total_time_spread": spread([r["total"]["time_ns"] for r in reps]),
        "bytes_h2d_spread": spread([r["total"]["bytes_h2d"] for r in reps]),
        "bytes_d2h_spread": spread([r["total"]["bytes_d2h"] for r in reps]),
        "fault_batches_spread": spread([r["total"]["fault_batches"] for r in reps]),
    }
    merged["hardware"] = hw
    json.dump(merged, sys.stdout, indent=2)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main(sys.argv[1:])
