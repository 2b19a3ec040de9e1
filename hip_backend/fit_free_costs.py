#!/usr/bin/env python3
"""Fits the host time of freeing managed memory from diagnostics that end in a phase of frees.

A diagnostic folder (hip_backend/results/GPU/diag_*) keeps its traces in
traces/ and its replays as TRACE.rN.json. Every trace whose last phase holds
nothing but frees measures them: that phase's time, the median over the
trace's processes. What each free has to tear down comes from the simulator:
the trace is replayed with the profile's free costs set to 1 ns a call and
1 ms a VA block with pages on a GPU, so the last phase's time reads back as
(blocks x 1 ms + managed frees x 1 ns). Least squares over the traces then
gives

    phase time = host.free_call_cost x managed frees + host.free_gpu_block_cost x GPU blocks

(both kept at or above 0: a negative block cost is dropped and the call cost
fitted alone). Frees of device or pinned host memory are not managed frees and
cost nothing in the model; a phase that frees only those is left out.

usage: fit_free_costs.py PROFILE.toml UMSIM OUT.toml DIAG_DIR [DIAG_DIR ...]
Prints one JSON object: the two values and, per trace, its features and
hardware time. OUT.toml is PROFILE.toml with the two keys set (added to its
[host] table where absent); written through a temporary file and renamed; an
OUT.toml that names an input is refused.
"""

import glob
import json
import os
import statistics
import subprocess
import sys
import tempfile

from diag_runs import scope_times
from tune_profile import names_an_input, set_or_add_values

NAME = "fit_free_costs.py"
CALL, BLOCK = "host.free_call_cost", "host.free_gpu_block_cost"
PROBE_BLOCK_NS = 1_000_000  # the block cost the feature replay sets: far above any count of frees


def fail(message):
    sys.exit(f"{NAME}: {message}")


def with_keys(text, values):
    """The profile with the [host] free keys set, added to the table where absent."""
    try:
        return set_or_add_values(text, values)
    except KeyError:
        fail("the profile has no [host] table to hold the free costs")


def free_phase_traces(directory):
    """[(trace path, name)] of a diagnostic's traces whose last phase holds only frees."""
    out = []
    for path in sorted(glob.glob(os.path.join(directory, "traces", "*.umt"))):
        with open(path) as f:
            lines = [l.strip() for l in f if l.strip() and not l.lstrip().startswith("#")]
        marks = [i for i, l in enumerate(lines) if l.startswith("phase ")]
        if not marks:
            continue
        body = [l for l in lines[marks[-1] + 1:] if l != "end-of-trace"]
        if body and all(l.startswith("free ") for l in body):
            out.append((path, os.path.basename(path)[:-len(".umt")]))
    return out


def hardware_ns(directory, name):
    """Median over the trace's replays of its last phase's time; None without replays."""
    runs = sorted(glob.glob(os.path.join(directory, f"{name}.r*.json")))
    if not runs:
        return None
    return statistics.median(scope_times(r, "phases", fail)[-1][1] for r in runs)


def features(umsim, trace, probe_profile, tmp):
    """(managed frees, VA blocks with pages on a GPU) the trace's last phase frees, in the model."""
    out = os.path.join(tmp, "features.json")
    p = subprocess.run([umsim, "replay", trace, "--profile", probe_profile, "--json", out, "-q", "--sync-at-phases"],
                       capture_output=True, text=True)
    if p.returncode:
        fail(f"{trace}: the simulator refused it: {p.stderr.strip()}")
    t = scope_times(out, "phases", fail)[-1][1]
    return t % PROBE_BLOCK_NS, t // PROBE_BLOCK_NS


def least_squares(rows):
    """(call ns, block ns) minimising the squared error, both >= 0."""
    sff = sum(f * f for f, _, _ in rows)
    sbb = sum(b * b for _, b, _ in rows)
    sfb = sum(f * b for f, b, _ in rows)
    sfy = sum(f * y for f, _, y in rows)
    sby = sum(b * y for _, b, y in rows)
    det = sff * sbb - sfb * sfb
    if det > 0:
        call, block = (sbb * sfy - sfb * sby) / det, (sff * sby - sfb * sfy) / det
        if call >= 0 and block >= 0:
            return call, block
    return (sfy / sff if sff else 0.0), 0.0


def main():
    if len(sys.argv) < 5:
        sys.exit("usage: fit_free_costs.py PROFILE.toml UMSIM OUT.toml DIAG_DIR [DIAG_DIR ...]")
    profile, umsim, out, dirs = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
    if names_an_input(out, [profile, umsim]):
        fail(f"OUT.toml '{out}' names an input")
    for d in dirs:
        if not os.path.isdir(os.path.join(d, "traces")):
            fail(f"{d}: not a diagnostic folder (no traces/ beside its replays)")
    try:
        with open(profile) as f:
            text = f.read()
    except OSError as e:
        fail(f"{profile}: {e.strerror}")
    rows, report = [], []
    with tempfile.TemporaryDirectory() as tmp:
        probe = os.path.join(tmp, "probe.toml")
        with open(probe, "w") as f:
            f.write(with_keys(text, {CALL: '"1ns"', BLOCK: f'"{PROBE_BLOCK_NS}ns"'}))
        for d in dirs:
            for trace, name in free_phase_traces(d):
                hw = hardware_ns(d, name)
                if hw is None:
                    continue
                frees, blocks = features(umsim, trace, probe, tmp)
                if frees == 0:
                    continue  # device or pinned memory only
                rows.append((frees, blocks, hw))
                report.append({"trace": trace, "managed_frees": frees, "gpu_blocks": blocks, "hardware_ns": hw})
    if len(rows) < 2:
        fail(f"{len(rows)} diagnostic trace(s) end in a phase of managed frees with replays; at least 2 are needed")
    call, block = least_squares(rows)
    values = {CALL: f'"{round(call)}ns"', BLOCK: f'"{round(block)}ns"'}
    updated = with_keys(text, values)
    directory = os.path.dirname(os.path.abspath(out))
    fd, tmp_out = tempfile.mkstemp(dir=directory, prefix=".fit_free_costs.")
    with os.fdopen(fd, "w") as f:
        f.write(updated)
    os.replace(tmp_out, out)
    print(json.dumps({"free_call_cost_ns": round(call), "free_gpu_block_cost_ns": round(block),
                      "traces": report, "out": out}, indent=1))


if __name__ == "__main__":
    main()
