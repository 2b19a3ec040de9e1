#!/usr/bin/env python3
"""Tunes the profile's demand-fault and CPU-fault costs through the simulator.

The fault-servicing costs (faults.batch_cost, va_block_cost, page_cost,
migrated_page_cost, concurrency, and gpu.access_lanes, the order in which a kernel's faults arrive), the GPU population costs (faults.populate_va_block_cost,
populate_gbps: matched on the gpu_fresh runs only, after the migration costs),
the read-duplication costs (faults.duplicate_va_block_cost and
duplicated_page_cost: matched on the read_mostly runs) and cpu.fault_cost are not separable from hardware timings alone:
the driver overlaps work the model adds up. So, after the analytic fit
(`fit_profile`, which sets the links, prefetch, CPU and remote values), this
script replays the calibration microbenchmarks (the very traces `umsim-hip
calibrate` ran, written by //hip_backend:calibration_traces_tool) in `umsim
replay` over a grid of those costs and keeps the values whose predicted kernel / phase times are closest to
the measured ones (median absolute relative error). gpu.access_gbps is direct:
the median bandwidth of the "resident" runs (kernels touching a prefetched
buffer). The validation suite (traces/validation/) is never used here.

Demand-fault times vary by tens of percent between runs and between sessions,
so every calibration file given is pooled: each GPU microbenchmark's hardware
time is the median over all its repetitions in all files (the same GPU
calibrated in several sessions). CPU runs come from the last file only.

usage: tune_profile.py PROFILE.toml UMSIM_BINARY CALIBRATION_TRACES_TOOL RAW.json [RAW.json ...]
The replays use the driver semantics of $UMSIM_VENDOR (default nvidia; e.g.
amd-xnack-on when tuning an AMD GPU's fault costs, docs/hip_backend.md).
"""
import concurrent.futures
import itertools
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile

PAGE = 4096
VENDOR = os.environ.get("UMSIM_VENDOR", "nvidia")


def set_values(toml, values):
    section = ""
    out = []
    for line in toml.splitlines():
        s = line.strip()
        if s.startswith("["):
            section = s[1:s.index("]")]
        elif "=" in s and not s.startswith("#"):
            key = s.split("=", 1)[0].strip()
            path = f"{section}.{key}" if section else key
            if path in values:
                new = f"{key} = {values[path]}"
                if "#" in line.split("=", 1)[1]:
                    hash_col = line.index("#", line.index("="))
                    new += " " * max(1, hash_col - len(new)) + line[hash_col:]
                line = new
        out.append(line)
    return "\n".join(out) + "\n"


def add_key(toml, table, key, value):
    """TOML with `key = value` as the first line of [table] (for an optional key a profile lacks;
    set_values changes only keys already there). Unchanged where there is no such table."""
    return re.sub(r"^\[" + re.escape(table) + r"\][^\n]*\n", lambda m: m.group(0) + f"{key} = {value}\n", toml,
                  count=1, flags=re.M)


def set_or_add_values(toml, values):
    """set_values, each `table.key` of `values` that its table lacks added first (add_key).
    A key whose table the profile does not have raises KeyError(table)."""
    present, section = set(), ""
    for line in toml.splitlines():
        s = line.split("#", 1)[0].strip()
        if s.startswith("["):
            section = s[1:s.index("]")]
        elif "=" in s:
            present.add(f"{section}.{s.split('=', 1)[0].strip()}")
    for path, value in values.items():
        if path in present:
            continue
        table, key = path.rsplit(".", 1)
        if not re.search(r"^\[" + re.escape(table) + r"\]", toml, flags=re.M):
            raise KeyError(table)
        toml = add_key(toml, table, key, value)
    return set_values(toml, values)


def run_sim(umsim, trace, profile, tmp):
    out = os.path.join(tmp, os.path.basename(trace) + ".json")  # one file per trace: runs may be concurrent
    # `umsim-hip calibrate` runs one microbenchmark after another in one
    # process, its fault runs ms apart: their first batch finds the driver's
    # fault path warm unless a long CPU phase came first (faults.cold_start_cost).
    subprocess.run([umsim, "replay", trace, "--profile", profile, "--vendor", VENDOR, "--warm-fault-service",
                    "--json", out, "-q"], check=True)
    with open(out) as f:
        return json.load(f)


