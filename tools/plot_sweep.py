#!/usr/bin/python3
"""Plots `umsim sweep` output (JSON Lines): one panel per trace, a metric against
oversubscription (trace footprint as % of GPU memory), one line per policy set,
named by its full resolved specs (`tree:threshold=25,...`), one legend per figure.

Reads the JSON fields directly (never the human-readable tables), so a renamed
or missing metric is an error, not a silently wrong plot. Two points with the
same label but different configurations (e.g. shards of two different sweeps)
are an error, never merged into one line. Failed points (`--keep-going`) are
left out, with a note.

  tools/plot_sweep.py sweep.jsonl -o sweep.png [--metric time_ns] [--log]
"""
import argparse
import collections
import json
import os
import sys
import textwrap

SYSTEM_PYTHON = "/usr/bin/python3"  # Debian's, where python3-matplotlib lives
POLICY_KEYS = ("vendor", "profile", "prefetch", "evict", "migrate", "thrashing")


def import_matplotlib():
    """matplotlib from this interpreter, else from the system Python (re-run there), else a one-line error."""
    try:
        import matplotlib
        return matplotlib
    except ImportError as e:
        # Once only: the environment variable stops a second attempt from the system Python itself.
        if os.path.exists(SYSTEM_PYTHON) and not os.environ.get("UMSIM_PLOT_SWEEP_REEXEC"):
            os.environ["UMSIM_PLOT_SWEEP_REEXEC"] = "1"
            os.execv(SYSTEM_PYTHON, [SYSTEM_PYTHON] + sys.argv)
        sys.exit(f"plot_sweep.py: missing Python module '{e.name or 'matplotlib'}' for {sys.executable} "
                 "(Debian: apt-get install python3-matplotlib)")


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
            if not isinstance(row, dict):
                sys.exit(f"{path}:{number}: not a JSON object")
            keys = ("trace", "error") if "error" in row else ("trace", "oversubscription_pct", "result")
            for key in keys:
                if key not in row:
                    sys.exit(f"{path}:{number}: missing field '{key}' (is this `umsim sweep` output?)")
            row["_where"] = f"{path}:{number}"
            rows.append(row)
    if not rows:
        sys.exit(f"{path}: no sweep results")
    return rows


def policy_label(row, keys=POLICY_KEYS):
    label = " / ".join(str(row.get(k, "?")) for k in keys)
    if row.get("seed") is not None:
        label += f" / seed {row['seed']}"
    return label or "every point"


def check_distinct(rows):
    """Drops exact repeats of a point; two points with one label but different configurations are an error."""
    seen = {}
    kept = []
    for row in rows:
        key = (row["trace"], policy_label(row), row.get("gpu_mem_bytes"))
        if key in seen:
            first = seen[key]
            if first["result"].get("config") != row["result"].get("config"):
                sys.exit(f"{row['_where']}: same label as {first['_where']} ({key[1]} on {key[0]} at "
                         f"{key[2]} bytes) but a different configuration: the two would be drawn as one point")
            continue
        seen[key] = row
        kept.append(row)
    return kept


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("inputs", nargs="+", help="sweep JSON Lines files (shards are merged)")
    parser.add_argument("-o", "--out", required=True, help="output image (.png, .pdf, .svg)")
    parser.add_argument("--metric", default="time_ns", help="counter of result.total to plot (default time_ns)")
    parser.add_argument("--log", action="store_true", help="logarithmic y axis")
    args = parser.parse_args()

    matplotlib = import_matplotlib()
    rows = [row for path in args.inputs for row in load(path)]
    failed = [row for row in rows if "error" in row]
    rows = check_distinct([row for row in rows if "error" not in row])
    if not rows:
        sys.exit("no finished points to plot (every point failed)")
    known = rows[0]["result"]["total"].keys()
    if args.metric not in known:
        sys.exit(f"unknown metric '{args.metric}' (known: {', '.join(known)})")

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    # Legend entries name the specs that differ between lines; the figure names the rest once.
    varying = [k for k in POLICY_KEYS if len({str(r.get(k, "?")) for r in rows}) > 1]
    common = [f"{k} {rows[0].get(k, '?')}" for k in POLICY_KEYS if k not in varying]
    by_trace = collections.OrderedDict()
    policies = []
    for row in sorted(rows, key=lambda r: r.get("index", 0)):
        policy = policy_label(row, varying)
        if policy not in policies:
            policies.append(policy)
        by_trace.setdefault(row["trace"], collections.OrderedDict()).setdefault(policy, []).append(
            (row["oversubscription_pct"], row["result"]["total"][args.metric]))

    # One colour and marker per policy set in every panel, so one legend serves the figure.
    cycle = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    markers = "osD^v<>px*"
    style = {p: (cycle[i % len(cycle)], markers[(i // len(cycle)) % len(markers)]) for i, p in enumerate(policies)}
    longest = max(len(p) for p in policies)
    ncol = max(1, min(len(policies), (90 * len(by_trace)) // max(longest, 1)))
    common_text = textwrap.fill("In every line: " + "; ".join(common), 150 * len(by_trace)) if common else ""
    legend_rows = -(-len(policies) // ncol) + 1 + common_text.count("\n") + bool(common_text)
    fig, axes = plt.subplots(1, len(by_trace), figsize=(6 * len(by_trace), 4.5 + 0.16 * legend_rows), squeeze=False)
    scale, unit = (1e6, "ms") if args.metric.endswith("_ns") else (1, "")
    handles = {}
    for ax, (trace, lines) in zip(axes[0], by_trace.items()):
        for policy, points in lines.items():
            points.sort()
            color, marker = style[policy]
            (handles[policy],) = ax.plot([p[0] for p in points], [p[1] / scale for p in points], marker=marker,
                                         color=color, label=policy)
        ax.set_title(trace.rsplit("/", 1)[-1])
        ax.set_xlabel("footprint / GPU memory (%)")
        ax.set_ylabel(args.metric.replace("_ns", "") + (f" ({unit})" if unit else ""))
        if args.log:
            ax.set_yscale("log")
        ax.grid(True, alpha=0.3)
    legend = fig.legend([handles[p] for p in policies], policies, loc="lower center", fontsize=7,
                        ncol=ncol,
                        title=" / ".join(varying + (["seed"] if any(r.get("seed") is not None for r in rows) else [])),
                        title_fontsize=7)
    if common_text:
        fig.text(0.5, 0.005, common_text, ha="center", va="bottom", fontsize=6)
    # Room below the panels for the legend, measured once it is drawn.
    fig.canvas.draw()
    legend_height = legend.get_window_extent().height / fig.bbox.height
    common_height = (common_text.count("\n") + 1) * 0.16 / fig.get_figheight() if common_text else 0
    legend.set_bbox_to_anchor((0.5, common_height), transform=fig.transFigure)
    fig.tight_layout(rect=(0, min(0.8, legend_height + common_height + 0.02), 1, 1))
    fig.savefig(args.out, dpi=120)
    note = f", {len(failed)} failed points left out" if failed else ""
    print(f"wrote {args.out} ({len(policies)} policy lines, {len(rows)} points{note})")


if __name__ == "__main__":
    main()
