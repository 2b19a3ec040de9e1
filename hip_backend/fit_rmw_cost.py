#!/usr/bin/env python3
"""Fits gpu.rmw_cost from runs of traces/probe/launch_after_memset.umt.

That trace's second kernel ("update2") reads and writes back 256 MiB of
resident memory with every store depending on its load, beside 100 us of
compute. On the H200 it takes 243-251 us in every calibration of sessions
41-86, where a separate read and write of the same bytes, and kernels that
read one range and write another beside their compute, come out right in the
model (docs/validation.md, "Stores that wait for their loads"). The key is the
cost per transaction unit (gpu.access_unit) of such stores beyond a plain
store's: per folder, (the runs' median kernel time less the model's with the
key at 0) / the model's units, found by simulating the trace with the key at
0 and at 1 ns (the kernel time is linear in it).

usage: fit_rmw_cost.py UMSIM PROFILE.toml TRACE DIR [DIR ...]
TRACE is traces/probe/launch_after_memset.umt; each DIR holds one call's runs
of it, launch_after_memset.r*.json (`umsim-hip replay` results; a
calibration's folder). PROFILE.toml is the profile whose other keys the model
uses (its gpu.rmw_cost is ignored). Prints JSON: each folder's value, and
their median as value_ns.
"""

import glob
import json
import os
import statistics
import subprocess
import sys
import tempfile

from diag_runs import scope_times
from tune_profile import set_values

KEY = "gpu.rmw_cost"
KERNEL = "update2"


def fail(message):
    sys.exit(f"fit_rmw_cost.py: {message}")


def kernel_ns(path):
    kernels = dict(scope_times(path, "kernels", fail))
    if KERNEL not in kernels:
        fail(f"{path}: expected a kernel '{KERNEL}' (a run of traces/probe/launch_after_memset.umt)")
    return kernels[KERNEL]


def with_rmw_cost(text, value):
    """The profile with gpu.rmw_cost set, added to its [gpu] table where absent."""
    lines, section, found = text.splitlines(), "", False
    for line in lines:
        s = line.strip()
        if s.startswith("["):
            section = s[1:s.index("]")]
        elif section == "gpu" and s.split("=", 1)[0].strip() == "rmw_cost":
            found = True
    if found:
        return set_values(text, {KEY: value})
    if "[gpu]" not in [line.split("#", 1)[0].strip() for line in lines]:
        fail("the profile has no [gpu] table")
    out = []
    for line in lines:
        out.append(line)
        if line.split("#", 1)[0].strip() == "[gpu]":
            out.append(f"rmw_cost = {value}")
    return "\n".join(out) + "\n"


def model_ns(umsim, trace, text, value, tmp):
    profile = os.path.join(tmp, f"profile_{len(os.listdir(tmp))}.toml")
    with open(profile, "w") as f:
        f.write(with_rmw_cost(text, value))
    out = profile + ".json"
    try:
        run = subprocess.run([umsim, "replay", trace, "--profile", profile, "--json", out, "-q"],
                             capture_output=True, text=True)
    except OSError as e:
        fail(f"{umsim}: {e.strerror}")
    if run.returncode != 0:
        fail(f"{umsim} replay {trace} failed (exit {run.returncode}): {run.stderr.strip()}")
    return kernel_ns(out)


def main():
    if len(sys.argv) < 5:
        sys.exit("usage: fit_rmw_cost.py UMSIM PROFILE.toml TRACE DIR [DIR ...]")
    umsim, profile, trace, dirs = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
    try:
        with open(profile) as f:
            text = f.read()
    except OSError as e:
        fail(f"{profile}: {e.strerror}")
    measured = {}
    for d in dirs:
        if not os.path.isdir(d):
            fail(f"{d}: no such folder")
        runs = sorted(glob.glob(os.path.join(d, "launch_after_memset.r*.json")))
        if not runs:
            fail(f"{d}: no runs of the trace (launch_after_memset.r*.json)")
        measured[d] = statistics.median(kernel_ns(r) for r in runs)
    with tempfile.TemporaryDirectory() as tmp:
        without = model_ns(umsim, trace, text, '"0ns"', tmp)
        per_ns = model_ns(umsim, trace, text, '"1ns"', tmp) - without
    if per_ns <= 0:
        fail(f"the model's '{KERNEL}' kernel does not grow with {KEY}: no read-modify-write stores in {trace}?")
    values = {d: max(0.0, (hw - without) / per_ns) for d, hw in measured.items()}
    print(json.dumps({"key": KEY, "value_ns": statistics.median(values.values()), "units": per_ns,
                      "model_without_ns": without, "measured_ns": measured, "values_ns": values}, indent=1))


if __name__ == "__main__":
    main()
