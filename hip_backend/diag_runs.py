"""Phase times of a diagnostic's replays, for the scripts that fit on them.

A diagnostic folder holds `umsim-hip replay` results named TRACE.rN.json (one
per process). Each function takes `fail`, the calling script's way to print
its own error and exit.
"""
import glob
import json
import os


def phase_times(path, fail):
    """{phase name: time in ns} of one replay result."""
    try:
        data = json.load(open(path))
        return {p["name"]: float(p["counters"]["time_ns"]) for p in data["phases"]}
    except (OSError, ValueError, KeyError, TypeError) as e:
        fail(f"{path}: not a replay result with phase times ({e})")


def kernel_times(path, fail):
    """[(kernel name, time in ns)] of one replay result, in the trace's order."""
    try:
        data = json.load(open(path))
        return [(k["name"], float(k["counters"]["time_ns"])) for k in data["kernels"]]
    except (OSError, ValueError, KeyError, TypeError) as e:
        fail(f"{path}: not a replay result with kernel times ({e})")


def runs(directory, trace, fail):
    """[(path, phase times)] of every replay of TRACE in DIRECTORY; none is an error."""
    paths = sorted(glob.glob(os.path.join(directory, f"{trace}.r*.json")))
    if not paths:
        fail(f"{directory}: no replays of {trace} ({trace}.rN.json)")
    return [(path, phase_times(path, fail)) for path in paths]


def phase(path, times, name, fail, hint="is this the right diagnostic?"):
    """One phase's time; a missing phase is an error naming the file."""
    if name not in times:
        fail(f"{path}: no phase '{name}' ({hint})")
    return times[name]
