#!/usr/bin/env python3
"""The model against several GPU-machine calls at once, scope by scope: which
misses repeat on every machine (the model's) and which come and go with the
host (docs/validation.md, "Sessions 18-24").

Each argument is a directory `hip_backend/validate.sh` wrote (its compare/
holds one `umsim compare --json` per trace), one per call, all with the same
traces. Scopes are the error table's time scopes (error_table.py: kernels and
phases of at least 50 us on either side). A scope counts where at least half
the calls have it (short kernels fall under the 50 us floor on fast hosts).
Its pooled error is the median of its signed errors over those calls; it
"repeats" when every call's error is beyond 10% on the same side.

A last table asks how far the hardware itself lets a model go: each call's
scopes predicted by the median of the other calls' hardware times (the best
any prediction that knows nothing of the call's own host can do, for
scopes that move with the host), against the model's, as counts within 10%.

Another asks how far any per-scope correction could go: each call's errors
with every pooled scope's own pooled error taken out (its simulated time
divided by 1 + that error), in sample by construction, so an upper bound on
what fixing the model's repeating per-scope biases could give; what is left
is how the calls differ from one another (their hosts, their processes).

usage: pooled_errors.py RESULTS_DIR RESULTS_DIR... > TABLE.md
"""
import collections
import glob
import json
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import error_table  # noqa: E402  (same directory; the time scopes are its definition)

WITHIN = 0.10
SHOWN = 15  # repeating misses listed


def fail(message):
    sys.exit(f"pooled_errors.py: {message}")


def time_rows(directory):
    """{(trace, scope): (signed relative error, hardware ns)} of one call's validation."""
    paths = sorted(glob.glob(os.path.join(directory, "compare", "*.compare.json")))
    if not paths:
        fail(f"{directory}: no compare/*.compare.json (not a hip_backend/validate.sh output directory)")
    try:
        rows = error_table.select(paths, byte_captures=False)["time"]
    except (OSError, ValueError, KeyError, TypeError) as e:
        fail(f"{directory}: unreadable compare output ({type(e).__name__}: {e})")
    return {(trace, scope): (err, hw) for trace, scope, _sim, hw, err in rows if err is not None}


def time_errors(directory):
    """{(trace, scope): signed relative error} of one call's validation."""
    return {key: err for key, (err, _hw) in time_rows(directory).items()}


def others_hardware(calls):
    """Per call: (scopes, within 10% by the other calls' median hardware, within 10% by the model)."""
    out = []
    for i, rows in enumerate(calls):
        n = by_others = by_model = 0
        for key, (err, hw) in rows.items():
            others = [c[key][1] for j, c in enumerate(calls) if j != i and key in c]
            if not others or hw <= 0:
                continue
            n += 1
            by_others += abs(statistics.median(others) - hw) / hw <= WITHIN
            by_model += abs(err) <= WITHIN
        out.append((n, by_others, by_model))
    return out


def without_biases(calls, med):
    """Per call: (median abs error, within 10%, scopes), as judged and with every pooled
    scope's pooled error taken out ((1 + error) / (1 + pooled) - 1)."""
    out = []
    for errors in calls:
        if not errors:
            continue
        before = [abs(e) for e in errors.values()]
        # A scope the model never times (pooled -100%) has no factor to take out: left as judged.
        after = [abs((1 + e) / (1 + med[key]) - 1) if med.get(key, -1) > -1 else abs(e)
                 for key, e in errors.items()]
        out.append(((statistics.median(before), sum(e <= WITHIN for e in before)),
                    (statistics.median(after), sum(e <= WITHIN for e in after)), len(before)))
    return out


def pooled(calls):
    by_scope = collections.defaultdict(list)
    for errors in calls:
        for key, err in errors.items():
            by_scope[key].append(err)
    need = (len(calls) + 1) // 2
    return {key: errs for key, errs in by_scope.items() if len(errs) >= need}


def repeats(errs):
    return all(e > WITHIN for e in errs) or all(e < -WITHIN for e in errs)


def main(dirs):
    if len(dirs) < 2:
        fail("usage: pooled_errors.py RESULTS_DIR RESULTS_DIR... (at least two calls' validation outputs)")
    rows = [time_rows(d) for d in dirs]
    errors = [{key: err for key, (err, _hw) in r.items()} for r in rows]
    scopes = pooled(errors)
    if not scopes:
        fail("no time scope is common to at least half of the calls")
    med = {key: statistics.median(errs) for key, errs in scopes.items()}
    rep = {key for key, errs in scopes.items() if repeats(errs)}
    abs_med = [abs(m) for m in med.values()]
    within = sum(1 for m in abs_med if m <= WITHIN)
    print(f"Pooled over {len(dirs)} calls: {len(scopes)} time scopes in at least half of them.\n")
    print("| scopes | median abs pooled error | pooled within 10% | misses on every call, same side (model slower / faster) |")
    print("|---|---|---|---|")
    slower = sum(1 for k in rep if med[k] > 0)
    print(f"| {len(scopes)} | {statistics.median(abs_med) * 100:.1f}% | {within}/{len(scopes)} | "
          f"{len(rep)} ({slower} / {len(rep) - slower}) |")
    print("\n| trace | scopes | median pooled error | repeating misses |")
    print("|---|---|---|---|")
    traces = collections.defaultdict(list)
    for key in scopes:
        traces[key[0]].append(key)
    for trace, keys in sorted(traces.items()):
        print(f"| {trace} | {len(keys)} | {statistics.median(med[k] for k in keys) * 100:+.1f}% | "
              f"{sum(1 for k in keys if k in rep)} |")
    print(f"\nLargest repeating misses (pooled error; range over the calls):\n")
    print("| trace | scope | pooled error | range |")
    print("|---|---|---|---|")
    for key in sorted(rep, key=lambda k: (-abs(med[k]), k))[:SHOWN]:
        errs = scopes[key]
        print(f"| {key[0]} | {key[1]} | {med[key] * 100:+.1f}% | {min(errs) * 100:+.1f}% .. {max(errs) * 100:+.1f}% |")
    bound = without_biases(errors, med)
    print("\nEvery pooled scope's pooled error taken out of each call (in sample: the most any per-scope "
          "correction could give):\n")
    print("| | median per call | calls at or under 6% | at or under 12% | calls with 60% within 10% |")
    print("|---|---|---|---|---|")
    for name, i in (("as judged", 0), ("pooled errors taken out", 1)):
        meds = [c[i][0] for c in bound]
        print(f"| {name} | {statistics.median(meds) * 100:.2f}% | {sum(m <= 0.06 for m in meds)} of {len(bound)} | "
              f"{sum(m <= 0.12 for m in meds)} of {len(bound)} | "
              f"{sum(c[i][1] >= 0.6 * c[2] for c in bound)} of {len(bound)} |")
    print("\nEach call's scopes predicted by the other calls' median hardware time, against the model "
          "(within 10%):\n")
    print("| call | scopes | other calls' hardware | model |")
    print("|---|---|---|---|")
    per_call = others_hardware(rows)
    for d, (n, by_others, by_model) in zip(dirs, per_call):
        print(f"| {d} | {n} | {by_others} ({by_others / n * 100:.1f}%) | {by_model} ({by_model / n * 100:.1f}%) |")
    reach = lambda k: sum(1 for c in per_call if c[0] and c[k] >= 0.6 * c[0])  # noqa: E731
    print(f"\nCalls with 60% of their scopes within 10%: other calls' hardware {reach(1)} of {len(dirs)}, "
          f"model {reach(2)} of {len(dirs)}.")


if __name__ == "__main__":
    main(sys.argv[1:])
