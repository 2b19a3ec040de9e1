#!/usr/bin/env python3
"""The call's host probe runs, scaled to the host speed of one replay's process.

The lent hosts run their page-fault and ReadMostly work at one of two speeds
from one process to the next (docs/validation.md, "The host's speed is set per
process"), so the host probe, run in processes of its own, describes a call's
host on average. Since session 57 every suite replay's process also replays
traces/probe/host_mode.umt (umsim-hip replay --host-probe, results in host/).
host_mode.umt is host_fault_speed.umt's timed part at a smaller size, and the
two do not take the same time per page (the sizes differ), so a process's
speed is read relative to its call: for each part of the probe, the process's
host_mode time over the median of every process of the call. This script
writes the call's probe runs with each part's times multiplied by that ratio;
hip_backend/host_rescale.py then rescales a profile from them as from any probe.

usage: process_probe.py OUT_DIR PROCESS.json --call CALL_HOST_MODE.json... --probes PROBE.json...
PROCESS.json is one process's host_mode.umt result (it should also be among
--call). Writes OUT_DIR/probe.rN.json, one per --probes file, through
temporary files; OUT_DIR must not hold any input.
"""
import json
import os
import statistics
import sys

import host_rescale

# The probe's parts, each a list of times a result gives, and how to scale them.
PARTS = {
    "kernel": host_rescale.kernel_times,
    "isolated": host_rescale.isolated_times,
    "first_touch": host_rescale.first_touch_times,
    "collapse": host_rescale.collapse_times,
    "reprefetch": host_rescale.reprefetch_times,
}


def fail(message):
    sys.exit(f"process_probe.py: {message}")


def part_time(result, part):
    return statistics.median(PARTS[part](result))


def ratios(process, call):
    """Per part: the process's time over the call's median, for the parts every run has."""
    out = {}
    for part in PARTS:
        if not PARTS[part](process) or not all(PARTS[part](c) for c in call):
            continue
        out[part] = part_time(process, part) / statistics.median(part_time(c, part) for c in call)
    return out


def scaled(probe, factors):
    """A copy of a probe result with each part's times multiplied by its factor."""
    result = json.loads(json.dumps(probe))
    for k in result["kernels"]:
        name = k.get("name")
        part = "kernel" if name == host_rescale.BULK_KERNEL else "isolated" if name == host_rescale.ISOLATED_KERNEL else None
        if part in factors:
            k["counters"]["time_ns"] = round(k["counters"]["time_ns"] * factors[part])
    phase_parts = {host_rescale.FIRST_TOUCH_PHASE: "first_touch", host_rescale.COLLAPSE_PHASE: "collapse",
                   host_rescale.REPREFETCH_PHASE: "reprefetch"}
    for p in result["phases"]:
        part = phase_parts.get(p["name"])
        if part in factors:
            p["counters"]["time_ns"] = round(p["counters"]["time_ns"] * factors[part])
    return result


def main():
    args = sys.argv[1:]
    if len(args) < 5 or "--call" not in args or "--probes" not in args:
        fail("usage: process_probe.py OUT_DIR PROCESS.json --call CALL_HOST_MODE.json... --probes PROBE.json...")
    out_dir, process_path = args[0], args[1]
    i, j = args.index("--call"), args.index("--probes")
    if i != 2 or j < i + 2 or j == len(args) - 1:
        fail("usage: process_probe.py OUT_DIR PROCESS.json --call CALL_HOST_MODE.json... --probes PROBE.json...")
    call_paths, probe_paths = args[i + 1:j], args[j + 1:]
    inputs = [process_path] + call_paths + probe_paths
    for path in inputs:
        if not os.path.isfile(path):
            fail(f"{path}: no such file")
    os.makedirs(out_dir, exist_ok=True)
    if any(os.path.samefile(os.path.dirname(os.path.abspath(p)), out_dir) for p in inputs):
        fail(f"OUT_DIR {out_dir} holds an input (refused: it would be overwritten)")
    process = host_rescale.read_probe(process_path)
    call = [host_rescale.read_probe(p) for p in call_paths]
    probes = [host_rescale.read_probe(p) for p in probe_paths]
    factors = ratios(process, call)
    for n, probe in enumerate(probes, 1):
        path = os.path.join(out_dir, f"probe.r{n}.json")
        with open(path + ".partial", "w") as f:
            json.dump(scaled(probe, factors), f)
        os.replace(path + ".partial", path)
    print(json.dumps({part: round(f, 4) for part, f in factors.items()}))


if __name__ == "__main__":
    main()
