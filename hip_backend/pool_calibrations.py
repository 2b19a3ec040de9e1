#!/usr/bin/env python3
"""A profile whose directly measured keys are the median of many calibrations.

usage: pool_calibrations.py [--keys K1,K2,... | --with-links | --machine] PROFILE OUT.toml CALIBRATION_DIR...

Each CALIBRATION_DIR is what one GPU-machine call's `device_run.sh calibrate`
left (profiles/raw/h200-pcie5/later/sessionN: its calibrated.toml). Every key
of POOLED_KEYS (or --keys) is set to the median of that key over the
calibrations (--with-links: and the links' curves, LINK_KEYS; --machine: the
keys a machine's own profile takes from its one calibration, MACHINE_KEYS);
every other key and every comment of PROFILE stays.

Why: these keys are read off one microbenchmark each (a copy, a launch, a
prefetch call, a remote read), and each call's value carries that call's host
and link: the same key moves by 10-60% from one fresh H200 machine to the next
(docs/validation.md, "One calibration or the median of many"). A profile taken
from one call predicts the next call with that call's luck; the median of
many predicts a call it has not seen better. Keys fitted on a diagnostic of
their own, or tuned in the simulator on the calibration's fault runs, are not
pooled here.

Writes OUT.toml through a temporary file renamed into place; an OUT that
names an input is refused. Prints one line per pooled key: the value before,
the median, the range and the number of calibrations.
"""
import json
import os
import statistics
import sys
import tomllib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from host_rescale import UNITS_NS, check_inputs_and_output, duration_ns, profile_values  # noqa: E402
from tune_profile import set_values  # noqa: E402

POOLED_KEYS = [
    "gpu.access_gbps", "gpu.access_cost", "gpu.launch_cost", "gpu.idle_start_cost",
    "remote.gpu_to_host_gbps",
    "prefetch.call_cost", "prefetch.cold_call_cost", "prefetch.va_block_cost",
    "prefetch.duplicate_va_block_cost",
    "host.copy_call_cost", "host.pageable_copy_gbps", "host.pageable_to_host_copy_gbps",
]
# Not remote.access_cost: fit_remote_requests.py fits it together with
# remote.request_cost (sparse reads of host memory bound by their requests); a
# calibration's own fit has no request cost, so its touch cost holds both.
# Not prefetch.to_cpu_va_block_cost: the calibrations' back-and-forth runs move
# large ranges, whose copies hide the block work, so their value (42.5-52.8 us)
# is the link fit's remainder; fit_d2h_prefetch.py measures it on small moves.
# The links' curves, which each calibration fits from its pinned copies and
# prefetches: a machine's own profile (machine_profile.sh) takes them with the
# pooled keys (--with-links); the committed profile keeps its own.
LINK_KEYS = [f"link.{direction}.{key}" for direction in ("host_to_gpu", "gpu_to_host")
             for key in ("peak_gbps", "latency", "atan_b_per_kib")]
# Keys that follow the host's per-process mode (docs/validation.md, "The host's
# speed is set per process"): moves to the CPU and pageable copies run at one of
# two speeds from one process to the next, so one calibration's processes
# sample one mode and the next call's suite may run in the other. A machine's
# own profile keeps the pooled values of these (the median over many calls'
# processes) instead of its calibration's: sessions 72, 76 and 80's calibrations
# moved pages to the CPU at 9.0-10.8 GB/s (pooled 16.5); over the twenty-two
# pairs of a calibration and a later call, better on 17, equal on 2, worse on 3
# (docs/validation.md, "A machine's own profile keeps the pooled values of the
# host-mode keys").
HOST_MODE_KEYS = [key for key in LINK_KEYS if key.startswith("link.gpu_to_host.")] + [
    "host.pageable_copy_gbps", "host.pageable_to_host_copy_gbps"]
MACHINE_KEYS = [key for key in POOLED_KEYS + LINK_KEYS if key not in HOST_MODE_KEYS]
USAGE = "usage: pool_calibrations.py [--keys K1,K2,... | --with-links | --machine] PROFILE OUT.toml CALIBRATION_DIR..."


def fail(message):
    print(f"pool_calibrations.py: {message}", file=sys.stderr)
    sys.exit(1)


