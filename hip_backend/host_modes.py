#!/usr/bin/env python3
"""Does a process's memory layout, or the CPUs it runs on, set its host speed?
Reads what `device_run.sh host_modes` wrote: traces/probe/host_mode.umt replayed
in processes alternately with the address space randomised (host_modes/random.N.json)
and with the randomisation off (host_modes/fixed.N.json, setarch -R: every such
process gets the same layout); with --cpus, what `device_run.sh host_cpus` wrote:
the same probe in processes alternately bound to the lower and the upper half of
the CPUs (host_cpus/low.N.json, host_cpus/high.N.json, taskset). Per part of the
probe (process_profile.py's parts: bulk fault kernels, first touch, isolated
faults, collapse, re-prefetch), per group: the median time, the spread over the
processes (standard deviation of the log of each process's time, in percent)
and the range; then each process's times, in the order they ran. If the layout
(the CPUs) set the speed, a group's spread would fall to the probe's own noise
(docs/validation.md, "The host's speed is set per process").

usage: host_modes.py [--cpus] RESULTS_DIR > TABLE.md
RESULTS_DIR holds host_modes/ (host_cpus/ with --cpus): a call's results, unpacked or filed.
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

# Each experiment: its folder (named as the device_run.sh step that writes it),
# its two groups (file prefix, words) and how its processes are counted.
EXPERIMENTS = {
    "layout": ("host_modes", (("random", "randomised"), ("fixed", "fixed")),
               "{} with the address space randomised, {} with it fixed (setarch -R)"),
    "cpus": ("host_cpus", (("low", "lower CPUs"), ("high", "upper CPUs")),
             "{} bound to the lower half of the CPUs, {} to the upper half (taskset)"),
}


def fail(message):
    sys.exit(f"host_modes.py: {message}")


def read_runs(directory, experiment="layout"):
    """{group: [(process number, path, result), ...]} in process order, each result
    checked to be a run of the probe (host_rescale.read_probe, as process_profile.py reads them)."""
    folder_name, groups, _count = EXPERIMENTS[experiment]
    prefixes = [g for g, _words in groups]
    folder = os.path.join(directory, folder_name)
    if not os.path.isdir(folder):
        fail(f"{directory}: no {folder_name}/ folder (a call run with `device_run.sh {folder_name}`)")
    name = re.compile(rf"^({'|'.join(prefixes)})\.(\d+)\.json$")
    runs = {g: [] for g in prefixes}
    for path in glob.glob(os.path.join(folder, "*.json")):
        m = name.match(os.path.basename(path))
        if not m:
            fail(f"{path}: not a {folder_name} result (expected {' or '.join(g + '.N.json' for g in prefixes)})")
        runs[m.group(1)].append((int(m.group(2)), path, hr.read_probe(path)))
    for g in prefixes:
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
    experiment = "layout"
    if argv[:1] == ["--cpus"]:
        experiment, argv = "cpus", argv[1:]
    if len(argv) != 1:
        fail("usage: host_modes.py [--cpus] RESULTS_DIR")
    _folder, groups, count = EXPERIMENTS[experiment]
    runs = read_runs(argv[0], experiment)
    (a, a_words), (b, b_words) = groups
    print(f"Processes: {count.format(len(runs[a]), len(runs[b]))}.\n")
    print(f"| part | median, {a_words} | median, {b_words} | spread, {a_words} | spread, {b_words} | range, {a_words} "
          f"| range, {b_words} |")
    print("|---|---|---|---|---|---|---|")
    ms = lambda x: f"{x / 1e6:.3f} ms"  # noqa: E731
    shown = []
    for part in PARTS:
        t = {g: part_times(runs[g], part) for g in (a, b)}
        if any(v is None for v in t.values()):
            continue
        shown.append((part, t))
        print(f"| {part} | {ms(statistics.median(t[a]))} | {ms(statistics.median(t[b]))} | "
              f"{spread(t[a]) * 100:.1f}% | {spread(t[b]) * 100:.1f}% | "
              f"{ms(min(t[a]))} - {ms(max(t[a]))} | {ms(min(t[b]))} - {ms(max(t[b]))} |")
    # Each process, so that modes shared by several parts show (a slow first
    # touch beside a slow re-prefetch in one process).
    print("\n| process | " + " | ".join(part for part, _t in shown) + " |")
    print("|---|" + "---|" * len(shown))
    for g, words in groups:
        for i, (n, _path, _result) in enumerate(runs[g]):
            print(f"| {words} {n} | " + " | ".join(ms(t[g][i]) for _part, t in shown) + " |")


if __name__ == "__main__":
    main(sys.argv[1:])
