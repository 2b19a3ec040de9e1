#!/usr/bin/env python3
"""Gantt chart of a replay's per-stream timeline.

Reads the machine-readable series written by `umsim replay --events OUT.csv`
(rows: kernel, prefetch, fault_batch, phase; columns start_ns, end_ns, stream and
the counters) and draws one row per stream: kernels as bars (their fault stall
darker at the start), prefetches as bars, fault batches as red ticks and the
batches that moved data as blue ticks above them.
  python3 tools/plot_timeline.py OUT.csv timeline.png [--title TEXT]
"""
import argparse
import csv
import sys


def load(path):
    try:
        with open(path, newline="") as f:
            reader = csv.DictReader(f)
            need = {"kind", "name", "start_ns", "end_ns", "stream", "stall_ns"}
            missing = need - set(reader.fieldnames or [])
            if missing:
                sys.exit(f"{path}: not a `umsim replay --events` series (missing columns: {', '.join(sorted(missing))})")
            rows = []
            for line, r in enumerate(reader, start=2):
                try:
                    r["start"] = int(r["start_ns"]) / 1e6
                    r["end"] = int(r["end_ns"]) / 1e6
                    r["stall"] = int(r["stall_ns"]) / 1e6
                    r["moved"] = sum(int(r.get(k) or 0) for k in ("bytes_h2d", "bytes_d2h", "bytes_peer"))
                except ValueError as e:
                    sys.exit(f"{path}:{line}: {e}")
                rows.append(r)
            return rows
    except OSError as e:
        sys.exit(f"{path}: {e.strerror}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("events_csv")
    ap.add_argument("output", help="image file (png, svg, pdf)")
    ap.add_argument("--title", default=None)
    a = ap.parse_args()
    if a.output == a.events_csv:
        sys.exit("the output would overwrite the input")
    rows = load(a.events_csv)
    timed = [r for r in rows if r["kind"] in ("kernel", "prefetch", "fault_batch") and r["stream"] != ""]
    if not timed:
        sys.exit(f"{a.events_csv}: no kernel, prefetch or fault batch rows")
    streams = sorted({int(r["stream"]) for r in timed})
    y = {s: i for i, s in enumerate(streams)}

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(12, 1.2 + 0.7 * len(streams)))
    for r in timed:
        row = y[int(r["stream"])]
        width = max(r["end"] - r["start"], 1e-6)
        if r["kind"] == "kernel":
            ax.barh(row, width, left=r["start"], height=0.6, color="#7aa6d6", edgecolor="black", linewidth=0.4)
            if r["stall"] > 0:
                ax.barh(row, min(r["stall"], width), left=r["start"], height=0.6, color="#2f5f91", linewidth=0)
            ax.text(r["start"] + width / 2, row, r["name"], ha="center", va="center", fontsize=6, clip_on=True)
        elif r["kind"] == "prefetch":
            ax.barh(row, width, left=r["start"], height=0.35, color="#9bd37a", edgecolor="black", linewidth=0.4)
        else:
            ax.vlines(r["start"], row - 0.38, row - 0.3, color="red", linewidth=0.6)
            if r["moved"] > 0:
                ax.vlines(r["start"], row + 0.3, row + 0.38, color="blue", linewidth=0.6)
    ax.set_yticks(range(len(streams)))
    ax.set_yticklabels([f"stream {s}" for s in streams])
    ax.invert_yaxis()
    ax.set_xlabel("simulated time (ms)")
    ax.set_title(a.title or a.events_csv)
    from matplotlib.patches import Patch
    from matplotlib.lines import Line2D
    ax.legend(handles=[Patch(color="#7aa6d6", label="kernel"), Patch(color="#2f5f91", label="kernel fault stall"),
                       Patch(color="#9bd37a", label="prefetch"), Line2D([], [], color="red", label="fault batch"),
                       Line2D([], [], color="blue", label="batch that migrated data")],
              loc="upper right", fontsize=7)
    fig.tight_layout()
    import os
    import tempfile
    out_dir = os.path.dirname(os.path.abspath(a.output))
    fd, tmp = tempfile.mkstemp(dir=out_dir, suffix=os.path.splitext(a.output)[1])
    os.close(fd)
    try:
        fig.savefig(tmp, dpi=150)
        os.replace(tmp, a.output)
    except Exception:
        os.unlink(tmp)
        raise


if __name__ == "__main__":
    main()
