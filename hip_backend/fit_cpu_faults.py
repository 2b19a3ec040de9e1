#!/usr/bin/env python3
"""Fits the CPU's fault path on GPU-held pages from runs of traces/probe/cpu_faults.umt.

The trace's CPU faults bring back four 128 MiB buffers: whole pages read, one
word per page read, whole pages written, one word per page written. On an H200
a page the fault just migrated in costs far less to touch than a resident
page (the copy left it in the host's cache), and the fault path itself costs
more than the copy: the word phases give the fault's cost, the page phases
then give the faulted page's. Per direction (read / write), with the model's
own fault count n and page count m of the phase, in the simulator with the
fault cost at 0 and the faulted page at the word's cost:

    fault cost        = (hw word phase - sim word phase) / n
    faulted page cost = word cost + (hw page phase - sim page phase - n * fault cost) / m

Keys set: cpu.read_fault_cost, cpu.faulted_page_read_cost, cpu.fault_cost,
cpu.faulted_page_write_cost (hardware: the median phase time over the runs).

usage: fit_cpu_faults.py PROFILE.toml UMSIM TRACE OUT.toml RUN.json [RUN.json ...]
PROFILE.toml must have the fault and word keys in its [cpu] table (their
comments are kept); the faulted-page keys are added where it has none. OUT.toml is written through a temporary file and renamed; an OUT.toml
that names an input is refused.
"""

import json
import os
import re
import statistics
import sys
import tempfile

from diag_runs import scope_times
from tune_profile import add_key, names_an_input, replay_profile_text, set_values

NAME = "fit_cpu_faults.py"
# (direction, fault-cost key, faulted-page key, word-cost key, page phase, word phase)
DIRECTIONS = [
    ("read", "cpu.read_fault_cost", "cpu.faulted_page_read_cost", "cpu.word_read_cost",
     "page_read_faults", "word_read_faults"),
    ("write", "cpu.fault_cost", "cpu.faulted_page_write_cost", "cpu.word_access_cost",
     "page_write_faults", "word_write_faults"),
]
PHASES = [p for d in DIRECTIONS for p in d[4:]]
UNITS_NS = {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}
PAGE = 4096


def fail(message):
    sys.exit(f"{NAME}: {message}")


def phase_times(path):
    phases = dict(scope_times(path, "phases", fail))
    missing = [p for p in PHASES if p not in phases]
    if missing:
        fail(f"{path}: expected phases {', '.join(PHASES)} (a run of traces/probe/cpu_faults.umt); "
             f"missing {', '.join(missing)}")
    return phases


def values_of(toml, path):
    """The [cpu] table's values of the profile, in ns (durations only)."""
    values, section = {}, ""
    for line in toml.splitlines():
        s = line.split("#", 1)[0].strip()
        if s.startswith("["):
            section = s[1:s.index("]")]
        elif "=" in s and section == "cpu":
            key, value = (x.strip() for x in s.split("=", 1))
            text = value.strip('"')
            for unit in sorted(UNITS_NS, key=len, reverse=True):
                if text.endswith(unit):
                    try:
                        values[f"cpu.{key}"] = float(text[:-len(unit)]) * UNITS_NS[unit]
                    except ValueError:
                        fail(f"{path}: cpu.{key} = {value} is not a duration")
                    break
    return values


def simulate(umsim, trace, toml, tmp, tag):
    return {p["name"]: p["counters"] for p in replay_profile_text(umsim, trace, toml, tmp, tag)["phases"]}


def main():
    if len(sys.argv) < 6:
        fail("usage: fit_cpu_faults.py PROFILE.toml UMSIM TRACE OUT.toml RUN.json [RUN.json ...]")
    profile, umsim, trace, out, runs = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:]
    if names_an_input(out, [profile, umsim, trace] + runs):
        fail(f"OUT.toml '{out}' names an input")
    measured = [phase_times(r) for r in runs]
    hw = {p: statistics.median(m[p] for m in measured) for p in PHASES}
    with open(profile) as f:
        text = f.read()
    values = values_of(text, profile)
    # The faulted-page keys are optional in a profile: added to its [cpu] table.
    for key in (d[2] for d in DIRECTIONS):
        if key not in values and re.search(r"^\[cpu\]", text, flags=re.M):
            name = key.split(".", 1)[1]
            text = add_key(text, "cpu", name, '"0ns"')
            values[key] = 0.0
    needed = [k for d in DIRECTIONS for k in d[1:4]]
    missing = [k for k in needed if k not in values]
    if missing:
        fail(f"{profile}: no {', '.join(missing)} key in its [cpu] table to update")

    with tempfile.TemporaryDirectory() as tmp:
        base = {}
        for _, fault_key, page_key, word_key, _, _ in DIRECTIONS:
            base[fault_key] = '"0ns"'
            base[page_key] = f'"{round(values[word_key])}ns"'
        sim = simulate(umsim, trace, set_values(text, base), tmp, "base")
        fitted, report = {}, {}
        for direction, fault_key, page_key, word_key, page_phase, word_phase in DIRECTIONS:
            faults = sim[word_phase]["cpu_faults"]
            pages = sim[page_phase]["accesses"]
            if faults == 0 or pages == 0 or sim[page_phase]["cpu_faults"] != faults:
                fail(f"{trace}: the simulator's {word_phase} / {page_phase} phases do not fault alike "
                     f"({faults} and {sim[page_phase]['cpu_faults']} faults)")
            fault = max(0.0, (hw[word_phase] - sim[word_phase]["time_ns"]) / faults)
            page = (hw[page_phase] - sim[page_phase]["time_ns"] - faults * fault) / pages + values[word_key]
            page = max(values[word_key], page)
            fitted[fault_key] = round(fault)
            fitted[page_key] = round(page)
            report[direction] = {"faults": faults, "pages": pages, "hw_word_ns": hw[word_phase],
                                 "hw_page_ns": hw[page_phase], fault_key: round(fault), page_key: round(page)}
        updated = set_values(text, {k: f'"{v}ns"' for k, v in fitted.items()})
        check = simulate(umsim, trace, updated, tmp, "fitted")
    for direction, _, _, _, page_phase, word_phase in DIRECTIONS:
        report[direction]["sim_word_ns"] = check[word_phase]["time_ns"]
        report[direction]["sim_page_ns"] = check[page_phase]["time_ns"]
    tmp_out = out + ".tmp"
    with open(tmp_out, "w") as f:
        f.write(updated)
    os.replace(tmp_out, out)
    print(json.dumps({"fitted_ns": fitted, "phases": report, "runs": len(runs), "out": out}))


if __name__ == "__main__":
    main()
