#!/usr/bin/env python3
"""Fits two keys of kernels running beside another stream's kernel.

host.other_stream_launch_gap: two kernels launched back to back on two
streams of one GPU start tens of microseconds apart, however soon the host
launched the second. Measured per run as the second kernel's start less the
first's (the --gap runs: pairs whose streams both existed before the first
launch); the key is the median, which the model then gives exactly.

gpu.compute_beside_faults: a kernel that only computes (its compute kernel
named "compute_only") runs slower while its GPU services another kernel's
demand faults. The --rate runs' traces (results' traces/NAME.umt) are replayed
with the rate at every hundredth from 0.01 to 1 (the gap set as fitted); the
key is the rate whose simulated compute_only times are closest to the
hardware's median per trace (least mean absolute log error).

usage: fit_compute_beside_faults.py PROFILE.toml UMSIM OUT.toml --gap RUN.json... --rate RUN.json...
Each RUN.json is a umsim-hip result; its trace is traces/NAME.umt beside it
(NAME: the file name up to the first dot). OUT.toml is written through a
temporary file and renamed; an OUT.toml that names an input is refused.
"""

import json
import math
import os
import statistics
import sys
import tempfile

from tune_profile import names_an_input, replay_profile_text, set_or_add_values

NAME = "fit_compute_beside_faults.py"
GAP, RATE = "host.other_stream_launch_gap", "gpu.compute_beside_faults"
COMPUTE_KERNEL = "compute_only"


def fail(message):
    sys.exit(f"{NAME}: {message}")


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        fail(f"{path}: not a result ({e})")


def start_gap(path):
    """The second kernel's start less the first's, of a result with two kernels on two streams."""
    try:
        starts = sorted(k["start_ns"] for k in load(path)["kernels"])
    except (KeyError, TypeError) as e:
        fail(f"{path}: expected kernels with start_ns ({e})")
    if len(starts) != 2:
        fail(f"{path}: expected two kernels, found {len(starts)}")
    return starts[1] - starts[0]


def compute_time(result, path):
    try:
        times = [k["counters"]["time_ns"] for k in result["kernels"] if k["name"] == COMPUTE_KERNEL]
    except (KeyError, TypeError) as e:
        fail(f"{path}: expected kernels with counters ({e})")
    if len(times) != 1:
        fail(f"{path}: expected one kernel named {COMPUTE_KERNEL}, found {len(times)}")
    return times[0]


def trace_of(run):
    name = os.path.basename(run).split(".")[0]
    path = os.path.join(os.path.dirname(run), "traces", name + ".umt")
    if not os.path.exists(path):
        fail(f"{run}: its trace {path} is missing")
    return path


def with_keys(text, gap_ns, rate):
    try:
        return set_or_add_values(text, {GAP: f'"{round(gap_ns)}ns"', RATE: f"{rate:.2f}"})
    except KeyError as e:
        fail(f"the profile has no [{str(e).strip(chr(39))}] table")


def main():
    args = sys.argv[1:]
    if len(args) < 3 or "--gap" not in args or "--rate" not in args:
        fail("usage: fit_compute_beside_faults.py PROFILE.toml UMSIM OUT.toml --gap RUN.json... --rate RUN.json...")
    profile, umsim, out = args[:3]
    g, r = args.index("--gap"), args.index("--rate")
    if not (g == 3 and r > g + 1 and r < len(args) - 1):
        fail("expected --gap RUN.json... then --rate RUN.json... after PROFILE.toml UMSIM OUT.toml")
    gap_runs, rate_runs = args[g + 1:r], args[r + 1:]
    if names_an_input(out, [profile, umsim] + gap_runs + rate_runs):
        fail(f"OUT.toml '{out}' names an input")
    gap = statistics.median(start_gap(p) for p in gap_runs)
    by_trace = {}
    for run in rate_runs:
        by_trace.setdefault(trace_of(run), []).append(compute_time(load(run), run))
    hardware = {t: statistics.median(v) for t, v in by_trace.items()}
    with open(profile) as f:
        text = f.read()
    best = None
    with tempfile.TemporaryDirectory() as tmp:
        for hundredths in range(1, 101):
            rate = hundredths / 100
            toml = with_keys(text, gap, rate)
            errors = {}
            for n, (trace, hw) in enumerate(sorted(hardware.items())):
                tag = f"r{hundredths}_{n}"
                sim = compute_time(replay_profile_text(umsim, trace, toml, tmp, tag), "umsim replay")
                errors[os.path.basename(trace)] = math.log(sim / hw)
            score = statistics.mean(abs(e) for e in errors.values())
            if best is None or score < best[0]:
                best = (score, rate, errors, toml)
    score, rate, errors, updated = best
    tmp_out = out + ".tmp"
    with open(tmp_out, "w") as f:
        f.write(updated)
    os.replace(tmp_out, out)
    print(json.dumps({"fitted": {GAP: round(gap), RATE: rate}, "gap_runs": len(gap_runs),
                      "hw_compute_ns": {os.path.basename(t): v for t, v in sorted(hardware.items())},
                      "error_pct": {t: round(100 * math.expm1(e), 1) for t, e in errors.items()}, "out": out}))


if __name__ == "__main__":
    main()
