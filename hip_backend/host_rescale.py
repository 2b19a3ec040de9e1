#!/usr/bin/env python3
"""Re-measures the host part of a profile from the host probe.

A profile's demand-fault and CPU-fault costs are set by the host (its CPU and
kernel servicing the driver's and its own page faults), and the lent H200
machines differ in them by up to ~60% between calls while the GPU-side keys
stay within a few percent (docs/validation.md, "Sessions 18-24: the host probe"). The host
probe (traces/probe/host_fault_speed.umt) takes about two seconds on the GPU:
a CPU first touch of 1 GiB, then the calibration's 1 GiB sequential
demand-fault kernel, three times. This script finds two factors: the one by
which the GPU-fault servicing keys (GPU_FAULT_KEYS) must be multiplied for the
simulator to give the probe kernels' measured time, and the one by which the
CPU page-fault keys (CPU_FAULT_KEYS) must be multiplied to give the first
touch's (and, where the probe has them, the wake-up, ReadMostly and remote
read factors below). It writes the profile with those keys scaled; every other key, the
GPU's, the links' and the CPU's memory speed, is left as calibrated.

usage: host_rescale.py [--source TEXT] PROFILE.toml UMSIM_BINARY PROBE_TRACE OUT.toml PROBE.json [PROBE.json ...]
Each PROBE.json is an `umsim-hip replay` result of the probe trace (or runs
made to stand for one: hip_backend/calibration_as_probe.py). The profile's
note says where the runs came from: TEXT, or "N host probe run(s)". The
hardware times are medians over all files (kernels, and the first-touch
phase). OUT.toml is written through a temporary file and renamed; an OUT.toml
that names an input is refused.
"""
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile

from tune_profile import add_key, set_values

# The driver's work per VA block and per page when it services GPU faults,
# populations and read-duplication revocations: the bulk probe kernels' time.
GPU_FAULT_KEYS = [
    "faults.va_block_cost",
    "faults.page_cost",
    "faults.migrated_page_cost",
    "faults.populate_va_block_cost",
    "faults.revoke_duplicate_page_cost",
]
# The host kernel's own page faults (first touch, and CPU faults on pages the
# GPU holds, which the calibrations show move together with it): the probe's
# first-touch phase. The CPU's memory speed (page and word access costs) stays:
# it differs by a few percent between the lent hosts, first touches by 1.7x.
CPU_FAULT_KEYS = ["cpu.first_touch_cost", "cpu.fault_cost", "cpu.collapse_fault_cost"]
# ReadMostly's host work, bimodal between the lent hosts and only loosely
# following the first touch (docs/validation.md, "The probe measures
# ReadMostly's host work"): the CPU's faults collapsing read duplicates, and
# the driver revoking the CPU's write permission when a prefetch duplicates the
# range again. Scaled by their
# own factors where the probe has the collapse and reprefetch phases (since
# session 53); before, the collapse key goes with the CPU fault keys and the
# revocation stays as calibrated.
COLLAPSE_KEY = "cpu.collapse_fault_cost"
REVOKE_KEYS = ["prefetch.duplicate_va_block_cost", "faults.revoke_cpu_write_page_cost"]
COLLAPSE_PHASE, REPREFETCH_PHASE = "collapse", "reprefetch"
# Scaled with the CPU page-fault keys where the profile has them (later keys).
OPTIONAL_CPU_FAULT_KEYS = ["cpu.read_fault_cost"]
# Scaled with the GPU-fault keys where the profile has them (later keys).
OPTIONAL_GPU_FAULT_KEYS = ["faults.duplicated_page_cost", "faults.run_cost", "prefetch.host_va_block_cost"]
# The fault interrupt's wake-up of an idle servicer, paid once per faulting
# kernel: set (not scaled) to what the probe's isolated faults take beyond the
# scaled service, where the probe has them. An isolated fault's latency does
# not follow bulk faulting's speed between hosts (docs/validation.md, v32).
WAKEUP_KEY = "faults.wakeup_cost"
FIRST_TOUCH_PHASE = "main"  # the probe's first phase: the CPU writes A, 1 GiB, for the first time
BULK_KERNEL, BULK_KERNELS = "touch", 3
ISOLATED_KERNEL, ISOLATED_KERNELS = "isolated", 16  # absent from the probe runs of sessions 18-21
MAX_WAKEUP_NS = 2e6
# The GPU reading 64 MiB of pinned host memory (since session 105): its reads'
# bandwidth through a mapping follows the host (on sessions 102 and 104's H100
# hosts two thirds of the usual), its stores' not, so a profile that has no
# separate store bandwidth gets one, the reads' value, before the reads scale.
REMOTE_KERNEL = "remote_read"
REMOTE_KEY, REMOTE_WRITE_KEY = "remote.gpu_to_host_gbps", "remote.gpu_write_to_host_gbps"
# The read requests' cost grows as the square of the bandwidth's fall: on
# sessions 102 and 104's hosts the calibrations' sparse reads gave 3.47 and
# 3.61 ns a request (x2.15, x2.24 the H100 profile's 1.615) where their whole
# reads ran at x0.679 and x0.659 its 50.95 GB/s (exponents 1.98, 1.93).
REMOTE_REQUEST_KEY = "remote.request_cost"
# The report's names for each group: its part of the probe, and its factor (the wake-up's value).
REPORT_NAMES = {
    "gpu": ("kernel", "gpu_fault_factor"),
    "cpu": ("first_touch", "cpu_fault_factor"),
    "wakeup": ("isolated", "wakeup_ns"),
    "collapse": ("collapse", "collapse_factor"),
    "revoke": ("reprefetch", "revoke_factor"),
    "remote": ("remote_read", "remote_read_factor"),
}
UNITS_NS = {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}