def is_duration(text):
    return text.startswith('"') and text.rstrip('"').rstrip().endswith(tuple(UNITS_NS))


def number(text, key, path):
    """A key's value in ns (durations) or as written (numbers)."""
    if is_duration(text):
        return duration_ns(text, key, path)
    try:
        return float(text)
    except ValueError:
        fail(f"{path}: {key} = {text}: expected a number or a duration")


def written(median, like):
    """MEDIAN in the form the profile's value LIKE has: a duration in ns, an integer or a number."""
    if is_duration(like):
        return f'"{median:.3f}ns"' if median < 10 else f'"{round(median)}ns"'
    if "." not in like and "e" not in like.lower():
        return str(round(median))
    return f"{median:.4g}"


def whole_read_gbps(directory):
    """The link's read bandwidth from the calibration's whole-buffer reads of host
    memory (its "remote" runs: pinned, mapped, AccessedBy), time less the launch
    overhead, median. Calibrations whose calibrate took remote.gpu_to_host_gbps
    from the sub-page fit (before December 6, 2026) wrote a value 13% below to
    16% above, below on most (docs/validation.md, "Whole reads of host memory");
    this reads the runs themselves, so every calibration gives the key the same
    way."""
    path = os.path.join(directory, "calibration.json")
    try:
        with open(path) as f:
            raw = json.load(f)
        launch = float(raw["launch_overhead_ns"])
        rates = [float(r["bytes"]) / max(1.0, float(r["time_ns"]) - launch) for r in raw["remote"]]
    except (OSError, ValueError, KeyError, TypeError) as e:
        fail(f"{path}: no whole reads of host memory ('remote' runs with bytes and time_ns, "
             f"and launch_overhead_ns): {type(e).__name__}: {e}")
    if not rates:
        fail(f"{path}: 'remote' holds no runs")
    return statistics.median(rates)


# Keys read from a calibration's raw runs instead of its calibrated.toml.
FROM_RUNS = {"remote.gpu_to_host_gbps": whole_read_gbps}


def calibrated_values(directory):
    path = os.path.join(directory, "calibrated.toml")
    if not os.path.isfile(path):
        fail(f"{directory}: no calibrated.toml (expected a calibration's folder, e.g. "
             "profiles/raw/h200-pcie5/later/sessionN)")
    text = open(path).read()
    try:
        tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        fail(f"{path}: not valid TOML ({e})")
    return path, profile_values(text)


def main():
    args = sys.argv[1:]
    keys = POOLED_KEYS
    if args[:1] == ["--keys"]:
        if len(args) < 2 or not args[1]:
            fail("--keys needs a comma-separated list of section.key names")
        keys, args = args[1].split(","), args[2:]
    elif args[:1] == ["--with-links"]:
        keys, args = POOLED_KEYS + LINK_KEYS, args[1:]
    elif args[:1] == ["--machine"]:
        keys, args = MACHINE_KEYS, args[1:]
    if len(args) < 3:
        fail(USAGE)
    profile, out, directories = args[0], args[1], args[2:]
    check_inputs_and_output([profile] + [os.path.join(d, "calibrated.toml") for d in directories], out, fail)
    base_text = open(profile).read()
    base = profile_values(base_text)
    calibrations = [calibrated_values(d) for d in directories]
    values = {}
    for key in keys:
        if key not in base:
            fail(f"{profile}: no key {key} to pool")
        samples = []
        for directory, (path, cal) in zip(directories, calibrations):
            if key in FROM_RUNS:
                samples.append(FROM_RUNS[key](directory))
                continue
            if key not in cal:
                fail(f"{path}: no key {key} (every calibration must measure each pooled key)")
            samples.append(number(cal[key], key, path))
        median = statistics.median(samples)
        values[key] = written(median, base[key])
        print(f"{key}: {base[key]} -> {values[key]} (median of {len(samples)}; "
              f"{min(samples):.4g}-{max(samples):.4g})")
    partial = out + ".partial"
    with open(partial, "w") as f:
        f.write(set_values(base_text, values))
    os.replace(partial, out)


if __name__ == "__main__":
    main()
