#!/usr/bin/env bash
# hip_backend/fit_remote_requests.py on the fourteen pooled calibrations (the
# values in profiles/h200-pcie5.toml), on hand-made ones whose costs are known,
# and its bad inputs.
set -uo pipefail
script=$1 later=$2
source "$(dirname "$0")/fit_test_lib.sh"
fit_setup "$script"

dirs=()
for s in 40 41 42 43 44 45 46 47 49 50 51 52 53 56; do dirs+=("$later/session$s"); done
run "${dirs[@]}" >"$tmp/out" 2>&1 || { cat "$tmp/out"; fail "the pooled calibrations refused"; }
grep -qF '"request_cost_ns": 1.558' "$tmp/out" && grep -qF '"access_cost_ns": 0.072' "$tmp/out" &&
  grep -qF '"calibrations": 14' "$tmp/out" || fail "pooled calibrations: $(cat "$tmp/out")"

# Hand-made: 1 MiB pinned buffers, launch overhead 8000 ns; a word per 128 B
# (8192 lines, 256 pages) takes 8192 r + 256 c, a word per page 256 (r + c).
# r = 2 / 1.5 / 1.8 ns and c = 0.1 / 0.3 / 0.2 ns: medians 1.8 and 0.2.
# The whole and per-32 B reads (bandwidth-bound) are not read.
i=0
for rc in "2.0 0.1" "1.5 0.3" "1.8 0.2"; do
  set -- $rc; i=$((i + 1)); mkdir -p "$tmp/c$i"
  python3 - "$tmp/c$i/calibration.json" "$1" "$2" <<'PY'
import json, sys
r, c = float(sys.argv[2]), float(sys.argv[3])
size, runs = 1 << 20, []
for rep in range(3):
    for shape, stride, t in (("page", 0, 99999), ("w32", 32, 99999), ("w128", 128, 8192 * r + 256 * c), ("w4k", 4096, 256 * (r + c))):
        runs.append({"memory": "resident", "shape": shape, "stride": stride, "bytes": size, "time_ns": 5, "launch_overhead_ns": 0})
        runs.append({"memory": "pinned", "shape": shape, "stride": stride, "bytes": size, "time_ns": t + 8000 + rep,
                     "launch_overhead_ns": 8000 + rep})
json.dump({"subpage": runs}, open(sys.argv[1], "w"))
PY
done
run "$tmp"/c1 "$tmp"/c2 "$tmp"/c3 >"$tmp/out" 2>&1 || { cat "$tmp/out"; fail "hand-made calibrations refused"; }
grep -qxF '{"request_cost_ns": 1.8, "request_cost_range_ns": [1.5, 2.0], "access_cost_ns": 0.2, "access_cost_range_ns": [0.1, 0.3], "calibrations": 3}' "$tmp/out" ||
  fail "hand-made calibrations: $(cat "$tmp/out")"

refused "no arguments" "usage:"
refused "a missing folder" "no such folder" "$tmp/none"
mkdir -p "$tmp/broken" "$tmp/short" "$tmp/strided" "$tmp/flat"
echo "{" >"$tmp/broken/calibration.json"
refused "a broken calibration" "broken/calibration.json: not a calibration with subpage runs" "$tmp/broken"
python3 -c 'import json; json.dump({"subpage": []}, open("'"$tmp"'/short/calibration.json", "w"))'
refused "a calibration without sparse runs" "no pinned subpage run 'w128'" "$tmp/short"
sed 's/"stride": 4096/"stride": 2048/g' "$tmp/c1/calibration.json" >"$tmp/strided/calibration.json"
refused "a sparse run of another stride" "subpage run 'w4k' has stride 2048, expected 4096" "$tmp/strided"
# Sparse reads no slower per line than per page: no request time to fit.
python3 - "$tmp/flat/calibration.json" <<'PY'
import json, sys
runs = [{"memory": "pinned", "shape": s, "stride": st, "bytes": 1 << 20, "time_ns": t, "launch_overhead_ns": 0}
        for s, st, t in (("w128", 128, 100), ("w4k", 4096, 1000))]
json.dump({"subpage": runs}, open(sys.argv[1], "w"))
PY
refused "sparse reads without a request bound" "no request-bound reads to fit" "$tmp/flat"
echo PASS
