#!/usr/bin/env python3
"""Re-measures the host part of a profile from the host probe.

A profile's demand-fault and CPU-fault costs are set by the host (its CPU and
kernel servicing the driver's faults), and the lent H200 machines differ in
them by up to ~30% between calls while the GPU-side keys stay within a few
percent (docs/validation.md, "Sessions 14-17"). The host probe
(traces/probe/host_fault_speed.umt: the calibration's 1 GiB sequential
demand-fault kernel, three times) takes about half a second on the GPU. This
script finds the one factor by which the profile's host-side fault costs
(HOST_FAULT_KEYS) must be multiplied for the simulator to give the probe's
measured kernel time, and writes the profile with those keys scaled; every
other key, the GPU's and the links', is left as calibrated.

usage: host_rescale.py PROFILE.toml UMSIM_BINARY PROBE_TRACE OUT.toml PROBE.json [PROBE.json ...]
Each PROBE.json is either an `umsim-hip replay` result of the probe trace (its
kernels' times) or a calibration file of `umsim-hip calibrate` (its 1 GiB
sequential fault run's repetitions). The hardware time is the median of all
kernels given. OUT.toml is written through a temporary file and renamed; an
OUT.toml that names an input is refused.
"""
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile

from tune_profile import set_values

# The profile keys the host's fault servicing sets (docs/hip_backend.md):
# the driver's work per VA block and per page for GPU faults, populations and
# read-duplication revocations, and the CPU's fault handling.
HOST_FAULT_KEYS = [
    "faults.va_block_cost",
    "faults.page_cost",
    "faults.migrated_page_cost",
    "faults.populate_va_block_cost",
    "faults.revoke_duplicate_page_cost",
    "cpu.fault_cost",
    "cpu.collapse_fault_cost",
]
PROBE_BYTES = 1 << 30  # the calibration run the probe repeats: sequential, 1 GiB
UNITS_NS = {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}


def fail(message):
    sys.exit(f"host_rescale.py: {message}")


def duration_ns(text, key, path):
    m = re.fullmatch(r'"\s*([0-9]+(?:\.[0-9]+)?)\s*(ns|us|ms|s)\s*"', text)
    if not m:
        fail(f'{path}: {key} = {text}: expected a duration in quotes such as "20us"')
    return float(m.group(1)) * UNITS_NS[m.group(2)]


def profile_values(toml_text, path):
    """{section.key: raw value text} for every key of the profile."""
    values, section = {}, ""
    for line in toml_text.splitlines():
        s = line.split("#", 1)[0].strip()
        if s.startswith("["):
            section = s[1:s.index("]")]
        elif "=" in s:
            key, value = (part.strip() for part in s.split("=", 1))
            values[f"{section}.{key}" if section else key] = value
    return values


def probe_times(path):
    """The hardware kernel times (ns) one file gives for the probe kernel."""
    try:
        data = json.load(open(path))
    except (OSError, ValueError) as e:
        fail(f"{path}: not a readable JSON file ({e})")
    if isinstance(data, dict) and "faults" in data:  # a calibration file
        runs = [f for f in data["faults"] if f.get("pattern") == "sequential" and f.get("bytes") == PROBE_BYTES]
        if not runs:
            fail(f"{path}: a calibration file without the 1 GiB sequential fault run")
        return [float(t) for t in runs[0].get("times_ns", [runs[0]["time_ns"]])]
    kernels = data.get("kernels") if isinstance(data, dict) else None
    if not kernels:
        fail(f"{path}: neither a replay result with kernels nor a calibration file")
    if len(kernels) != 3:
        fail(f"{path}: {len(kernels)} kernels; the probe trace has 3 (is this a replay of another trace?)")
    return [float(k["counters"]["time_ns"]) for k in kernels]


def main():
    if len(sys.argv) < 6:
        fail("usage: host_rescale.py PROFILE.toml UMSIM_BINARY PROBE_TRACE OUT.toml PROBE.json [PROBE.json ...]")
    profile_path, umsim, trace, out = sys.argv[1], os.path.abspath(sys.argv[2]), sys.argv[3], sys.argv[4]
    probes = sys.argv[5:]
    if not out.endswith(".toml"):
        fail(f"OUT must end in .toml (got '{out}')")
    if os.path.exists(out) and any(os.path.samefile(out, p) for p in [profile_path, trace] + probes if os.path.exists(p)):
        fail(f"output {out} is one of the inputs (refused: it would be overwritten)")
    hw = statistics.median(t for p in probes for t in probe_times(p))
    base = open(profile_path).read()
    values = profile_values(base, profile_path)
    missing = [k for k in HOST_FAULT_KEYS if k not in values]
    if missing:
        fail(f"{profile_path}: no {', '.join(missing)} (a profile with every host-side fault key is needed)")
    calibrated = {k: duration_ns(values[k], k, profile_path) for k in HOST_FAULT_KEYS}

    tmp = tempfile.mkdtemp(prefix="umsim-host-")

    def scaled_text(factor):
        return set_values(base, {k: '"%dns"' % round(ns * factor) for k, ns in calibrated.items()})

    def model_ns(factor):
        prof, result = os.path.join(tmp, "p.toml"), os.path.join(tmp, "r.json")
        open(prof, "w").write(scaled_text(factor))
        subprocess.run([umsim, "replay", trace, "--profile", prof, "--json", result, "-q"], check=True)
        return statistics.median(k["counters"]["time_ns"] for k in json.load(open(result))["kernels"])

    # The model's probe time grows with the factor (more cost per block and
    # page); bisect on a log scale between 1/16 and 16.
    lo, hi = 1 / 16, 16.0
    at_lo, at_hi = model_ns(lo), model_ns(hi)
    if not at_lo <= hw <= at_hi:
        fail(f"the probe's hardware time {hw / 1e6:.2f} ms is outside what scaling the host costs can give "
             f"({at_lo / 1e6:.2f}-{at_hi / 1e6:.2f} ms): not this profile's kind of machine, or not the probe")
    for _ in range(40):
        mid = (lo * hi) ** 0.5
        if model_ns(mid) < hw:
            lo = mid
        else:
            hi = mid
        if hi / lo < 1.0005:
            break
    factor = round((lo * hi) ** 0.5, 3)
    before = model_ns(1.0)
    text = scaled_text(factor)
    note = (f"# Host part re-measured (hip_backend/host_rescale.py): the host probe's kernel took "
            f"{hw / 1e6:.2f} ms (median of {sum(len(probe_times(p)) for p in probes)}), the profile gave "
            f"{before / 1e6:.2f} ms; its host-side fault costs ({', '.join(HOST_FAULT_KEYS)}) are scaled by "
            f"{factor}.")
    # A profile rescaled before keeps only the latest note (its values are the base).
    lines = [line for line in text.splitlines() if not line.startswith("# Host part re-measured")]
    at = next((i for i, line in enumerate(lines) if line.startswith("[")), len(lines))
    text = "\n".join(lines[:at] + [note, ""] + lines[at:]) + "\n"
    partial = out + ".partial"
    open(partial, "w").write(text)
    os.replace(partial, out)
    print(json.dumps({"hardware_probe_ms": round(hw / 1e6, 3), "profile_probe_ms": round(before / 1e6, 3),
                      "factor": factor, "keys": HOST_FAULT_KEYS, "out": out}))


if __name__ == "__main__":
    main()
