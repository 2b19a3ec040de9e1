#!/usr/bin/env python3
"""Pools the CPU's read-fault path on GPU-held pages over many calls' calibrations.

usage: pool_cpu_read_faults.py PROFILE.toml UMSIM PROBE_TRACE CPU_FAULTS_TRACE OUT.toml CALIBRATION_DIR:PROBE_DIR [...]

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

Why: one call's fit carries its host (the read fault moved from 16 to 47 us
between the lent hosts, and the probe's first touch does not follow it), and
the write side is left as it is: the suite's whole-page write-backs run
faster per page than the fit's page writes (docs/validation.md, "The CPU's
read faults, pooled").

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
    return {"calibration": calibration, "cpu_fault_factor": factor,
            "read_fault_ns": fitted[READ_FAULT], "reference_read_fault_ns": round(fitted[READ_FAULT] / factor),
            "faulted_page_read_ns": fitted[FAULTED_PAGE_READ]}


def main():
    if len(sys.argv) < 7:
        fail("usage: pool_cpu_read_faults.py PROFILE.toml UMSIM PROBE_TRACE CPU_FAULTS_TRACE OUT.toml "
             "CALIBRATION_DIR:PROBE_DIR [...]")
    profile, umsim, out, pairs = sys.argv[1], os.path.abspath(sys.argv[2]), sys.argv[5], sys.argv[6:]
    traces = (sys.argv[3], sys.argv[4])
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
    if not re.search(r"^read_fault_cost\s*=", text, flags=re.M):
        fail(f"{profile}: no {READ_FAULT} key in its [cpu] table to update")
    if not re.search(r"^faulted_page_read_cost\s*=", text, flags=re.M):
        text = add_key(text, "cpu", "faulted_page_read_cost", '"0ns"')
    with tempfile.TemporaryDirectory() as tmp:
        fits = [fit_call(profile, umsim, traces, c, p, tmp, i) for i, (c, p) in enumerate(calls)]
    read_fault = round(statistics.median(f["reference_read_fault_ns"] for f in fits))
    faulted_page = round(statistics.median(f["faulted_page_read_ns"] for f in fits))
    updated = set_values(text, {READ_FAULT: f'"{read_fault}ns"', FAULTED_PAGE_READ: f'"{faulted_page}ns"'})
    tmp_out = out + ".tmp"
    with open(tmp_out, "w") as f:
        f.write(updated)
    os.replace(tmp_out, out)
    print(json.dumps({"calls": fits, "medians_ns": {READ_FAULT: read_fault, FAULTED_PAGE_READ: faulted_page},
                      "out": out}))


if __name__ == "__main__":
    main()