def replay_profile_text(umsim, trace, toml, tmp, tag):
    """Writes `toml` as a profile in `tmp` (files named by `tag`, so several
    replays may share the folder), replays `trace` with it in `umsim replay`
    and returns the result's JSON."""
    prof = os.path.join(tmp, f"{tag}.toml")
    out = os.path.join(tmp, f"{tag}.json")
    with open(prof, "w") as f:
        f.write(toml)
    subprocess.run([umsim, "replay", trace, "--profile", prof, "--json", out, "-q"], check=True)
    with open(out) as f:
        return json.load(f)


def names_an_input(out, inputs):
    """Whether the output path is one of the inputs (the fit scripts refuse it:
    a failed run must never overwrite what it read)."""
    return any(os.path.realpath(out) == os.path.realpath(p) for p in inputs)


def score(errors):
    """Mean absolute relative error first: a median would let one run (the
    isolated faults, whose batches hold a single fault) stay arbitrarily wrong."""
    a = [abs(e) for e in errors]
    return (statistics.mean(a), statistics.median(a))


def pooled_hardware_times(raws):
    """Median hardware time (launch overhead removed) per microbenchmark over every
    repetition in every calibration file: {(kind, pattern, bytes): ns}. The CPU
    runs measure the host, which differs between sessions (a CPU first touch of
    256 MiB took 92-140 ms in four sessions), so they come from the last file
    only: the session whose host the validation suite runs on."""
    samples = {}
    for c in raws[-1]["cpu"]:
        if c["test"] in ("fault", "fault_read"):  # sessions before "fault_read" have "fault" only
            samples.setdefault(("cpu_fault", c["test"], c["pages"]), []).append(c["time_ns"])
    for raw in raws:
        for f in raw["faults"]:
            launch = f.get("launch_overhead_ns", raw["launch_overhead_ns"])
            for t in f.get("times_ns", [f["time_ns"]]):
                samples.setdefault(("faults", f["pattern"], f["bytes"]), []).append(t - launch)
        for r in raw.get("isolated", []):
            launch = raw["launch_overhead_ns"]
            samples.setdefault(("faults", "isolated", r["kernels"]), []).append(r["median_ns"] - launch)
        for r in raw.get("read_mostly", []):
            samples.setdefault(("read_mostly", "", r["bytes"]), []).append(r["time_ns"] - r["launch_overhead_ns"])
    return {k: statistics.median(v) for k, v in sorted(samples.items())}


def kernel_time(result):
    """A run's simulated kernel time: its only kernel, or the median of many
    (the isolated-fault run's kernels each take one fault)."""
    return statistics.median(k["counters"]["time_ns"] for k in result["kernels"])


def trace_name(kind, pattern, size):
    """The file calibration_traces_tool writes for one pooled microbenchmark."""
    if kind == "faults" and pattern == "isolated":
        return f"isolated_{size}.umt"
    if kind == "faults":
        return f"faults_{pattern}_{size}.umt"
    if kind == "read_mostly":
        return f"read_mostly_{size}.umt"
    return f"cpu_{size * PAGE}.umt"  # CPU runs are keyed by pages


