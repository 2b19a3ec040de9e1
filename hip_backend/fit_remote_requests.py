#!/usr/bin/env python3
"""Fit the request rate of GPU reads of host memory from calibrations.

usage: fit_remote_requests.py CALIBRATION_DIR...

Each CALIBRATION_DIR is what one GPU-machine call's `device_run.sh calibrate`
left (profiles/raw/h200-pcie5/later/sessionN): calibration.json, whose
"subpage" runs time kernels reading a pinned host buffer whole, one 4-byte word
per 32 B, per 128 B and per 4 KiB (three repetitions each).

Read whole, the buffer streams at the link's bandwidth; read sparsely, it does
not: one word per 128 B takes 60-80% of a whole read although it moves a
quarter of the 32-byte sectors, and one word per page takes twice what its
bytes would. Each load goes out as a read request for its 128-byte line, and
the link keeps a bounded number in flight: a kernel's sparse reads take a
request time per line (remote.request_cost, remote.request_unit = 128 B),
plus a per-page touch cost (remote.access_cost), where that is slower than
their bytes. Per calibration, the two sparse shapes give both, exactly (median
kernel time less the launch overhead):
  per 128 B:  lines(L/128) * request + pages(L/4096) * touch
  per 4 KiB:  pages(L/4096) * request + pages(L/4096) * touch
Prints, as JSON, the medians over calibrations (ns, three decimals), their
ranges and the number of calibrations read.
"""
import json
import os
import statistics
import sys

LINE, PAGE = 128, 4096
SHAPES = {"w128": LINE, "w4k": PAGE}


def fail(message):
    print(f"fit_remote_requests.py: {message}", file=sys.stderr)
    sys.exit(1)


def sparse_times(path):
    """{shape: (buffer bytes, median kernel time less launch overhead)} of the pinned sparse runs."""
    try:
        runs = json.load(open(path))["subpage"]
        times = {}
        for r in runs:
            if r["memory"] == "pinned" and r["shape"] in SHAPES:
                if int(r["stride"]) != SHAPES[r["shape"]]:
                    fail(f"{path}: subpage run '{r['shape']}' has stride {r['stride']}, expected {SHAPES[r['shape']]}")
                times.setdefault(r["shape"], []).append(
                    (int(r["bytes"]), float(r["time_ns"]) - float(r["launch_overhead_ns"])))
    except (OSError, ValueError, KeyError, TypeError) as e:
        fail(f"{path}: not a calibration with subpage runs ({e})")
    out = {}
    for shape in SHAPES:
        if shape not in times:
            fail(f"{path}: no pinned subpage run '{shape}'")
        sizes = {b for b, _ in times[shape]}
        if len(sizes) != 1 or min(sizes) < 2 * PAGE:
            fail(f"{path}: pinned subpage runs '{shape}' read buffers of {sorted(sizes)} bytes (expected one size)")
        out[shape] = (sizes.pop(), statistics.median(t for _, t in times[shape]))
    return out


def fit(path):
    """(request ns, touch ns) of one calibration."""
    t = sparse_times(path)
    (b128, t128), (b4k, t4k) = t["w128"], t["w4k"]
    lines, pages, pages4k = b128 / LINE, b128 / PAGE, b4k / PAGE
    # t128 = lines * r + pages * c; t4k = pages4k * (r + c)
    per_page4k = t4k / pages4k
    request = (t128 - pages * per_page4k) / (lines - pages)
    return request, per_page4k - request


def main():
    if len(sys.argv) < 2:
        fail("usage: fit_remote_requests.py CALIBRATION_DIR...")
    requests, touches = [], []
    for directory in sys.argv[1:]:
        if not os.path.isdir(directory):
            fail(f"{directory}: no such folder")
        r, c = fit(os.path.join(directory, "calibration.json"))
        requests.append(r)
        touches.append(c)
    request, touch = statistics.median(requests), statistics.median(touches)
    if request <= 0:
        fail(f"the sparse runs give a request time of {request:.3f} ns: no request-bound reads to fit")
    print(json.dumps({"request_cost_ns": round(request, 3), "request_cost_range_ns": [round(min(requests), 3), round(max(requests), 3)],
                      "access_cost_ns": round(max(0.0, touch), 3), "access_cost_range_ns": [round(min(touches), 3), round(max(touches), 3)],
                      "calibrations": len(requests)}))


if __name__ == "__main__":
    main()
