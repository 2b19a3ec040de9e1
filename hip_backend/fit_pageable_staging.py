#!/usr/bin/env python3
"""Fit the fixed cost of a pageable copy to the host from many calibrations.

usage: fit_pageable_staging.py CALIBRATION_DIR...

Each CALIBRATION_DIR is what one GPU-machine call's `device_run.sh calibrate`
left (profiles/raw/h200-pcie5/later/sessionN): calibration.json, whose
"copy_trace" runs time single copies in replays (copy_<pinned|pageable>_d2h_
<bytes>, several repetitions), and calibrated.toml, that call's fitted
host.pinned_copy_gbps and host.pageable_to_host_copy_gbps.

A copy into pageable memory lands in a pinned staging buffer first and the
host copies it out after; a large copy overlaps the two, a small one pays them
in turn. Per calibration and size (64 KiB and 1 MiB), the extra is the
pageable copy's median time less the pinned copy's, less the bandwidth
difference at that call's two fitted speeds. Prints, as JSON, in ns:
  pageable_to_host_call_cost: the median extra over calibrations and sizes;
  calibrations: how many were read.
"""
import json
import os
import statistics
import sys
import tomllib

SIZES = [65536, 1048576]


def fail(message):
    print(f"fit_pageable_staging.py: {message}", file=sys.stderr)
    sys.exit(1)


def copy_medians(path):
    try:
        runs = json.load(open(path))["copy_trace"]
        times = {}
        for r in runs:
            times.setdefault(r["test"], []).append(float(r["time_ns"]))
    except (OSError, ValueError, KeyError, TypeError) as e:
        fail(f"{path}: not a calibration with copy_trace runs ({e})")
    return {test: statistics.median(t) for test, t in times.items()}


def host_speeds(path):
    try:
        host = tomllib.load(open(path, "rb"))["host"]
        return float(host["pinned_copy_gbps"]), float(host["pageable_to_host_copy_gbps"])
    except (OSError, ValueError, KeyError, TypeError, tomllib.TOMLDecodeError) as e:
        fail(f"{path}: no host.pinned_copy_gbps and host.pageable_to_host_copy_gbps ({e})")


def main():
    if len(sys.argv) < 2:
        fail("usage: fit_pageable_staging.py CALIBRATION_DIR...")
    extras = []
    for directory in sys.argv[1:]:
        if not os.path.isdir(directory):
            fail(f"{directory}: no such folder")
        raw = os.path.join(directory, "calibration.json")
        times = copy_medians(raw)
        pinned_gbps, pageable_gbps = host_speeds(os.path.join(directory, "calibrated.toml"))
        for size in SIZES:
            tests = [f"copy_pageable_d2h_{size}", f"copy_pinned_d2h_{size}"]
            for test in tests:
                if test not in times:
                    fail(f"{raw}: no copy_trace run '{test}'")
            extras.append(times[tests[0]] - times[tests[1]] - size / pageable_gbps + size / pinned_gbps)
    print(json.dumps({"pageable_to_host_call_cost": round(statistics.median(extras)),
                      "calibrations": len(sys.argv) - 1}))


if __name__ == "__main__":
    main()
