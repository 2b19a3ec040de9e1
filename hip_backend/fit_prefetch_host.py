#!/usr/bin/env python3
"""Fits the host's side of prefetch calls from runs of traces/probe/prefetch_host.umt.

Phase "queued": a prefetch issued on a stream still running a kernel returns
at once, after the runtime's queueing cost, which the start of the kernel
launched on another stream right after it measures against the running
kernel's start. Phase "to_cpu": 256 MiB prefetched from the GPU to the CPU on
an idle stream; its time beyond what the model gives without the per-page
host work, over the pages moved, is that work. In the simulator with
queued_call_cost at the hardware's gap (where the gap follows the key one for
one) and to_cpu_page_cost at 0:

    queued_call_cost = trial + hw (tiny start - spin start) - sim (the same)
    to_cpu_page_cost = (hw to_cpu phase - sim to_cpu phase) / pages moved to the CPU

Where the gap does not follow the key (host.other_stream_launch_gap holds the
later kernel back further), queued_call_cost is instead the least key that
gives the hardware's gap (bisection), and 0 where the model's gap is that long
with no key.

Keys set: prefetch.queued_call_cost, prefetch.to_cpu_page_cost (hardware: the
median over the runs); added to the profile's [prefetch] table where absent.

usage: fit_prefetch_host.py PROFILE.toml UMSIM TRACE OUT.toml RUN.json [RUN.json ...]
OUT.toml is written through a temporary file and renamed; an OUT.toml that
names an input is refused.
"""

import json
import os
import statistics
import sys
import tempfile

from tune_profile import names_an_input, replay_profile_text, set_or_add_values

NAME = "fit_prefetch_host.py"
QUEUED, TO_CPU = "prefetch.queued_call_cost", "prefetch.to_cpu_page_cost"
PAGE = 4096


def fail(message):
    sys.exit(f"{NAME}: {message}")


def measures(path, what):
    """(kernel gap, to_cpu phase time, pages moved to the CPU) of one result."""
    try:
        with open(path) as f:
            run = json.load(f)
        phases = {p["name"]: p["counters"] for p in run["phases"]}
        kernels = {k["name"]: k["start_ns"] for k in run["kernels"]}
    except (OSError, ValueError, KeyError, TypeError) as e:
        fail(f"{path}: not an {what} result ({e})")
    missing = [p for p in ("queued", "to_cpu") if p not in phases] + [k for k in ("spin", "tiny") if k not in kernels]
    if missing:
        fail(f"{path}: expected phases queued, to_cpu and kernels spin, tiny (a run of traces/probe/prefetch_host.umt); "
             f"missing {', '.join(missing)}")
    return kernels["tiny"] - kernels["spin"], phases["to_cpu"]["time_ns"], phases["to_cpu"]["bytes_d2h"] // PAGE


def with_keys(text, values):
    """The profile with the [prefetch] keys set, added to the table where absent."""
    try:
        return set_or_add_values(text, {k: f'"{v}ns"' for k, v in values.items()})
    except KeyError:
        fail("the profile has no [prefetch] table")


def simulate(umsim, trace, toml, tmp, tag):
    path = os.path.join(tmp, f"{tag}.json")  # where replay_profile_text writes it
    replay_profile_text(umsim, trace, toml, tmp, tag)
    return measures(path, "umsim replay")


def main():
    if len(sys.argv) < 6:
        fail("usage: fit_prefetch_host.py PROFILE.toml UMSIM TRACE OUT.toml RUN.json [RUN.json ...]")
    profile, umsim, trace, out, runs = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:]
    if names_an_input(out, [profile, umsim, trace] + runs):
        fail(f"OUT.toml '{out}' names an input")
    measured = [measures(r, "umsim-hip replay") for r in runs]
    hw_gap = statistics.median(m[0] for m in measured)
    hw_to_cpu = statistics.median(m[1] for m in measured)
    with open(profile) as f:
        text = f.read()
    with tempfile.TemporaryDirectory() as tmp:
        def gap_with(key):
            return simulate(umsim, trace, with_keys(text, {QUEUED: key, TO_CPU: 0}), tmp, "base")
        # The gap follows the key one for one once the call holds the host
        # past the running kernel's start and past the earliest start of a
        # kernel on another stream (host.other_stream_launch_gap); below, it
        # does not move. Simulated with the hardware's gap as the key, moved
        # by what is left, and where that lands where the gap does not
        # follow, the least key that gives the hardware's gap (bisection; 0
        # where the model's gap is that long without the key).
        trial = round(hw_gap)
        sim_gap, sim_to_cpu, pages = gap_with(trial)
        if pages == 0:
            fail(f"{trace}: the simulator moves no pages to the CPU in its to_cpu phase")
        key = round(max(0, trial + hw_gap - sim_gap))
        if gap_with(0)[0] >= hw_gap:
            key = 0
        elif gap_with(key)[0] != round(hw_gap):
            low, high = 0, max(key, 1)
            while gap_with(high)[0] < hw_gap:
                low, high = high, high * 2
            while high - low > 1:
                mid = (low + high) // 2
                low, high = (mid, high) if gap_with(mid)[0] < hw_gap else (low, mid)
            key = high
        fitted = {QUEUED: key, TO_CPU: round(max(0, (hw_to_cpu - sim_to_cpu) / pages))}
        updated = with_keys(text, fitted)
        check_gap, check_to_cpu, _ = simulate(umsim, trace, updated, tmp, "fitted")
    tmp_out = out + ".tmp"
    with open(tmp_out, "w") as f:
        f.write(updated)
    os.replace(tmp_out, out)
    print(json.dumps({"fitted_ns": fitted, "pages": pages, "hw_gap_ns": hw_gap, "sim_gap_ns": check_gap,
                      "hw_to_cpu_ns": hw_to_cpu, "sim_to_cpu_ns": check_to_cpu, "runs": len(runs), "out": out}))


if __name__ == "__main__":
    main()