def fail(message):
    sys.exit(f"host_rescale.py: {message}")


def duration_ns(text, key, path):
    """A profile duration: a string with a unit ("20us") or an integer of ns."""
    if re.fullmatch(r"[0-9]+", text):
        return float(text)
    m = re.fullmatch(r'"\s*([0-9]+(?:\.[0-9]+)?)\s*(ns|us|ms|s)\s*"', text)
    if not m:
        fail(f'{path}: {key} = {text}: expected a duration such as "20us" or an integer of ns')
    return float(m.group(1)) * UNITS_NS[m.group(2)]


def profile_values(toml_text):
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


def kernel_times(result, name=BULK_KERNEL):
    return [float(k["counters"]["time_ns"]) for k in result["kernels"] if k.get("name") == name]


def isolated_times(result):
    return kernel_times(result, ISOLATED_KERNEL)


def phase_times(result, name):
    return [float(p["counters"]["time_ns"]) for p in result["phases"] if p["name"] == name]


def first_touch_times(result):
    return phase_times(result, FIRST_TOUCH_PHASE)


def collapse_times(result):
    return phase_times(result, COLLAPSE_PHASE)


def reprefetch_times(result):
    return phase_times(result, REPREFETCH_PHASE)


def remote_read_times(result):
    return kernel_times(result, REMOTE_KERNEL)


