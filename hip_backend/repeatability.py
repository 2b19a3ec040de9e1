#!/usr/bin/env python3
"""How far the hardware is from itself within one GPU-machine call: each
repetition of each kernel / phase time against the mean of the other
repetitions of that trace, over every scope lasting at least 50 us (the
validation's error table threshold), reported as the median absolute relative
difference and the share within 10% (docs/validation.md, "Sessions 14-17").

It also estimates the floor this spread puts under any model's error on the
call: a model exact in expectation, judged (as validate.sh judges) against the
median of the repetitions. Each scope's repetitions are redrawn from a normal
distribution with their own mean and standard deviation, DRAWS times with a
fixed seed, and the median of each draw compared with the mean (docs/validation.md,
"The hardware's noise floor").

usage: repeatability.py RESULTS_DIR [RESULTS_DIR ...]
"""
import glob
import json
import os
import random
import statistics
import sys

MIN_TIME_NS = 50_000
DRAWS = 200


def scope_times(path):
    result = json.load(open(path))
    times = {}
    for i, k in enumerate(result.get("kernels", [])):
        times[f"kernel {i} {k['name']}"] = k["counters"]["time_ns"]
    for p in result.get("phases", []):
        times[f"phase {p['name']}"] = p["counters"]["time_ns"]
    return times


def repeated_scopes(results_dir):
    """Each repeated scope's times, one per repetition, for scopes of at least MIN_TIME_NS."""
    for first in sorted(glob.glob(os.path.join(results_dir, "*.r1.json"))):
        stem = first[: -len(".r1.json")]
        reps = [scope_times(p) for p in sorted(glob.glob(stem + ".r*.json"))]
        if len(reps) < 2:
            continue
        for scope in reps[0]:
            values = [r.get(scope) for r in reps]
            if None in values or max(values) < MIN_TIME_NS:
                continue
            yield values


def differences(results_dir):
    out = []
    for values in repeated_scopes(results_dir):
        for i, v in enumerate(values):
            reference = statistics.mean(values[:i] + values[i + 1:])
            if reference > 0:
                out.append(abs(v - reference) / reference)
    return out


def noise_floor(results_dir):
    """A model exact in expectation against the median of the repetitions:
    its relative errors over DRAWS redraws of every scope."""
    rng = random.Random(0)
    out = []
    for values in repeated_scopes(results_dir):
        mean, sd = statistics.mean(values), statistics.stdev(values)
        if mean <= 0:
            continue
        for _ in range(DRAWS):
            drawn = statistics.median(rng.gauss(mean, sd) for _ in values)
            out.append(abs(drawn - mean) / mean)
    return out


def main(argv):
    if not argv:
        sys.exit(__doc__.strip().splitlines()[-1])
    for d in argv:
        if not os.path.isdir(d):
            sys.exit(f"repeatability.py: {d} is not a directory")
        diffs = differences(d)
        if not diffs:
            sys.exit(f"repeatability.py: {d} holds no repeated hardware results (NAME.r1.json, NAME.r2.json, ...)")
        within = sum(1 for x in diffs if x <= 0.10)
        floor = noise_floor(d)
        floor_within = sum(1 for x in floor if x <= 0.10) / len(floor)
        print(f"{d}: one repetition vs the mean of the others: median {statistics.median(diffs) * 100:.1f}%, "
              f"{within}/{len(diffs)} within 10%; an exact model against the median of the repetitions: "
              f"median {statistics.median(floor) * 100:.1f}%, {floor_within * 100:.1f}% within 10%")


if __name__ == "__main__":
    main(sys.argv[1:])
