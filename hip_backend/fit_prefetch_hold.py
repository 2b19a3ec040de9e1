#!/usr/bin/env python3
"""Fits prefetch.host_va_block_cost: the host time per VA block of a prefetch call to a GPU.

A prefetch on an idle stream is migrated by the driver in the calling thread,
but the call returns once the driver's host work is done, while the copies
still run (on an H200 a 128 MiB call returns about 1.5 ms into a 2.6 ms
migration). Each diagnostic trace given issues one such call and then, on
another stream, a kernel named `tiny`: its start, less its phase's start, is
when the call returned plus the launch gap. The simulator gives that start as
(the call's own costs, launch gap) + blocks x key; two replays, with the key
at 0 and at 1 us, give both parts, and the hardware's start (the median over
the trace's processes) gives the key:

    per block = (hw start - sim start at 0) / (sim start at 1 us - sim start at 0) x 1 us

Each CASE is PROBE_PROFILE:DIAG_DIR:TRACE, PROBE_PROFILE being the profile
rescaled by that call's host probe (hip_backend/host_rescale.py), since the
driver's host work follows the host's speed: each case's value is divided
by its call's GPU-fault factor (that profile's faults.va_block_cost over
PROFILE's) to give the reference host's, and the key is their median.

usage: fit_prefetch_hold.py PROFILE.toml UMSIM OUT.toml CASE [CASE ...]
Prints one JSON object: the value and, per case, its measures. OUT.toml is
PROFILE.toml with the key set (added to its [prefetch] table where absent),
written through a temporary file and renamed; an OUT.toml that names an input
is refused.
"""

import glob
import json
import os
import statistics
import sys
import tempfile

from host_rescale import duration_ns, profile_values
from tune_profile import names_an_input, replay_profile_text, set_or_add_values

NAME = "fit_prefetch_hold.py"
KEY, FACTOR_KEY = "prefetch.host_va_block_cost", "faults.va_block_cost"
KERNEL = "tiny"
PROBE_NS = 1000  # the second replay's key


def fail(message):
    sys.exit(f"{NAME}: {message}")


def tiny_start(result, where):
    """The tiny kernel's start less the start of the phase it runs in."""
    try:
        phases = [p["start_ns"] for p in result["phases"]]
        starts = [k["start_ns"] for k in result["kernels"] if k["name"] == KERNEL]
    except (KeyError, TypeError) as e:
        fail(f"{where}: not a replay result ({type(e).__name__}: {e})")
    if len(starts) != 1:
        fail(f"{where}: expected one kernel named '{KERNEL}', found {len(starts)}")
    before = [p for p in phases if p <= starts[0]]
    if not before:
        fail(f"{where}: kernel '{KERNEL}' starts before every phase")
    return starts[0] - max(before)


def hardware_start(diag, trace):
    paths = sorted(glob.glob(os.path.join(diag, f"{trace}.r*.json")))
    if not paths:
        fail(f"{diag}: no replays of {trace} ({trace}.rN.json)")
    starts = []
    for path in paths:
        try:
            with open(path) as f:
                result = json.load(f)
        except (OSError, ValueError) as e:
            fail(f"{path}: not a replay result with kernel times ({type(e).__name__}: {e})")
        starts.append(tiny_start(result, path))
    return statistics.median(starts)


def key_ns(text, path):
    value = profile_values(text).get(FACTOR_KEY)
    if value is None:
        fail(f"{path}: no {FACTOR_KEY}")
    return duration_ns(value, FACTOR_KEY, path)


def main():
    if len(sys.argv) < 5:
        fail("usage: fit_prefetch_hold.py PROFILE.toml UMSIM OUT.toml PROBE_PROFILE:DIAG_DIR:TRACE ...")
    profile, umsim, out, cases = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
    parsed = []
    for case in cases:
        parts = case.split(":")
        if len(parts) != 3:
            fail(f"'{case}': expected PROBE_PROFILE:DIAG_DIR:TRACE")
        parsed.append(parts)
    if names_an_input(out, [profile, umsim] + [p for p, _, _ in parsed]):
        fail(f"OUT.toml '{out}' names an input")
    with open(profile) as f:
        base = f.read()
    reference = key_ns(base, profile)
    values, report = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for i, (probe_profile, diag, trace) in enumerate(parsed):
            trace_path = os.path.join(diag, "traces", f"{trace}.umt")
            if not os.path.exists(trace_path):
                fail(f"{trace_path}: no such trace")
            with open(probe_profile) as f:
                text = f.read()
            factor = key_ns(text, probe_profile) / reference
            sims = []
            for value in (0, PROBE_NS):
                try:
                    toml = set_or_add_values(text, {KEY: f'"{value}ns"'})
                except KeyError:
                    fail(f"{probe_profile}: no [prefetch] table")
                result = replay_profile_text(umsim, trace_path, toml, tmp, f"c{i}_{value}")
                sims.append(tiny_start(result, f"{trace} replayed"))
            per_unit = (sims[1] - sims[0]) / PROBE_NS
            if per_unit <= 0:
                fail(f"{trace}: the simulator's '{KERNEL}' does not wait for a prefetch call's blocks")
            hw = hardware_start(diag, trace)
            per_block = max(0.0, (hw - sims[0]) / per_unit) / factor
            values.append(per_block)
            report.append({"case": cases[i], "hw_start_ns": hw, "sim_start_at_0_ns": sims[0],
                           "blocks": round(per_unit), "gpu_fault_factor": round(factor, 3),
                           "per_block_ns": round(per_block)})
    fitted = round(statistics.median(values))
    updated = set_or_add_values(base, {KEY: f'"{fitted}ns"'})
    tmp_out = out + ".tmp"
    with open(tmp_out, "w") as f:
        f.write(updated)
    os.replace(tmp_out, out)
    print(json.dumps({"fitted_ns": fitted, "cases": report, "out": out}))


if __name__ == "__main__":
    main()
