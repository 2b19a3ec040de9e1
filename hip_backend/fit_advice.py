#!/usr/bin/env python3
"""Fits the host time of memory-advice calls from runs of traces/probe/advice_costs.umt.

Each advise call of that trace runs alone in its phase, so a phase's time is the
call's host time (cudaMemAdvise returns when the driver has changed the range).
The keys (docs/model.md, "Advice"), from the medians over the runs:
  host.advise_call_cost             phase rm_cpu_twice_64MiB: ReadMostly set again
                                    on pages that have it (nothing changes)
  host.advise_read_mostly_page_cost ReadMostly on pages only the CPU holds (its
                                    writable mapping revoked): phases rm_cpu_*
  host.advise_accessed_by_page_cost AccessedBy gpu0 on CPU-held pages (gpu0 maps
                                    them): phases ab_cpu_*
  host.advise_preferred_page_cost   a preferred location on CPU-held pages:
                                    phases prefcpu_* and prefgpu_*
A per-page key is the phases' summed time less one call cost each, over their
summed pages (the size in the phase's name, MiB of 4 KiB pages): the larger
calls weigh most, as in the traces that advise whole buffers.

usage: fit_advice.py PROFILE.toml OUT.toml RUN.json [RUN.json ...]
Each RUN.json is an `umsim-hip replay` result of the trace. PROFILE.toml must
have the four keys in its [host] table (their comments are kept). OUT.toml is
written through a temporary file and renamed; an OUT.toml that names an input
is refused.
"""

import json
import os
import re
import statistics
import sys

from diag_runs import scope_times
from host_rescale import profile_values
from tune_profile import names_an_input, set_values

CALL_PHASE = "rm_cpu_twice_64MiB"
PAGE_KEYS = {  # key: phase-name prefixes whose calls it prices
    "host.advise_read_mostly_page_cost": ("rm_cpu_",),
    "host.advise_accessed_by_page_cost": ("ab_cpu_",),
    "host.advise_preferred_page_cost": ("prefcpu_", "prefgpu_"),
}
CALL_KEY = "host.advise_call_cost"
SIZED = re.compile(r"_(\d+)MiB$")


def fail(message):
    sys.exit(f"fit_advice.py: {message}")


def phase_times(path):
    return dict(scope_times(path, "phases", fail))


def fit(runs):
    by_run = [phase_times(r) for r in runs]
    names = set(by_run[0])
    for path, phases in zip(runs[1:], by_run[1:]):
        if set(phases) != names:
            fail(f"{path}: its phases differ from {runs[0]}'s (runs of different traces)")
    if CALL_PHASE not in names:
        fail(f"{runs[0]}: expected a phase '{CALL_PHASE}' (a run of traces/probe/advice_costs.umt)")
    median = {n: statistics.median(p[n] for p in by_run) for n in names}
    call = median[CALL_PHASE]
    values = {CALL_KEY: round(call)}
    for key, prefixes in PAGE_KEYS.items():
        time = pages = 0
        for name in sorted(names):
            sized = SIZED.search(name)
            if name == CALL_PHASE or not sized or not name.startswith(prefixes):
                continue
            time += median[name] - call
            pages += int(sized.group(1)) * 256
        if pages == 0:
            fail(f"{runs[0]}: no phase for {key} (names starting {' or '.join(prefixes)} and ending _<N>MiB)")
        if time < 0:
            fail(f"{runs[0]}: the phases for {key} take less than the call cost ({call:.0f} ns each)")
        values[key] = round(time / pages)
    return values, median


def main():
    if len(sys.argv) < 4:
        sys.exit("usage: fit_advice.py PROFILE.toml OUT.toml RUN.json [RUN.json ...]")
    profile, out, runs = sys.argv[1], sys.argv[2], sys.argv[3:]
    if names_an_input(out, [profile] + runs):
        fail(f"OUT.toml '{out}' names an input")
    values, median = fit(runs)
    with open(profile) as f:
        text = f.read()
    present = profile_values(text)
    missing = [k for k in values if k not in present]
    if missing:
        fail(f"{profile}: no {', '.join(missing)} key in its [host] table to update")
    updated = set_values(text, {k: f'"{v}ns"' for k, v in values.items()})
    tmp = out + ".tmp"
    with open(tmp, "w") as f:
        f.write(updated)
    os.replace(tmp, out)
    print(json.dumps({"values_ns": values, "phase_medians_ns": median, "out": out}, sort_keys=True))


if __name__ == "__main__":
    main()
