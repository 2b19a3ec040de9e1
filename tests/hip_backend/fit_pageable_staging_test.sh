#!/usr/bin/env bash
# hip_backend/fit_pageable_staging.py on the fourteen pooled calibrations (the
# value in profiles/h200-pcie5.toml), on hand-made ones whose cost is known,
# and its bad inputs.
set -uo pipefail
script=$1 later=$2
tmp=${TEST_TMPDIR:-$(mktemp -d)}
fail() { echo "FAIL: $*"; exit 1; }
run() { python3 "$script" "$@"; }

dirs=()
for s in 40 41 42 43 44 45 46 47 49 50 51 52 53 56; do dirs+=("$later/session$s"); done
run "${dirs[@]}" >"$tmp/out" 2>&1 || { cat "$tmp/out"; fail "the pooled calibrations refused"; }
grep -qxF '{"pageable_to_host_call_cost": 14366, "calibrations": 14}' "$tmp/out" ||
  fail "pooled calibrations: $(cat "$tmp/out")"

# Hand-made: pinned 4 GB/s, pageable 2 GB/s; a pinned copy of S bytes takes
# 10 us + S / 4, a pageable one 10 us + S / 2 + the staging, 12 / 14 / 16 us in
# three calibrations: median 14 us.
i=0
for staging in 12000 14000 16000; do
  i=$((i + 1)); mkdir -p "$tmp/c$i"
  printf '[host]\npinned_copy_gbps = 4.0\npageable_to_host_copy_gbps = 2.0\n' >"$tmp/c$i/calibrated.toml"
  python3 - "$tmp/c$i/calibration.json" "$staging" <<'PY'
import json, sys
staging = float(sys.argv[2])
runs = []
for size in (65536, 1048576):
    for rep in range(3):
        runs.append({"test": f"copy_pinned_d2h_{size}", "bytes": size, "time_ns": 10000 + size / 4})
        runs.append({"test": f"copy_pageable_d2h_{size}", "bytes": size, "time_ns": 10000 + size / 2 + staging})
json.dump({"copy_trace": runs}, open(sys.argv[1], "w"))
PY
done
run "$tmp"/c1 "$tmp"/c2 "$tmp"/c3 >"$tmp/out" 2>&1 || { cat "$tmp/out"; fail "hand-made calibrations refused"; }
grep -qxF '{"pageable_to_host_call_cost": 14000, "calibrations": 3}' "$tmp/out" ||
  fail "hand-made calibrations: $(cat "$tmp/out")"

expect_error() {  # MESSAGE ARGS...
  local message=$1; shift
  run "$@" >"$tmp/out" 2>&1 && fail "accepted: $*"
  grep -qF -- "$message" "$tmp/out" || fail "for $*: expected '$message', got: $(cat "$tmp/out")"
}
expect_error "usage:"
expect_error "no such folder" "$tmp/none"
cp -r "$tmp/c1" "$tmp/broken"
echo "{" >"$tmp/broken/calibration.json"
expect_error "broken/calibration.json: not a calibration with copy_trace runs" "$tmp/broken"
cp -r "$tmp/c1" "$tmp/short"
python3 -c 'import json; json.dump({"copy_trace": []}, open("'"$tmp"'/short/calibration.json", "w"))'
expect_error "no copy_trace run 'copy_pageable_d2h_65536'" "$tmp/short"
cp -r "$tmp/c1" "$tmp/nohost"
printf '[gpu]\n' >"$tmp/nohost/calibrated.toml"
expect_error "nohost/calibrated.toml: no host.pinned_copy_gbps" "$tmp/nohost"
echo PASS