def main():
    if len(sys.argv) < 5:
        sys.exit("usage: tune_profile.py PROFILE.toml UMSIM_BINARY CALIBRATION_TRACES_TOOL RAW.json [RAW.json ...]")
    profile_path, umsim, tool = sys.argv[1], os.path.abspath(sys.argv[2]), sys.argv[3]
    raws = [json.load(open(p)) for p in sys.argv[4:]]
    hw = pooled_hardware_times(raws)
    base = open(profile_path).read()
    tmp = tempfile.mkdtemp(prefix="umsim-tune-")
    traces = os.path.join(tmp, "traces")
    subprocess.run([tool, traces], check=True)

    def trace_file(name):
        path = os.path.join(traces, name)
        if not os.path.exists(path):
            sys.exit(f"tune_profile.py: the calibration data has a run with no trace of its own ({name}); "
                     "calibration_traces_tool must write every run any session measured")
        return path

    runs = []        # demand faults that migrate pages from the CPU
    fresh_runs = []  # GPU first touch: population, its own costs
    rm_runs = []     # ReadMostly first reads: read duplication
    cpu_phases = {}  # CPU faults on GPU-resident pages: phase name -> hardware time
    cpu_sizes = set()
    for (kind, pattern, size), ns in hw.items():
        if kind == "faults":
            path = trace_file(trace_name(kind, pattern, size))
            (fresh_runs if pattern == "gpu_fresh" else runs).append((path, ns))
        elif kind == "read_mostly":
            rm_runs.append((trace_file(trace_name(kind, pattern, size)), ns))
        else:
            cpu_phases[pattern] = ns
            cpu_sizes.add(size)
    if len(cpu_sizes) != 1:
        sys.exit("tune_profile.py: the calibration files disagree on the CPU run's size")
    cpu_path = trace_file(trace_name("cpu_fault", "", cpu_sizes.pop()))
    prof = os.path.join(tmp, "p.toml")
    # Resident access bandwidth (GB/s = bytes per ns), set before the fault costs
    # since every replayed kernel pays it for the pages it touches.
    # Hardware times here have the launch overhead removed, so the replays run
    # without gpu.launch_cost; the written profile keeps the fitted one. With
    # sub-page runs, fit_profile has set the access costs; older sessions only
    # have whole-page "resident" runs, whose median bandwidth is the value.
    access = {"gpu.launch_cost": '"0ns"'}
    resident = [r for raw in raws for r in raw.get("resident", [])]
    if resident and not any("subpage" in raw for raw in raws):
        access["gpu.access_gbps"] = str(round(statistics.median(
            r["bytes"] / (r["time_ns"] - r["launch_overhead_ns"]) for r in resident)))

    # The replays of one grid point run side by side, one per core (each is a
    # single-threaded, deterministic process), so the result does not depend on it.
    pool = concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 1)

    def errors_for(values, which=None):
        open(prof, "w").write(set_values(base, values))
        chosen = runs if which is None else which
        results = pool.map(lambda run: run_sim(umsim, run[0], prof, tmp), chosen)
        return [(kernel_time(r) - hw) / hw for r, (_, hw) in zip(results, chosen)]

    # Coordinate descent over the fault-service keys (each key swept over its
    # candidates with the others fixed, until a full sweep changes nothing):
    # far fewer replays than the full grid, so faults.migrated_page_cost (the
    # driver's per-page work on every page a fault service moves, prefetched
    # ones included) fits in the search. gpu.access_lanes: how many slices of a
    # range a kernel's warps sweep at once (1 = address order; 132 = one per
    # H200 multiprocessor).
    candidates = {
        "faults.batch_cost": [f'"{us}us"' for us in (0, 5, 10, 20, 40, 80, 160, 320)],
        "faults.va_block_cost": [f'"{us}us"' for us in (0, 5, 10, 20, 40, 80)],
        "faults.page_cost": [f'"{ns}ns"' for ns in (0, 100, 200, 400, 800, 1600)],
        "faults.migrated_page_cost": [f'"{ns}ns"' for ns in (0, 100, 200, 300, 400, 600, 800, 1200)],
        "faults.concurrency": ["64", "128", "256"],
        "gpu.access_lanes": ["1", "4", "16", "32", "132"],
    }
    start = {"faults.batch_cost": '"40us"', "faults.va_block_cost": '"20us"', "faults.page_cost": '"400ns"',
             "faults.migrated_page_cost": '"0ns"', "faults.concurrency": "128", "gpu.access_lanes": "32"}
    values = dict(access, **start)
    best = (score(errors_for(values)), values)
    for _ in range(4):
        changed = False
        for key, options in candidates.items():
            for option in options:
                trial = dict(best[1], **{key: option})
                s = score(errors_for(trial))
                if s < best[0]:
                    best, changed = (s, trial), True
        if not changed:
            break
    fault_values = best[1]
    fault_errors = errors_for(fault_values)

    # GPU first touch (population): the per-block cost and the zero-fill
    # bandwidth, matched on the gpu_fresh runs with the migration costs fixed.
    best_pop = None
    for block_us, gbps in itertools.product([0, 2, 5, 10, 20, 40, 80], [10, 15, 20, 25, 30, 35, 40, 50, 64]):
        values = dict(fault_values, **{"faults.populate_va_block_cost": f'"{block_us}us"',
                                       "faults.populate_gbps": str(gbps)})
        s = score(errors_for(values, fresh_runs))
        if best_pop is None or s < best_pop[0]:
            best_pop = (s, values)
    fault_values = best_pop[1]
    fresh_errors = errors_for(fault_values, fresh_runs)

    # Read duplication (ReadMostly first read), with everything above fixed:
    # the block cost and, where the profile has the key, the per-page cost of
    # a duplicate (the smallest block cost wins a tie: one run size cannot
    # tell the two apart).
    rm_errors = []
    if rm_runs:
        best_rm = None
        pages = [0, 25, 50, 70, 100, 150, 200] if "duplicated_page_cost" in base else [None]
        for block_us, page_ns in itertools.product([0, 5, 10, 20, 30, 40, 60, 80, 120], pages):
            values = dict(fault_values, **{"faults.duplicate_va_block_cost": f'"{block_us}us"'})
            if page_ns is not None:
                values["faults.duplicated_page_cost"] = f'"{page_ns}ns"'
            s = score(errors_for(values, rm_runs))
            if best_rm is None or s < best_rm[0]:
                best_rm = (s, values)
        fault_values = best_rm[1]
        rm_errors = errors_for(fault_values, rm_runs)

    # CPU faults: cpu.fault_cost matched on the calibration run's "fault" phase
    # (CPU writes to GPU-resident pages), cpu.read_fault_cost on "fault_read"
    # (reads; sessions without it leave the key as it is). The two phases are
    # independent in the simulator, so one sweep tunes both.
    keys = {"fault": "cpu.fault_cost", "fault_read": "cpu.read_fault_cost"}
    best_cpu = {}  # phase -> (abs error, ns, error)
    for ns in [0, 250, 500, 1000, 2000, 4000, 8000, 12000, 16000, 24000, 32000, 48000, 64000]:
        values = dict(fault_values, **{keys[name]: f'"{ns}ns"' for name in cpu_phases})
        open(prof, "w").write(set_values(base, values))
        r = run_sim(umsim, cpu_path, prof, tmp)
        sim = {p["name"]: p["counters"]["time_ns"] for p in r["phases"]}
        for name, hw_ns in cpu_phases.items():
            err = (sim[name] - hw_ns) / hw_ns
            if name not in best_cpu or abs(err) < best_cpu[name][0]:
                best_cpu[name] = (abs(err), ns, round(err, 4))
    values = dict(fault_values, **{keys[name]: f'"{b[1]}ns"' for name, b in best_cpu.items()})
    values.pop("gpu.launch_cost")  # the profile keeps fit_profile's value
    open(profile_path, "w").write(set_values(base, values))
    report = {"values": values,
              "calibration_files": len(raws),
              "calibration_kernel_time_errors": {os.path.basename(p): round(e, 4) for (p, _), e in zip(runs, fault_errors)},
              "mean_abs_error": round(best[0][0], 4),
              "median_abs_error": round(best[0][1], 4),
              "populate_kernel_time_errors": {os.path.basename(p): round(e, 4)
                                              for (p, _), e in zip(fresh_runs, fresh_errors)},
              "read_mostly_kernel_time_errors": {os.path.basename(p): round(e, 4)
                                                 for (p, _), e in zip(rm_runs, rm_errors)},
              "cpu_fault_phase_errors": {name: b[2] for name, b in best_cpu.items()}}
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
