#!/usr/bin/env python3
"""Splits a fault service's cost into its VA block and its copy runs, from a
diagnostic of demand faults on 64 KiB regions spread over VA blocks
(hip_backend/results/h200-pcie5/diag_fault_runs: 16, 4 and 1 separate regions
per block, pairs and quads side by side, random regions).

For every pair (faults.va_block_cost, faults.run_cost) of the grid, the
profile is brought to the diagnostic's host by host_rescale.py with the same
call's host probe runs (as a validation of that call would), each diagnostic
trace is replayed, and the pair whose kernel times are closest to the
hardware's medians (mean absolute relative error) wins. The winner is then
written at the reference host of PROFILE: va_block_cost, run_cost, page_cost
and migrated_page_cost are multiplied by one factor so that the profile gives
the probe's bulk-fault kernels the time PROFILE gave them; the other keys stay.

usage: fit_fault_runs.py [--va-us LIST] [--run-us LIST] PROFILE.toml UMSIM PROBE_TRACE DIAG_DIR OUT.toml PROBE_RUN.json...
LIST: comma-separated microseconds (defaults below). DIAG_DIR holds traces/*.umt
and NAME.rN.json, one kernel each. OUT.toml is written through a temporary
file and renamed; an OUT.toml that names an input is refused.
"""

import glob
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile

from diag_runs import kernel_times
from host_rescale import duration_ns, profile_values
from tune_profile import names_an_input, replay_profile_text

NAME = "fit_fault_runs.py"
VA_US = [0, 2, 4, 6, 8, 12, 20]
RUN_US = [0, 1, 2, 3, 4, 5, 7]
SCALED = ["va_block_cost", "run_cost", "page_cost", "migrated_page_cost"]  # [faults] keys moved together
BULK_KERNEL = "touch"  # the probe's bulk-fault kernels (host_rescale.py)


def fail(message):
    sys.exit(f"{NAME}: {message}")


def microseconds(text, flag):
    try:
        values = [float(v) for v in text.split(",")]
    except ValueError:
        fail(f"{flag} {text}: expected comma-separated microseconds")
    if not values or min(values) < 0:
        fail(f"{flag} {text}: expected values of 0 or more")
    return values


def diagnostic_runs(folder):
    """{trace path: median hardware kernel time} for every trace of the folder."""
    traces = sorted(glob.glob(os.path.join(folder, "traces", "*.umt")))
    if not traces:
        fail(f"{folder}: no traces/*.umt")
    hardware = {}
    for trace in traces:
        name = os.path.basename(trace)[:-4]
        runs = sorted(glob.glob(os.path.join(folder, f"{name}.r*.json")))
        if not runs:
            fail(f"{folder}: no runs of {name} ({name}.r1.json ...)")
        times = []
        for run in runs:
            kernels = kernel_times(run, fail)
            if not kernels:
                fail(f"{run}: not a replay result with kernel times (no kernel)")
            times.append(kernels[0][1])
        hardware[trace] = statistics.median(times)
    return hardware


def faults_table(text):
    """(start, end) of the profile's [faults] table's body in `text`."""
    start = re.search(r"^\[faults\][^\n]*\n", text, flags=re.M)
    if not start:
        fail("the profile has no [faults] table")
    end = re.search(r"^\[", text[start.end():], flags=re.M)
    return start.end(), start.end() + end.start() if end else len(text)


def faults_table_set(text, values):
    """The profile with these [faults] keys (name -> ns) set, added to the table where absent."""
    start, end = faults_table(text)
    table = text[start:end]
    for key, ns in values.items():
        line = f'{key} = "{round(ns)}ns"'
        if re.search(rf"^{key}\s*=", table, flags=re.M):
            table = re.sub(rf'^{key}\s*=\s*("[^"]*"|[0-9]+)', line, table, count=1, flags=re.M)
        else:
            table += line + "\n"
    return text[:start] + table + text[end:]


def faults_values(text, path):
    """{key: ns} of the scaled [faults] keys (run_cost 0 where absent)."""
    faults_table(text)  # refuses a profile without the table
    values = profile_values(text)
    out = {}
    for key in SCALED:
        name = f"faults.{key}"
        if name not in values:
            if key == "run_cost":
                out[key] = 0.0
                continue
            fail(f"the profile has no {name}")
        out[key] = duration_ns(values[name], name, path)
    return out


