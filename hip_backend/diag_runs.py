"""Phase and kernel times of replay results, for the scripts that fit on them.

A diagnostic folder holds `umsim-hip replay` results named TRACE.rN.json (one
per process). Each function takes `fail`, the calling script's way to print
its own error and exit.
"""
import glob
import json
import os


def scope_times(path, scopes, fail):
    """[(name, time in ns as the result gives it)] of one replay result's
    `scopes` ("phases" or "kernels"), in the trace's order."""
    try:
        with open(path) as f:
            data = json.load(f)
        return [(s["name"], s["counters"]["time_ns"]) for s in data[scopes]]
    except (OSError, ValueError, KeyError, TypeError) as e:
        fail(f"{path}: not a replay result with {scopes[:-1]} times ({type(e).__name__}: {e})")


def phase_times(path, fail):
    """{phase name: time in ns} of one replay result."""
    return {name: float(t) for name, t in scope_times(path, "phases", fail)}


def kernel_times(path, fail):
    """[(kernel name, time in ns)] of one replay result, in the trace's order."""
    return [(name, float(t)) for name, t in scope_times(path, "kernels", fail)]


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
