#!/usr/bin/env python3
"""A call's profile moved to the host speed of one replay's process.

The lent hosts run their page-fault and ReadMostly work at one of two speeds
from one process to the next (docs/validation.md, "The host's speed is set per
process"), so the host probe, run in processes of its own, describes a call's
host on average. Since session 57 every suite replay's process also replays
traces/probe/host_mode.umt (umsim-hip replay --host-probe; results in host/).
host_mode.umt is host_fault_speed.umt's timed part at a smaller size, and the
host's time per page differs between the sizes, so a process's speed is read
relative to its call: for each part, the process's time over the median of
every process of the call. Each of host_rescale.py's key groups is multiplied
by its part's ratio raised to WEIGHT:

  bulk GPU-fault kernels  -> the GPU fault-servicing keys
  first touch             -> the CPU page-fault keys (not the collapse), and the
                             moves to the CPU (the host work per page and per
                             VA block, the link to the host's peak divided):
                             a process's moves to the CPU follow its first
                             touch (docs/validation.md, "Session 125")
  isolated faults         -> faults.wakeup_cost
  collapse                -> cpu.collapse_fault_cost
  re-prefetch             -> the revocation keys

A process's ratio is its host speed plus the short probe's own noise, so the
full ratio overshoots; WEIGHT (default 0.75) was chosen on session 57 alone
among 0, 0.5, 0.75, 1 and 1.25 and checked on session 58 (docs/validation.md).

usage: process_profile.py [--weight W] CALL_PROFILE.toml PROCESS.json OUT.toml CALL_HOST_MODE.json...
CALL_PROFILE is the call's profile (host_rescale.py's output from the call's
probe); PROCESS.json one process's host_mode.umt result, also among the
CALL_HOST_MODE files. OUT.toml is written through a temporary file and
renamed; an OUT.toml that names an input is refused. Prints the ratios.
"""
import os
import statistics
import sys

import host_rescale as hr
from tune_profile import set_values

DEFAULT_WEIGHT = 0.75
TO_CPU_KEYS = ["prefetch.to_cpu_page_cost", "prefetch.to_cpu_va_block_cost"]
RATE_KEYS = ["link.gpu_to_host.peak_gbps"]  # speeds: divided by the ratio, not multiplied
# Each part of host_mode.umt, the times a result gives for it, and the keys it moves.
PARTS = {
    "kernel": (hr.kernel_times, hr.GPU_FAULT_KEYS + hr.OPTIONAL_GPU_FAULT_KEYS),
    "first_touch": (hr.first_touch_times,
                    [k for k in hr.CPU_FAULT_KEYS + hr.OPTIONAL_CPU_FAULT_KEYS if k != hr.COLLAPSE_KEY]
                    + TO_CPU_KEYS + RATE_KEYS),
    "isolated": (hr.isolated_times, [hr.WAKEUP_KEY]),
    "collapse": (hr.collapse_times, [hr.COLLAPSE_KEY]),
    "reprefetch": (hr.reprefetch_times, hr.REVOKE_KEYS),
}
USAGE = "usage: process_profile.py [--weight W] CALL_PROFILE.toml PROCESS.json OUT.toml CALL_HOST_MODE.json..."


def fail(message):
    sys.exit(f"process_profile.py: {message}")


def ratios(process, call):
    """Per part: the process's median time over the median of the call's processes."""
    out = {}
    for part, (times, _) in PARTS.items():
        if not times(process) or not all(times(c) for c in call):
            continue  # a part some run lacks (an older probe shape) is left alone
        out[part] = statistics.median(times(process)) / statistics.median(statistics.median(times(c)) for c in call)
    return out


def main():
    args = sys.argv[1:]
    weight = DEFAULT_WEIGHT
    if args[:1] == ["--weight"]:
        try:
            weight = float(args[1])
        except (IndexError, ValueError):
            fail("--weight needs a number (0 leaves the profile as it is, 1 applies the full ratio)")
        if not 0 <= weight <= 2:
            fail(f"--weight {weight}: expected 0-2")
        args = args[2:]
    if len(args) < 4:
        fail(USAGE)
    profile_path, process_path, out, call_paths = args[0], args[1], args[2], args[3:]
    hr.check_inputs_and_output([profile_path, process_path] + call_paths, out, fail)
    process = hr.read_probe(process_path)
    call = [hr.read_probe(p) for p in call_paths]
    base = open(profile_path).read()
    values = hr.profile_values(base)
    found = ratios(process, call)
    scaled = {}
    for part, ratio in found.items():
        for key in PARTS[part][1]:
            if key not in values:
                continue
            if key in RATE_KEYS:
                before = float(values[key])
                after, text = round(before / ratio ** weight, 3), "%g"
            else:
                before = hr.duration_ns(values[key], key, profile_path)
                after, text = round(before * ratio ** weight), '"%dns"'
            if after != before:  # a key it does not move keeps its text
                scaled[key] = text % after
    lines = set_values(base, scaled).splitlines()
    at = next((i for i, line in enumerate(lines) if line.startswith("[")), len(lines))
    note = (f"# Moved to one process's host speed by hip_backend/process_profile.py (weight {weight:g}, "
            f"from {os.path.basename(process_path)}): " + ", ".join(f"{p} x{r:.3f}" for p, r in found.items()))
    partial = out + ".partial"
    with open(partial, "w") as f:
        f.write("\n".join(lines[:at] + [note] + lines[at:]) + "\n")
    os.replace(partial, out)
    print(" ".join(f"{part}={ratio:.4f}" for part, ratio in found.items()))


if __name__ == "__main__":
    main()