def read_probe(path):
    """One hardware replay of the probe trace, checked to be one."""
    try:
        data = json.load(open(path))
    except (OSError, ValueError) as e:
        fail(f"{path}: not a readable JSON file ({e})")
    if not isinstance(data, dict) or not isinstance(data.get("kernels"), list) or not isinstance(data.get("phases"), list):
        fail(f"{path}: not a replay result (no kernels and phases)")
    try:
        times = (kernel_times(data), isolated_times(data), first_touch_times(data))
        read_mostly = (collapse_times(data), reprefetch_times(data))
    except (KeyError, TypeError, ValueError, AttributeError):  # AttributeError: a kernel that is not an object
        fail(f"{path}: a kernel or phase without counters.time_ns")
    if len(remote_read_times(data)) > 1:
        fail(f"{path}: {len(remote_read_times(data))} '{REMOTE_KERNEL}' kernels; the probe trace has one (or none: "
             "a probe before session 105)")
    if tuple(len(t) for t in read_mostly) not in ((0, 0), (1, 1)):
        fail(f"{path}: {len(read_mostly[0])} '{COLLAPSE_PHASE}' and {len(read_mostly[1])} '{REPREFETCH_PHASE}' "
             "phases; the probe trace has one of each (or none: a probe before session 53)")
    shape = tuple(len(t) for t in times)
    if shape not in ((BULK_KERNELS, 0, 1), (BULK_KERNELS, ISOLATED_KERNELS, 1)):
        fail(f"{path}: {shape[0]} '{BULK_KERNEL}' and {shape[1]} '{ISOLATED_KERNEL}' kernels, {shape[2]} "
             f"'{FIRST_TOUCH_PHASE}' phases; the probe trace has {BULK_KERNELS} and {ISOLATED_KERNELS} "
             f"(or 0: an earlier probe) kernels and one such phase (a replay of another trace?)")
    if min(t for group in times + read_mostly + (remote_read_times(data),) for t in group) <= 0:
        fail(f"{path}: a kernel or a timed phase has no time (an incomplete replay)")
    return data


def check_inputs_and_output(inputs, out, fail):
    """Every input exists and OUT.toml names none of them (it would be overwritten)."""
    if not out.endswith(".toml"):
        fail(f"OUT must end in .toml (got '{out}')")
    for path in inputs:
        if not os.path.isfile(path):
            fail(f"{path}: no such file")
        if os.path.exists(out) and os.path.samefile(out, path):
            fail(f"output {out} is the input {path} (refused: it would be overwritten)")


def note_lines(text, width=100):
    """TEXT as profile comment lines of at most WIDTH characters (words kept whole)."""
    lines, line = [], "#"
    for word in text.split():
        if len(line) + 1 + len(word) > width and line != "#":
            lines.append(line)
            line = "#"
        line += " " + word
    return lines + [line]


