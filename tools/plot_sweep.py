#!/usr/bin/env python3
"""Plots `umsim sweep` output (JSON Lines): one panel per trace, a metric against
oversubscription (trace footprint as % of GPU memory), one line per policy set.

Reads the JSON fields directly (never the human-readable tables), so a renamed
or missing metric is an error, not a silently wrong plot.

  tools/plot_sweep.py sweep.jsonl -o sweep.png [--metric time_ns] [--log]
"""
import argparse
import collections
import json
import sys


def load(path):
    rows = []
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as e:
                sys.exit(f"{path}:{number}: not a JSON line ({e.msg} at column {e.colno})")
            for key in ("trace", "oversubscription_pct", "result"):
                if key not in row:
                    sys.exit(f"{path}:{number}: missing field '{key}' (is this `umsim sweep` output?)")
            rows.append(row)
    if not rows:
        sys.exit(f"{path}: no sweep results")
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("inputs", nargs="+", help="sweep JSON Lines files (shards are merged)")
    parser.add_argument("-o", "--out", required=True, help="output image (.png, .pdf, .svg)")
    parser.add_argument("--metric", default="time_ns", help="counter of result.total to plot (default time_ns)")
    parser.add_argument("--log", action="store_true", help="logarithmic y axis")
    args = parser.parse_args()

    rows = [row for path in args.inputs for row in load(path)]
    known = rows[0]["result"]["total"].keys()
    if args.metric not in known:
        sys.exit(f"unknown metric '{args.metric}' (known: {', '.join(known)})")

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    by_trace = collections.OrderedDict()
    for row in sorted(rows, key=lambda r: r.get("index", 0)):
        policy = " / ".join(str(row.get(k, "?")) for k in ("vendor", "prefetch", "evict", "migrate", "thrashing"))
        by_trace.setdefault(row["trace"], collections.OrderedDict()).setdefault(policy, []).append(
            (row["oversubscription_pct"], row["result"]["total"][args.metric]))

    fig, axes = plt.subplots(1, len(by_trace), figsize=(6 * len(by_trace), 4.5), squeeze=False)
    scale, unit = (1e6, "ms") if args.metric.endswith("_ns") else (1, "")
    for ax, (trace, lines) in zip(axes[0], by_trace.items()):
        for policy, points in lines.items():
            points.sort()
            ax.plot([p[0] for p in points], [p[1] / scale for p in points], marker="o", label=policy)
        ax.set_title(trace.rsplit("/", 1)[-1])
        ax.set_xlabel("footprint / GPU memory (%)")
        ax.set_ylabel(args.metric.replace("_ns", "") + (f" ({unit})" if unit else ""))
        if args.log:
            ax.set_yscale("log")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=7, title="vendor / prefetch / evict / migrate / thrashing", title_fontsize=7)
    fig.tight_layout()
    fig.savefig(args.out, dpi=120)
    print(f"wrote {args.out} ({sum(len(l) for l in by_trace.values())} policy lines, {len(rows)} points)")


if __name__ == "__main__":
    main()
