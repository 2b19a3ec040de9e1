#!/usr/bin/env python3
"""How much of a call's error is its hardware reference's own noise: the model's
simulated times (one umsim result per trace) judged, as validate.sh judges them,
against the median of every choice of k of the call's N repetitions, for each k
from 1 to N (docs/validation.md, "Session 128: five repetitions, and pageable
copies copy by copy").

A scope is a kernel or phase of at least 50 us on either side (the error
table's rule, error_table.py). For each k it prints the mean over the choices of
the median abs time error and of the share within 10%, and the range of the
median: what a call with k repetitions would have published, and how much the
choice of repetitions moves it. With all N the figures are validate.sh's.

usage: reference_subsets.py SIM_DIR RESULTS_DIR
SIM_DIR holds NAME.json (`umsim replay --json`, as validate.sh writes into its
OUT_DIR/sim), RESULTS_DIR the call's NAME.r1.json ... NAME.rN.json. Every trace
simulated must have the same number N >= 2 of repetitions.
"""
import glob
import itertools
import math
import os
import random
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import repeatability  # noqa: E402  (same directory: its scopes and the error table's 50 us rule)
from repeatability import MIN_TIME_NS  # noqa: E402

WITHIN = 0.10
MAX_CHOICES = 200  # per k; beyond it (many repetitions) a fixed-seed sample of choices


def fail(message):
    sys.exit(f"reference_subsets.py: {message}")


def scope_times(path):
    """{scope: time_ns} of one result (repeatability.py's scopes), or a clear error."""
    try:
        return repeatability.scope_times(path)
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as e:
        fail(f"{path}: not an umsim result ({type(e).__name__}: {e})")


def scopes(sim_dir, results_dir):
    """[(simulated ns, [hardware ns per repetition])] over every trace of SIM_DIR; and N."""
    sims = sorted(glob.glob(os.path.join(sim_dir, "*.json")))
    if not sims:
        fail(f"{sim_dir}: no simulated results (NAME.json)")
    out, reps_seen = [], None
    for sim_path in sims:
        name = os.path.basename(sim_path)[: -len(".json")]
        reps = []  # NAME.r1.json, NAME.r2.json, ... as device_run.sh numbers them
        while os.path.isfile(path := os.path.join(results_dir, f"{name}.r{len(reps) + 1}.json")):
            reps.append(path)
        if len(reps) < 2:
            fail(f"{results_dir}: {name} has {len(reps)} repetition(s) ({name}.r1.json ...), at least 2 needed")
        if reps_seen is not None and len(reps) != reps_seen:
            fail(f"{results_dir}: {name} has {len(reps)} repetitions, other traces {reps_seen}")
        reps_seen = len(reps)
        sim = scope_times(sim_path)
        hardware = [scope_times(p) for p in reps]
        for scope, simulated in sim.items():
            times = [h.get(scope) for h in hardware]
            if None not in times:
                out.append((simulated, times))
    return out, reps_seen


def judge(rows, chosen):
    """(median abs error, share within 10%, scopes) against the median of the chosen repetitions."""
    errors = []
    for simulated, times in rows:
        reference = statistics.median(times[i] for i in chosen)
        if max(simulated, reference) < MIN_TIME_NS or reference <= 0:
            continue
        errors.append(abs(simulated / reference - 1))
    if not errors:
        fail("no scope of at least 50 us")
    return statistics.median(errors), sum(e <= WITHIN for e in errors) / len(errors), len(errors)


def choices(n, k):
    """Every choice of k of n repetitions, or, where there are more than MAX_CHOICES,
    MAX_CHOICES of them drawn with a fixed seed (the same output every run)."""
    if math.comb(n, k) <= MAX_CHOICES:
        return list(itertools.combinations(range(n), k))
    rng = random.Random(k)
    return [tuple(sorted(rng.sample(range(n), k))) for _ in range(MAX_CHOICES)]


def main(argv):
    if len(argv) != 2:
        sys.exit(next(line for line in __doc__.splitlines() if line.startswith("usage:")))
    for d in argv:
        if not os.path.isdir(d):
            fail(f"{d}: no such directory")
    rows, n = scopes(*argv)
    print("| repetitions in the reference | choices | median abs time error (mean; range) | within 10% (mean) |")
    print("|---|---|---|---|")
    for k in range(1, n + 1):
        judged = [judge(rows, chosen) for chosen in choices(n, k)]
        medians = [j[0] for j in judged]
        print(f"| {k} of {n} | {len(judged)} | {statistics.mean(medians) * 100:.2f}% "
              f"({min(medians) * 100:.2f}-{max(medians) * 100:.2f}%) | "
              f"{statistics.mean(j[1] for j in judged) * 100:.1f}% |")


if __name__ == "__main__":
    main(sys.argv[1:])
