#!/usr/bin/env python3
"""Fit the lanes of a managed memset's fill kernel from a diagnostic.

usage: fit_fill_lanes.py UMSIM PROFILE DIAG_DIR

DIAG_DIR holds hip_backend/results/h200-pcie5/diag_memset_sizes: replays of
traces/memset_sizes.umt (there), memset_sizes.rN.json, one per process. The
trace memsets fresh managed buffers of 4 - 256 MiB on gpu0 (phases
memset_<size>), then writes fresh buffers of the same sizes from a kernel
(phases kernel_<size>). On the H200 the memset takes about 1.5x the kernel's
time from 64 MiB up: the runtime's fill kernel faults in more, smaller batches
than a kernel writing the range.

The model replays the memset as a kernel writing the range whose stores sweep
gpu.fill_lanes interleaved slices (a trace kernel: gpu.access_lanes). For each
lane count 1..64 this replays the trace under PROFILE with gpu.fill_lanes set,
and keeps the one whose memset-to-kernel time ratios at 64 and 256 MiB are
closest to the hardware's (the median over processes of each process's
ratio; squared log error summed over the two sizes; the smaller count on a
tie). The ratio leaves out the host's speed, which moves both alike; the
smaller sizes are left out, since fixed costs of the call, not the faults,
set them. Prints, as JSON: fill_lanes, and per size the hardware's and the
fitted model's ratio.
"""
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import diag_runs  # noqa: E402

TRACE = "memset_sizes"
SIZES = ["64MiB", "256MiB"]
MAX_LANES = 64


def fail(message):
    print(f"fit_fill_lanes.py: {message}", file=sys.stderr)
    sys.exit(1)


def ratios(path, times):
    return {s: diag_runs.phase(path, times, f"memset_{s}", fail) / diag_runs.phase(path, times, f"kernel_{s}", fail)
            for s in SIZES}


def with_fill_lanes(profile_text, lanes):
    """The profile with [gpu] fill_lanes = lanes (replaced, or added to [gpu])."""
    out, section, done = [], "", False
    for line in profile_text.splitlines():
        stripped = line.strip()
        if stripped.startswith("["):
            section = stripped[1:stripped.index("]")]
            out.append(line)
            if section == "gpu":
                out.append(f"fill_lanes = {lanes}")
                done = True
            continue
        if section == "gpu" and stripped.split("=", 1)[0].strip() == "fill_lanes":
            continue
        out.append(line)
    if not done:
        fail("the profile has no [gpu] table")
    return "\n".join(out) + "\n"


def model_ratios(umsim, profile_text, trace, lanes, tmp):
    profile = os.path.join(tmp, "profile.toml")
    result = os.path.join(tmp, "result.json")
    with open(profile, "w") as f:
        f.write(with_fill_lanes(profile_text, lanes))
    run = subprocess.run([umsim, "replay", trace, "--profile", profile, "--json", result, "-q"],
                         capture_output=True, text=True)
    if run.returncode != 0:
        fail(f"{umsim} replay {trace} with fill_lanes = {lanes} failed: {run.stderr.strip()}")
    return ratios(result, diag_runs.phase_times(result, fail))


def main():
    if len(sys.argv) != 4:
        fail("usage: fit_fill_lanes.py UMSIM PROFILE DIAG_DIR")
    umsim, profile, directory = sys.argv[1:]
    if not os.path.isdir(directory):
        fail(f"{directory}: no such folder")
    trace = os.path.join(directory, "traces", f"{TRACE}.umt")
    if not os.path.isfile(trace):
        fail(f"{directory}: no traces/{TRACE}.umt beside the replays")
    try:
        profile_text = open(profile).read()
    except OSError as e:
        fail(f"{profile}: cannot read it ({e})")
    per_process = [ratios(path, times) for path, times in diag_runs.runs(directory, TRACE, fail)]
    hardware = {s: statistics.median(r[s] for r in per_process) for s in SIZES}
    best = None
    with tempfile.TemporaryDirectory() as tmp:
        for lanes in range(1, MAX_LANES + 1):
            model = model_ratios(umsim, profile_text, trace, lanes, tmp)
            score = sum(math.log(model[s] / hardware[s]) ** 2 for s in SIZES)
            if best is None or score < best[0]:
                best = (score, lanes, model)
    _, lanes, model = best
    report = {"fill_lanes": lanes}
    for s in SIZES:
        report[f"hardware_ratio_{s}"] = round(hardware[s], 3)
        report[f"model_ratio_{s}"] = round(model[s], 3)
    print(json.dumps(report))


if __name__ == "__main__":
    main()
