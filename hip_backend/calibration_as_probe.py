#!/usr/bin/env python3
"""Turns a calibration's host-bound runs into a host probe, for host_rescale.py.

A GPU-machine call that ran `umsim-hip calibrate` but no host probe (the
two-GPU call, sessions before 18) still measured the two things the probe
measures: the calibration's 1 GiB sequential demand-fault kernel (three runs)
and a CPU first touch (of the CPU runs' size). This writes, into OUT_DIR:
  probe.umt   a trace of exactly those: the CPU's first touch of a fresh
              managed buffer of that size (phase main), then the 1 GiB kernel
              three times, each after the CPU wrote its buffer (as the
              calibration's fault runs do);
  probe.json  the calibration's times of them as a replay result of that
              trace (kernels "touch", phase "main").
so that `host_rescale.py PROFILE UMSIM OUT_DIR/probe.umt OUT.toml OUT_DIR/probe.json`
gives that machine's host factors. They come from the same call as its suite
(re-measured host part, as with the probe), not from another machine.

usage: calibration_as_probe.py CALIBRATION.json OUT_DIR
Files are written through temporary names and renamed.
"""
import json
import os
import sys

BULK_BYTES = 1 << 30
BULK_KERNELS = 3


def fail(message):
    sys.exit(f"calibration_as_probe.py: {message}")


def main():
    if len(sys.argv) != 3:
        fail("usage: calibration_as_probe.py CALIBRATION.json OUT_DIR")
    path, out_dir = sys.argv[1], sys.argv[2]
    try:
        cal = json.load(open(path))
    except (OSError, ValueError) as e:
        fail(f"{path}: not a readable JSON file ({e})")
    if not isinstance(cal, dict) or not isinstance(cal.get("faults"), list) or not isinstance(cal.get("cpu"), list):
        fail(f"{path}: not a calibration (no 'faults' and 'cpu' runs)")
    bulk = [r for r in cal["faults"] if r.get("pattern") == "sequential" and r.get("bytes") == BULK_BYTES]
    if len(bulk) != 1 or len(bulk[0].get("times_ns", [])) != BULK_KERNELS:
        fail(f"{path}: expected one 1 GiB sequential fault run with {BULK_KERNELS} times (a quick calibration "
             "has none)")
    touch = [r for r in cal["cpu"] if r.get("test") == "first_touch"]
    if len(touch) != 1 or not touch[0].get("pages") or not touch[0].get("time_ns"):
        fail(f"{path}: expected one CPU 'first_touch' run with pages and time_ns")
    times = bulk[0]["times_ns"]
    if min(times) <= 0:
        fail(f"{path}: the 1 GiB sequential run has a time of 0")
    touch_bytes = int(touch[0]["pages"]) * 4096
    if not os.path.isdir(out_dir):
        fail(f"{out_dir}: no such directory")

    lines = ["umsim-trace 1",
             f"# the host-bound runs of {os.path.basename(path)} (hip_backend/calibration_as_probe.py)",
             f"alloc T {touch_bytes // 1024}KiB managed",
             f"cpu w T len={touch_bytes // 1024}KiB",
             "free T",
             "phase gpu"]
    for i in range(BULK_KERNELS):
        name = "ABC"[i]
        lines += [f"alloc {name} 1GiB managed", f"cpu w {name} len=1GiB", "kernel touch gpu=0",
                  f"  r {name} len=1GiB", "end", "sync all", f"free {name}"]
    lines.append("end-of-trace")
    result = {
        "schema": "umsim-result",
        "producer": f"calibration_as_probe.py from {os.path.basename(path)}",
        "kernels": [{"name": "touch", "gpu": 0, "counters": {"time_ns": int(t)}} for t in times],
        "phases": [{"name": "main", "counters": {"time_ns": int(touch[0]["time_ns"])}},
                   {"name": "gpu", "counters": {"time_ns": int(sum(times))}}],
    }
    for name, text in (("probe.umt", "\n".join(lines) + "\n"), ("probe.json", json.dumps(result, indent=1) + "\n")):
        target = os.path.join(out_dir, name)
        partial = target + ".partial"
        with open(partial, "w") as f:
            f.write(text)
        os.replace(partial, target)
    print(json.dumps({"first_touch_bytes": touch_bytes, "first_touch_ms": touch[0]["time_ns"] / 1e6,
                      "bulk_ms": [t / 1e6 for t in times]}))


if __name__ == "__main__":
    main()
