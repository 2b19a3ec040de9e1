#!/usr/bin/env python3
"""Pools the CPU's fault path on GPU-held pages (its read side; with --with-writes its write side too) over many calls' calibrations.

usage: pool_cpu_read_faults.py [--with-writes] PROFILE.toml UMSIM PROBE_TRACE CPU_FAULTS_TRACE OUT.toml CALIBRATION_DIR:PROBE_DIR [...]

PROBE_TRACE is traces/probe/host_fault_speed.umt, CPU_FAULTS_TRACE
traces/probe/cpu_faults.umt. Each CALIBRATION_DIR is what one GPU-machine
call's `device_run.sh calibrate` left (its cpu_faults.r*.json, runs of
CPU_FAULTS_TRACE), and PROBE_DIR the same call's host probe runs (the
suite's probe/*.json). Per call: hip_backend/host_rescale.py puts PROFILE on
that call's host, then
hip_backend/fit_cpu_faults.py fits the read side on its cpu_faults runs. The
read fault's cost is divided by the probe's CPU fault factor (the value at
PROFILE's reference host, where host_rescale.py scales it back per call); the
faulted page's read cost is host memory speed and is not scaled. OUT.toml is
PROFILE with `cpu.read_fault_cost` and `cpu.faulted_page_read_cost` set to the
medians over the calls (the latter added where PROFILE has none); every other
key and comment stays.

With --with-writes the write side is pooled the same way: `cpu.fault_cost`
(the write fault, divided by the call's CPU factor) and
`cpu.faulted_page_write_cost` (the page a write fault just brought in, added
where PROFILE has none).

Why: one call's fit carries its host (the read fault moved from 16 to 47 us
between the lent hosts, and the probe's first touch does not follow it). The
write side was first left as it was, because the fit's page writes ran slower
per page than the suite's whole-page write-backs; fitted as a fault and a
faulted page together, as the read side is, it is what the H200 suites' CPU
write-backs take (docs/validation.md, "The CPU's write faults, pooled").

Writes OUT.toml through a temporary file renamed into place; an OUT.toml that
names an input is refused. Prints one JSON object: per call its factor and fit,
and the medians.
"""
import glob
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from host_rescale import check_inputs_and_output  # noqa: E402
from tune_profile import add_key, set_values  # noqa: E402

NAME = "pool_cpu_read_faults.py"
HERE = os.path.dirname(os.path.abspath(__file__))
READ_FAULT, FAULTED_PAGE_READ = "cpu.read_fault_cost", "cpu.faulted_page_read_cost"
WRITE_FAULT, FAULTED_PAGE_WRITE = "cpu.fault_cost", "cpu.faulted_page_write_cost"
# (fault key, faulted-page key, the report's name) per side pooled.
READ_SIDE = (READ_FAULT, FAULTED_PAGE_READ, "read")
WRITE_SIDE = (WRITE_FAULT, FAULTED_PAGE_WRITE, "write")


def fail(message):
    sys.exit(f"{NAME}: {message}")


def run_json(args, what):
    """Runs one of the sibling scripts; its last stdout line is its JSON report."""
    done = subprocess.run([sys.executable] + args, capture_output=True, text=True)
    if done.returncode != 0:
        fail(f"{what} failed: {(done.stderr or done.stdout).strip()}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def fit_call(profile, umsim, traces, calibration, probe, tmp, index):
    probe_trace, fault_trace = traces
    fault_runs = sorted(glob.glob(os.path.join(calibration, "cpu_faults.r*.json")))
    if not fault_runs:
        fail(f"{calibration}: no cpu_faults.r*.json (a calibration from before session 42, or not a calibration)")
    probe_runs = sorted(glob.glob(os.path.join(probe, "*.json")))
    if not probe_runs:
        fail(f"{probe}: no host probe runs (*.json)")
    on_host = os.path.join(tmp, f"host{index}.toml")
    rescale = run_json([os.path.join(HERE, "host_rescale.py"), profile, umsim, probe_trace, on_host] + probe_runs,
                       f"host_rescale.py on {probe}")
    fitted = run_json([os.path.join(HERE, "fit_cpu_faults.py"), on_host, umsim, fault_trace,
                       os.path.join(tmp, f"fit{index}.toml")] + fault_runs,
                      f"fit_cpu_faults.py on {calibration}")["fitted_ns"]
    factor = rescale["cpu_fault_factor"]
    fit = {"calibration": calibration, "cpu_fault_factor": factor}
    for fault, page, side in (READ_SIDE, WRITE_SIDE):
        fit[f"{side}_fault_ns"] = fitted[fault]
        fit[f"reference_{side}_fault_ns"] = round(fitted[fault] / factor)
        fit[f"faulted_page_{side}_ns"] = fitted[page]
    return fit


def main():
    args = sys.argv[1:]
    sides = [READ_SIDE]
    if args and args[0] == "--with-writes":
        sides, args = [READ_SIDE, WRITE_SIDE], args[1:]
    if len(args) < 6:
        fail("usage: pool_cpu_read_faults.py [--with-writes] PROFILE.toml UMSIM PROBE_TRACE CPU_FAULTS_TRACE OUT.toml "
             "CALIBRATION_DIR:PROBE_DIR [...]")
    profile, umsim, out, pairs = args[0], os.path.abspath(args[1]), args[4], args[5:]
    traces = (args[2], args[3])
    calls = []
    for pair in pairs:
        parts = pair.split(":")
        if len(parts) != 2 or not all(parts):
            fail(f"'{pair}': expected CALIBRATION_DIR:PROBE_DIR")
        for d in parts:
            if not os.path.isdir(d):
                fail(f"{d}: no such directory")
        calls.append(parts)
    check_inputs_and_output([profile, umsim, *traces], out, fail)
    text = open(profile).read()
    for fault, page, _side in sides:
        if not re.search(rf"^{fault.split('.')[1]}\s*=", text, flags=re.M):
            fail(f"{profile}: no {fault} key in its [cpu] table to update")
        if not re.search(rf"^{page.split('.')[1]}\s*=", text, flags=re.M):
            text = add_key(text, "cpu", page.split(".")[1], '"0ns"')
    with tempfile.TemporaryDirectory() as tmp:
        fits = [fit_call(profile, umsim, traces, c, p, tmp, i) for i, (c, p) in enumerate(calls)]
    medians = {}
    for fault, page, side in sides:
        medians[fault] = round(statistics.median(f[f"reference_{side}_fault_ns"] for f in fits))
        medians[page] = round(statistics.median(f[f"faulted_page_{side}_ns"] for f in fits))
    updated = set_values(text, {key: f'"{ns}ns"' for key, ns in medians.items()})
    tmp_out = out + ".tmp"
    with open(tmp_out, "w") as f:
        f.write(updated)
    os.replace(tmp_out, out)
    print(json.dumps({"calls": fits, "medians_ns": medians, "out": out}))


if __name__ == "__main__":
    main()
