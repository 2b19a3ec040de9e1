#!/usr/bin/env bash
# hip_backend/fit_rmw_cost.py on the thirteen pooled calibrations' runs (the
# value in profiles/h200-pcie5.toml), on hand-made runs whose cost is known,
# and its bad inputs.
set -uo pipefail
script=$1 tune=$2 umsim=$3 profile=$4 trace=$5 later=$6
source "$(dirname "$0")/fit_test_lib.sh"
fit_setup "$script" "$tune" "$(dirname "$script")/diag_runs.py"

dirs=()
for s in 41 42 43 44 45 46 47 49 50 51 52 53 56; do dirs+=("$later/session$s"); done
run "$umsim" "$profile" "$trace" "${dirs[@]}" >"$tmp/pooled.json" 2>&1 || { cat "$tmp/pooled.json"; fail "the pooled runs refused"; }
read -r value without units < <(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
print(round(d["value_ns"] * 1000, 2), d["model_without_ns"], d["units"])' "$tmp/pooled.json")
[[ $value == 4.79 ]] || fail "pooled value ${value} ps, expected 4.79 ps (profiles/h200-pcie5.toml)"
# The trace's rmw kernel stores 256 MiB: 4 Mi units of the profile's 64 B.
[[ $units == 4194304 ]] || fail "units $units, expected 4194304"

# Hand-made: runs whose kernel takes the model's time plus 0.25, 0.5 and 1 ns
# per unit (median 0.5), and one faster than the model (its value 0, not negative).
i=0
for cost in 0.25 0.5 1 -0.1; do
  i=$((i + 1)); mkdir -p "$tmp/h$i"
  for rep in 1 2 3; do
    python3 - "$tmp/h$i/launch_after_memset.r$rep.json" "$without" "$units" "$cost" "$rep" <<'PY'
import json, sys
path, without, units, cost, rep = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]), int(sys.argv[5])
t = without + round(units * cost) + (rep - 2) * 10  # the median run is exact
json.dump({"kernels": [{"name": "update", "counters": {"time_ns": 1}}, {"name": "update2", "counters": {"time_ns": t}}]},
          open(path, "w"))
PY
  done
done
run "$umsim" "$profile" "$trace" "$tmp/h1" "$tmp/h2" "$tmp/h3" >"$tmp/out" 2>&1 || { cat "$tmp/out"; fail "hand-made runs refused"; }
python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); assert d["value_ns"] == 0.5, d' "$tmp/out" ||
  fail "hand-made runs: $(cat "$tmp/out")"
run "$umsim" "$profile" "$trace" "$tmp/h4" >"$tmp/out" 2>&1 || { cat "$tmp/out"; fail "a faster run refused"; }
python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); assert d["value_ns"] == 0.0, d' "$tmp/out" ||
  fail "a run faster than the model: $(cat "$tmp/out")"

refused "no arguments" "usage:"
refused "a missing folder" "no such folder" "$umsim" "$profile" "$trace" "$tmp/none"
mkdir -p "$tmp/empty" "$tmp/broken" "$tmp/other"
refused "a folder without runs" "no runs of the trace" "$umsim" "$profile" "$trace" "$tmp/empty"
echo "{" >"$tmp/broken/launch_after_memset.r1.json"
refused "a broken run" "broken/launch_after_memset.r1.json: not a replay result with kernel times" "$umsim" "$profile" "$trace" "$tmp/broken"
echo '{"kernels": [{"name": "update", "counters": {"time_ns": 1}}]}' >"$tmp/other/launch_after_memset.r1.json"
refused "a run of another trace" "expected a kernel 'update2'" "$umsim" "$profile" "$trace" "$tmp/other"
refused "a missing profile" "$tmp/none.toml" "$umsim" "$tmp/none.toml" "$trace" "$tmp/h1"
refused "a missing binary" "$tmp/no-umsim" "$tmp/no-umsim" "$profile" "$trace" "$tmp/h1"
grep -v '^\[gpu\]' "$profile" >"$tmp/nogpu.toml"
refused "a profile without [gpu]" "no \[gpu\] table" "$umsim" "$tmp/nogpu.toml" "$trace" "$tmp/h1"
# A trace whose update2 kernel has no read-modify-write: nothing to fit.
cat >"$tmp/plain.umt" <<'UMT'
umsim-trace 2
alloc A 4MiB managed
kernel update2 gpu=0 stream=1
  r A len=4MiB
  w A len=4MiB
end
sync all
free A
end-of-trace
UMT
refused "a trace without read-modify-writes" "does not grow with gpu.rmw_cost" "$umsim" "$profile" "$tmp/plain.umt" "$tmp/h1"
echo PASS