def main():
    args = sys.argv[1:]
    source = None
    if args[:1] == ["--source"]:
        if len(args) < 2 or not args[1].strip():
            fail("--source needs a description of where the probe runs came from")
        source, args = args[1], args[2:]
    if len(args) < 5:
        fail("usage: host_rescale.py [--source TEXT] PROFILE.toml UMSIM_BINARY PROBE_TRACE OUT.toml PROBE.json "
             "[PROBE.json ...]")
    profile_path, umsim, trace, out = args[0], os.path.abspath(args[1]), args[2], args[3]
    probe_paths = args[4:]
    check_inputs_and_output([profile_path, trace] + probe_paths, out, fail)
    probes = [read_probe(p) for p in probe_paths]
    base = open(profile_path).read()
    values = profile_values(base)
    missing = [k for k in GPU_FAULT_KEYS + CPU_FAULT_KEYS if k not in values]
    if missing:
        fail(f"{profile_path}: no {', '.join(missing)} (a profile with every host-side fault key is needed)")
    gpu_keys = GPU_FAULT_KEYS + [k for k in OPTIONAL_GPU_FAULT_KEYS if k in values]
    cpu_keys = CPU_FAULT_KEYS + [k for k in OPTIONAL_CPU_FAULT_KEYS if k in values]
    with_collapse = all(collapse_times(p) for p in probes)
    revoke_keys = [k for k in REVOKE_KEYS if k in values and with_collapse]
    if with_collapse:
        cpu_keys.remove(COLLAPSE_KEY)
    calibrated = {k: duration_ns(values[k], k, profile_path) for k in gpu_keys + cpu_keys + revoke_keys + [COLLAPSE_KEY]}
    revoke_keys = [k for k in revoke_keys if calibrated[k] > 0]  # a factor cannot move a zero
    tmp = tempfile.mkdtemp(prefix="umsim-host-")

    # Groups of keys, each scaled by its own factor to match its part of the
    # probe; the wake-up is a value, not a factor (its calibrated value may be 0).
    with_isolated = all(isolated_times(p) for p in probes)
    groups = {"gpu": (gpu_keys, "the probe's bulk-fault kernels", kernel_times),
              "cpu": (cpu_keys, "the CPU first touch", first_touch_times)}
    if with_isolated:
        groups["wakeup"] = ([WAKEUP_KEY], "the isolated faults", isolated_times)
        if WAKEUP_KEY not in values:  # optional in a profile: add it (0) to its table
            base = add_key(base, "faults", "wakeup_cost", '"0ns"')
        calibrated[WAKEUP_KEY] = 1.0  # the "factor" of the wake-up is its value in ns
    if with_collapse:
        groups["collapse"] = ([COLLAPSE_KEY], "the CPU write collapsing read duplicates", collapse_times)
        if revoke_keys:
            groups["revoke"] = (revoke_keys, "the prefetch duplicating the collapsed range again", reprefetch_times)

    # The reads of host memory: a bandwidth, not a cost (their time falls as it grows).
    with_remote = all(remote_read_times(p) for p in probes) and REMOTE_KEY in values
    if with_remote:
        read_gbps = float(values[REMOTE_KEY])
        if REMOTE_WRITE_KEY not in values:
            base = add_key(base, "remote", "gpu_write_to_host_gbps", values[REMOTE_KEY])
        request_ns = duration_ns(values[REMOTE_REQUEST_KEY], REMOTE_REQUEST_KEY, profile_path) \
            if REMOTE_REQUEST_KEY in values else 0.0

    def scaled_text(factors):
        scaled = {k: '"%dns"' % round(calibrated[k] * factors[group])
                  for group, (keys, _, _) in groups.items() for k in keys}
        if with_remote:
            scaled[REMOTE_KEY] = "%.2f" % (read_gbps * factors["remote"])
            if request_ns > 0:
                scaled[REMOTE_REQUEST_KEY] = '"%.3fns"' % (request_ns / factors["remote"] ** 2)
        return set_values(base, scaled)

    def model(factors):
        prof, result = os.path.join(tmp, "p.toml"), os.path.join(tmp, "r.json")
        open(prof, "w").write(scaled_text(factors))
        # --sync-at-phases: the backend's phase semantics (docs/hip_backend.md)
        subprocess.run([umsim, "replay", trace, "--profile", prof, "--json", result, "-q", "--sync-at-phases"],
                       check=True)
        return json.load(open(result))

    # The modelled time of a group's part of the probe grows with its factor:
    # bisect each with the others fixed (factors on a log scale in 1/16-16, the
    # wake-up in 0-2 ms). The CPU first touch depends on no GPU key nor the
    # kernels on CPU keys; the bulk and isolated faults both pay the scaled
    # service and the wake-up, so those two are fitted in turn until they settle.
    hardware = {g: statistics.median(t for p in probes for t in times(p)) for g, (_, _, times) in groups.items()}
    factors = {g: (0.0 if g == "wakeup" else 1.0) for g in groups}
    if with_remote:
        factors["remote"] = 1.0
    if with_isolated and values.get(WAKEUP_KEY):
        factors["wakeup"] = duration_ns(values[WAKEUP_KEY], WAKEUP_KEY, profile_path)
    as_calibrated = model(factors)
    before = {g: statistics.median(times(as_calibrated)) for g, (_, _, times) in groups.items()}
    if with_remote:
        hardware["remote"] = statistics.median(t for p in probes for t in remote_read_times(p))
        before["remote"] = statistics.median(remote_read_times(as_calibrated))
    for _ in range(4 if with_isolated else 1):
        previous = dict(factors)
        for group, (_, what, times) in groups.items():
            def modelled(f):
                return statistics.median(times(model(dict(factors, **{group: f}))))
            lo, hi = (0.0, MAX_WAKEUP_NS) if group == "wakeup" else (1 / 16, 16.0)
            at_lo, at_hi = modelled(lo), modelled(hi)
            if group == "wakeup" and hardware[group] < at_lo:
                # The scaled service alone takes longer than the isolated faults
                # did (a host whose bulk faulting is slow for its interrupt
                # latency): no wake-up beyond it.
                factors[group] = 0.0
                continue
            if not at_lo <= hardware[group] <= at_hi:
                fail(f"{what} took {hardware[group] / 1e6:.3f} ms on the hardware, outside what the profile's "
                     f"host costs can give ({at_lo / 1e6:.3f}-{at_hi / 1e6:.3f} ms): not the probe, or another "
                     "kind of machine than the profile's")
            if group == "wakeup":
                while hi - lo > 100:
                    mid = (lo + hi) / 2
                    lo, hi = (mid, hi) if modelled(mid) < hardware[group] else (lo, mid)
                factors[group] = round((lo + hi) / 2, -2)
            else:
                while hi / lo > 1.0005:
                    mid = (lo * hi) ** 0.5
                    lo, hi = (mid, hi) if modelled(mid) < hardware[group] else (lo, mid)
                factors[group] = round((lo * hi) ** 0.5, 3)
        if factors == previous:
            break
    if with_remote:
        # Independent of the fault keys: bisected once, its time falling as the factor grows.
        def modelled_remote(f):
            return statistics.median(remote_read_times(model(dict(factors, remote=f))))
        lo, hi = 1 / 16, 16.0
        if not modelled_remote(hi) <= hardware["remote"] <= modelled_remote(lo):
            fail(f"the GPU's read of pinned host memory took {hardware['remote'] / 1e6:.3f} ms on the hardware, "
                 "outside what 1/16 to 16 times the profile's remote.gpu_to_host_gbps can give")
        while hi / lo > 1.0005:
            mid = (lo * hi) ** 0.5
            lo, hi = (mid, hi) if modelled_remote(mid) > hardware["remote"] else (lo, mid)
        factors["remote"] = round((lo * hi) ** 0.5, 3)

    note = note_lines("Host part re-measured by hip_backend/host_rescale.py from " +
                      (source or f"{len(probes)} host probe run(s)") + ":")
    for group, (keys, what, _) in groups.items():
        change = f"{WAKEUP_KEY} = {factors[group]:.0f} ns" + \
            (" (the rescaled service alone takes longer)" if factors[group] == 0 else "") if group == "wakeup" else \
            f"x{factors[group]} on {', '.join(keys)}"
        note.append(f"# {what} took {hardware[group] / 1e6:.3f} ms (profile: {before[group] / 1e6:.3f} ms): {change}")
    if with_remote:
        note.append(f"# the GPU's read of pinned host memory took {hardware['remote'] / 1e6:.3f} ms (profile: "
                    f"{before['remote'] / 1e6:.3f} ms): x{factors['remote']} on {REMOTE_KEY}" +
                    (f", x{round(1 / factors['remote'] ** 2, 3)} on {REMOTE_REQUEST_KEY}" if request_ns > 0 else ""))
    # A profile rescaled before keeps only the latest note (its values are the base).
    lines, skipping = [], False
    for line in scaled_text(factors).splitlines():
        if line.startswith("# Host part re-measured"):
            skipping = True
        elif skipping and not line.startswith("#"):
            skipping = False
        if not skipping:
            lines.append(line)
    at = next((i for i, line in enumerate(lines) if line.startswith("[")), len(lines))
    text = "\n".join(lines[:at] + note + lines[at:]) + "\n"
    partial = out + ".partial"
    open(partial, "w").write(text)
    os.replace(partial, out)
    report = {}
    for group in list(groups) + (["remote"] if with_remote else []):
        part, factor_name = REPORT_NAMES[group]
        report[f"hardware_{part}_ms"] = round(hardware[group] / 1e6, 3)
        report[f"profile_{part}_ms"] = round(before[group] / 1e6, 3)
        report[factor_name] = factors[group]
    report["out"] = out
    print(json.dumps(report))

if __name__ == "__main__":
    main()
