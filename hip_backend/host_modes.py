#!/usr/bin/env python3
"""Does a process's memory layout set its host speed? Reads what
`device_run.sh host_modes` wrote: traces/probe/host_mode.umt replayed in
processes alternately with the address space randomised (host_modes/random.N.json)
and with the randomisation off (host_modes/fixed.N.json, setarch -R: every such
process gets the same layout). Per part of the probe (process_profile.py's
parts: bulk fault kernels, first touch, isolated faults, collapse, re-prefetch),
per group: the median time, the spread over the processes (standard deviation of
the log of each process's time, in percent) and the range. If the layout set
the speed, the fixed group's spread would fall to the probe's own noise
(docs/validation.md, "The host's speed is set per process").

usage: host_modes.py RESULTS_DIR > TABLE.md
RESULTS_DIR holds host_modes/ (a call's results, unpacked or filed).
"""
import glob
import math
import os
import re
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import host_rescale as hr  # noqa: E402  (same directory: how a probe run is read and checked)
from process_profile import PARTS  # noqa: E402  (the probe's parts)

GROUPS = ("random", "fixed")
NAME = re.compile(r"^(random|fixed)\.(\d+)\.json$")


def fail(message):
    sys.exit(f"host_modes.py: {message}")


def read_runs(directory):
    """{group: [(process number, path, result), ...]} in process order, each result
    checked to be a run of the probe (host_rescale.read_probe, as process_profile.py reads them)."""
    folder = os.path.join(directory, "host_modes")
    if not os.path.isdir(folder):
        fail(f"{directory}: no host_modes/ folder (a call run with `device_run.sh host_modes`)")
    runs = {g: [] for g in GROUPS}
    for path in glob.glob(os.path.join(folder, "*.json")):
        m = NAME.match(os.path.basename(path))
        if not m:
            fail(f"{path}: not a host_modes result (expected random.N.json or fixed.N.json)")
        runs[m.group(1)].append((int(m.group(2)), path, hr.read_probe(path)))
    for g in GROUPS:
        if len(runs[g]) < 2:
            fail(f"{folder}: {len(runs[g])} '{g}' results; at least two of each group are needed")
    return {g: sorted(r) for g, r in runs.items()}


def part_times(runs, part):
    """Each process's median time of one part, or None where the probe lacks it."""
    times = [PARTS[part][0](result) for _n, _path, result in runs]
    return None if not all(times) else [statistics.median(t) for t in times]


def spread(times):
    return statistics.stdev(math.log(t) for t in times)


def main(argv):
    if len(argv) != 1:
        fail("usage: host_modes.py RESULTS_DIR")
    runs = read_runs(argv[0])
    print(f"Processes: {len(runs['random'])} with the address space randomised, {len(runs['fixed'])} "
          "with it fixed (setarch -R).\n")
    print("| part | median, randomised | median, fixed | spread, randomised | spread, fixed | range, randomised "
          "| range, fixed |")
    print("|---|---|---|---|---|---|---|")
    for part in PARTS:
        t = {g: part_times(runs[g], part) for g in GROUPS}
        if any(v is None for v in t.values()):
            continue
        ms = lambda x: f"{x / 1e6:.3f} ms"  # noqa: E731
        print(f"| {part} | {ms(statistics.median(t['random']))} | {ms(statistics.median(t['fixed']))} | "
              f"{spread(t['random']) * 100:.1f}% | {spread(t['fixed']) * 100:.1f}% | "
              f"{ms(min(t['random']))} - {ms(max(t['random']))} | {ms(min(t['fixed']))} - {ms(max(t['fixed']))} |")


if __name__ == "__main__":
    main(sys.argv[1:])