def bulk_time(umsim, probe_trace, text, tmp, tag):
    r = replay_profile_text(umsim, probe_trace, text, tmp, tag)
    return sum(k["counters"]["time_ns"] for k in r["kernels"] if k["name"] == BULK_KERNEL)


def main():
    args = sys.argv[1:]
    va_us, run_us = VA_US, RUN_US
    while args[:1] in (["--va-us"], ["--run-us"]):
        if len(args) < 2:
            fail(f"{args[0]} needs a value")
        if args[0] == "--va-us":
            va_us = microseconds(args[1], args[0])
        else:
            run_us = microseconds(args[1], args[0])
        args = args[2:]
    if len(args) < 6:
        fail("usage: fit_fault_runs.py [--va-us LIST] [--run-us LIST] PROFILE.toml UMSIM PROBE_TRACE DIAG_DIR "
             "OUT.toml PROBE_RUN.json...")
    profile, umsim, probe_trace, folder, out, probes = args[0], os.path.abspath(args[1]), args[2], args[3], args[4], args[5:]
    if names_an_input(out, [profile, umsim, probe_trace] + probes):
        fail(f"OUT.toml '{out}' names an input")
    hardware = diagnostic_runs(folder)
    with open(profile) as f:
        text = f.read()
    base = faults_values(text, profile)
    rescale = os.path.join(os.path.dirname(os.path.abspath(__file__)), "host_rescale.py")
    grid = []
    with tempfile.TemporaryDirectory() as tmp:
        for va in va_us:
            for run in run_us:
                candidate = os.path.join(tmp, "candidate.toml")
                with open(candidate, "w") as f:
                    f.write(faults_table_set(text, {"va_block_cost": va * 1e3, "run_cost": run * 1e3}))
                at_host = os.path.join(tmp, "at_host.toml")
                done = subprocess.run([sys.executable, rescale, candidate, umsim, probe_trace, at_host] + probes,
                                      capture_output=True, text=True)
                if done.returncode != 0:
                    fail(f"host_rescale.py failed: {done.stderr.strip()}")
                with open(at_host) as f:
                    host_text = f.read()
                errors = {}
                for trace, hw in hardware.items():
                    r = replay_profile_text(umsim, trace, host_text, tmp, "diag")
                    errors[os.path.basename(trace)[:-4]] = (r["kernels"][0]["counters"]["time_ns"] - hw) / hw
                grid.append((statistics.mean(abs(e) for e in errors.values()), va, run, errors))
        score, va, run, errors = min(grid, key=lambda g: g[0])
        # Back to PROFILE's reference host: one factor on the scaled keys keeps
        # the probe's bulk-fault kernels where PROFILE had them (bisection).
        target = bulk_time(umsim, probe_trace, text, tmp, "reference")
        chosen = dict(base, va_block_cost=va * 1e3, run_cost=run * 1e3)
        lo, hi = 0.125, 8.0
        for _ in range(16):
            mid = (lo * hi) ** 0.5
            t = bulk_time(umsim, probe_trace, faults_table_set(text, {k: v * mid for k, v in chosen.items()}), tmp, "scaled")
            lo, hi = (mid, hi) if t < target else (lo, mid)
        factor = (lo * hi) ** 0.5
        fitted = {k: v * factor for k, v in chosen.items()}
        updated = faults_table_set(text, fitted)
        check = bulk_time(umsim, probe_trace, updated, tmp, "check")
    tmp_out = out + ".tmp"
    with open(tmp_out, "w") as f:
        f.write(updated)
    os.replace(tmp_out, out)
    print(json.dumps({"va_block_cost_us": va, "run_cost_us": run, "mean_abs_error": round(score, 4),
                      "errors": {k: round(v, 4) for k, v in errors.items()}, "factor": round(factor, 4),
                      "fitted_ns": {k: round(v) for k, v in fitted.items()}, "probe_bulk_ns": [target, check],
                      "out": out}))


if __name__ == "__main__":
    main()
