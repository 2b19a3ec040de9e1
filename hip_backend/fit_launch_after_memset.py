#!/usr/bin/env python3
"""Fits host.launch_after_memset_cost from runs of traces/probe/launch_after_memset.umt.

The first kernel after a managed memset takes host time that its own events do
not see (about 300 us on an H200, even after the memset was synchronised; the
kernel after it takes 8-9 us): per run, the "kernel" phase's time less the
"update" kernel's, and the key is the median over the runs less the profile's
host.sync_return_cost where it has one (the phase ends when its sync returns,
which that key charges) (docs/validation.md, "Diagnostics in the same call").

usage: fit_launch_after_memset.py PROFILE.toml OUT.toml RUN.json [RUN.json ...]
Each RUN.json is an `umsim-hip replay` result of the trace. PROFILE.toml must
have the key in its [host] table (its comment is kept). OUT.toml is written
through a temporary file and renamed; an OUT.toml that names an input is refused.
"""

import json
import os
import statistics
import sys

from diag_runs import scope_times
from host_rescale import duration_ns, profile_values
from tune_profile import names_an_input, set_values

KEY = "host.launch_after_memset_cost"
SYNC_RETURN_KEY = "host.sync_return_cost"


def fail(message):
    sys.exit(f"fit_launch_after_memset.py: {message}")


def gap_ns(path):
    phases = dict(scope_times(path, "phases", fail))
    kernels = dict(scope_times(path, "kernels", fail))
    if "kernel" not in phases or "update" not in kernels:
        fail(f"{path}: expected a phase 'kernel' and a kernel 'update' "
             "(a run of traces/probe/launch_after_memset.umt)")
    gap = phases["kernel"] - kernels["update"]
    if gap < 0:
        fail(f"{path}: phase 'kernel' ({phases['kernel']} ns) is shorter than "
             f"its kernel ({kernels['update']} ns)")
    return gap


def main():
    if len(sys.argv) < 4:
        sys.exit("usage: fit_launch_after_memset.py PROFILE.toml OUT.toml RUN.json [RUN.json ...]")
    profile, out, runs = sys.argv[1], sys.argv[2], sys.argv[3:]
    if names_an_input(out, [profile] + runs):
        fail(f"OUT.toml '{out}' names an input")
    gaps = [gap_ns(r) for r in runs]
    with open(profile) as f:
        text = f.read()
    values = profile_values(text)
    if KEY not in values:
        fail(f"{profile}: no {KEY} key in its [host] table to update")
    sync_return = duration_ns(values[SYNC_RETURN_KEY], SYNC_RETURN_KEY, profile) if SYNC_RETURN_KEY in values else 0
    value = round(statistics.median(gaps) - sync_return)
    if value < 0:
        fail(f"the runs' median gap ({statistics.median(gaps):.0f} ns) is shorter "
             f"than {SYNC_RETURN_KEY} ({sync_return:.0f} ns)")
    updated = set_values(text, {KEY: f'"{value}ns"'})
    tmp = out + ".tmp"
    with open(tmp, "w") as f:
        f.write(updated)
    os.replace(tmp, out)
    print(json.dumps({"key": KEY, "value_ns": value, "runs_ns": gaps, "out": out}))


if __name__ == "__main__":
    main()
