#!/usr/bin/env python3
"""Replays traces/amd/ with the AMD profiles and prints the model's numbers next
to the published ones, with the error (the tables of docs/validation.md,
"AMD targets from published measurements", and of docs/amd.md).

  python3 traces/amd/reproduce.py UMSIM [--check FILE | --write FILE]

UMSIM is the umsim binary (./bazelw build //tools:umsim; bazel-bin/tools/umsim).
--write stores the tables in FILE, --check fails if they differ from FILE
(tests/sim/amd_reproduction_test.sh pins traces/amd/reproduction.md that way).
Run from the repository root.
"""
import json
import os
import subprocess
import sys
import tempfile

TRACES = "traces/amd"
PROFILES = "profiles"


def replay(umsim, trace, profile, vendor):
    """Returns (result JSON or None, first line of the error)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "r.json")
        p = subprocess.run([umsim, "replay", os.path.join(TRACES, trace + ".umt"), "--profile",
                            os.path.join(PROFILES, profile + ".toml"), "--vendor", vendor, "--json", out, "-q"],
                           capture_output=True, text=True)
        if p.returncode != 0:
            return None, (p.stderr.strip().splitlines() or ["exit " + str(p.returncode)])[0]
        with open(out) as f:
            return json.load(f), ""


def pct(model, paper):
    return f"{(model - paper) / paper * 100:+.1f}%"


def pearson(umsim):
    # mi300a-xnack (C. Pearson, ROCm 6.2.1, MI300A, --offload-arch=gfx942): yes / segfault.
    paper = {("hipMalloc", "gpu_kernel"): ("yes", "yes"), ("malloc", "gpu_kernel"): ("segfault", "yes"),
             ("hipMallocManaged", "gpu_kernel"): ("yes", "yes"), ("hipMalloc", "host_loop"): ("yes", "yes"),
             ("malloc", "host_loop"): ("yes", "yes"), ("hipMallocManaged", "host_loop"): ("yes", "yes")}
    rows = ["| allocator | access | HSA_XNACK=0 published | model (amd-apu-xnack-off) | HSA_XNACK=1 published | "
            "model (amd-apu-xnack-on) | agree |", "|---|---|---|---|---|---|---|"]
    agree = 0
    for (api, access), (p0, p1) in paper.items():
        got = []
        for vendor in ("amd-apu-xnack-off", "amd-apu-xnack-on"):
            r, err = replay(umsim, f"pearson_{api}_{access}", "mi300a", vendor)
            if r is not None:
                got.append("yes")
            elif "XNACK off" in err:
                got.append("segfault")
            else:
                got.append("refused: " + err.split(".umt:", 1)[-1].split(": ", 1)[-1])
        ok = got[0] == p0 and got[1] == p1
        agree += ok
        rows.append(f"| {api} | {access.replace('_', ' ')} | {p0} | {got[0]} | {p1} | {got[1]} | {'yes' if ok else 'no'} |")
    rows.append(f"\n{agree} of {len(paper)} rows agree.")
    return "\n".join(rows)


# BabelStream 4.0 on a Radeon VII (UoB-HPC/utpx README): MBytes/sec.
BABEL_BYTES = {"copy": 2, "mul": 2, "add": 3, "triad": 3, "dot": 2}
UTPX = {"managed": {"copy": 21989.273, "mul": 22020.178, "add": 19225.037, "triad": 19229.798, "dot": 13468.631},
        "device": {"copy": 845300.937, "mul": 842076.480, "add": 835445.048, "triad": 833085.608, "dot": 851026.490}}
ARRAY = 1 << 28  # 2^25 doubles


def utpx(umsim, errors):
    rows = ["| arrays | kernel | published MB/s | model MB/s | error |", "|---|---|---|---|---|"]
    for kind, vendor in (("managed", "amd-xnack-off"), ("device", "amd-xnack-off")):
        r, err = replay(umsim, f"utpx_babelstream_{kind}", "radeon-vii", vendor)
        if r is None:
            raise SystemExit(f"utpx_babelstream_{kind}: {err}")
        times = {k["name"]: k["counters"]["time_ns"] for k in r["kernels"]}
        for kernel, n in BABEL_BYTES.items():
            model = n * ARRAY / times[kernel] * 1000.0  # bytes per ns = GB/s; x1000 = MB/s
            paper = UTPX[kind][kernel]
            errors.append(abs(model - paper) / paper)
            rows.append(f"| {kind} ({'host-resident, XNACK off' if kind == 'managed' else 'device-resident'}) | "
                        f"{kernel} | {paper:.0f} | {model:.0f} | {pct(model, paper)} |")
    return "\n".join(rows)


def llnl(umsim):
    times = {}
    for alloc in ("hipMalloc", "malloc"):
        r, err = replay(umsim, f"llnl_triad_{alloc}", "mi300a", "amd-apu-xnack-on")
        if r is None:
            raise SystemExit(f"llnl_triad_{alloc}: {err}")
        first = [k for k in r["kernels"] if k["name"] == "first_triad"][0]["counters"]
        k = [k for k in r["kernels"] if k["name"] == "triad"][0]["counters"]
        times[alloc] = (first["time_ns"], first["gpu_faults"], k["time_ns"], r["total"]["bytes_h2d"])
    ratio = times["malloc"][2] / times["hipMalloc"][2]
    rows = ["| Triad over | first pass (ms) | its GPU faults | second pass (ms) | bytes migrated |", "|---|---|---|---|---|"]
    for alloc, label in (("hipMalloc", "hipMalloc"), ("malloc", "malloc, CPU-initialised, HSA_XNACK=1")):
        t = times[alloc]
        rows.append(f"| {label} | {t[0] / 1e6:.3f} | {t[1]} | {t[2] / 1e6:.3f} | {t[3]} |")
    return "\n".join(rows) + (f"\n\nSecond pass, malloc / hipMalloc = {ratio:.3f} (LLNL: ~15% overhead from 4 KB pages; "
                              f"in-sample: the profile's remote rate is access_gbps / 1.15).")


def seeds(umsim):
    rows = ["| profile | vendor | trace | kernel time (ms) | GB/s | GPU faults | bytes H2D | result |",
            "|---|---|---|---|---|---|---|---|"]
    for profile, vendors in (("mi250x", ("amd-xnack-off", "amd-xnack-on")), ("mi300x", ("amd-xnack-off", "amd-xnack-on")),
                             ("mi300a", ("amd-apu-xnack-off", "amd-apu-xnack-on"))):
        for vendor in vendors:
            for trace in ("seed_demand_read", "seed_prefetched_read", "seed_device_read"):
                if trace == "seed_device_read" and vendor != vendors[0]:
                    continue  # device memory does not depend on XNACK
                r, err = replay(umsim, trace, profile, vendor)
                if r is None:
                    rows.append(f"| {profile} | {vendor} | {trace} | | | | | {err[:80]} |")
                    continue
                k = r["kernels"][0]["counters"]
                rows.append(f"| {profile} | {vendor} | {trace} | {k['time_ns'] / 1e6:.3f} | "
                            f"{(1 << 30) / k['time_ns']:.1f} | {k['gpu_faults']} | {r['total']['bytes_h2d']} | ok |")
    return "\n".join(rows)


def training(umsim):
    """The first seed article's recipe (prefetch before forward, AccessedBy in
    backward, ReadMostly weights): `umsim trace gen training` (512 MiB, 8 layers,
    3 iterations) with each hint variant, total time."""
    hints = ("none", "prefetch", "accessed_by", "read_mostly", "all")
    rows = ["| profile | vendor | " + " | ".join(hints) + " | all vs none |", "|---|---|" + "---|" * (len(hints) + 1)]
    with tempfile.TemporaryDirectory() as tmp:
        for h in hints:
            subprocess.run([umsim, "trace", "gen", "training", "-p", f"footprint=512MiB,hints={h}", "-o",
                            os.path.join(tmp, h + ".umtb")], check=True, capture_output=True)
        for profile, vendor in (("mi250x", "amd-xnack-on"), ("mi250x", "amd-xnack-off"), ("mi300x", "amd-xnack-on"),
                                ("mi300a", "amd-apu-xnack-on")):
            times = {}
            for h in hints:
                out = os.path.join(tmp, "r.json")
                subprocess.run([umsim, "replay", os.path.join(tmp, h + ".umtb"), "--profile",
                                os.path.join(PROFILES, profile + ".toml"), "--vendor", vendor, "--json", out, "-q"],
                               check=True, capture_output=True)
                with open(out) as f:
                    times[h] = json.load(f)["total"]["time_ns"]
            rows.append(f"| {profile} | {vendor} | " + " | ".join(f"{times[h] / 1e6:.2f} ms" for h in hints) +
                        f" | {pct(times['all'], times['none'])} |")
    return "\n".join(rows)


def main():
    if len(sys.argv) < 2:
        raise SystemExit(__doc__)
    umsim = os.path.abspath(sys.argv[1])
    errors = []
    text = "\n\n".join([
        "## mi300a-xnack (allocator x access x HSA_XNACK, MI300A)\n\n" + pearson(umsim),
        "## utpx BabelStream (Radeon VII, no XNACK)\n\n" + utpx(umsim, errors),
        "## LLNL 4 KB pages (MI300A Triad, 3 x 1 GiB)\n\n" + llnl(umsim),
        "## Seed-article checks (1 GiB read by one kernel)\n\n" + seeds(umsim),
        "## Seed-article training recipe (umsim trace gen training, 512 MiB)\n\n" + training(umsim),
    ])
    errors.sort()
    median = errors[len(errors) // 2] if len(errors) % 2 else (errors[len(errors) // 2 - 1] + errors[len(errors) // 2]) / 2
    text += f"\n\nOut-of-sample median abs error (utpx BabelStream, {len(errors)} numbers): {median * 100:.1f}%\n"
    if len(sys.argv) == 4 and sys.argv[2] == "--write":
        with open(sys.argv[3], "w") as f:
            f.write(text)
    elif len(sys.argv) == 4 and sys.argv[2] == "--check":
        with open(sys.argv[3]) as f:
            expected = f.read()
        if expected != text:
            import difflib
            sys.stdout.writelines(difflib.unified_diff(expected.splitlines(True), text.splitlines(True), sys.argv[3], "now"))
            raise SystemExit("the AMD reproduction changed: review the diff, then rerun with --write " + sys.argv[3])
        print("AMD reproduction unchanged")
    else:
        print(text)


if __name__ == "__main__":
    main()
