#!/usr/bin/env bash
# hip_backend/process_probe.py: the call's host probe runs scaled to one
# process's host speed, on session 57's committed runs (probe/ and host/) and
# on hand-made calls whose ratios are known; and its bad inputs.
set -uo pipefail
script=$1 rescale=$2 tune=$3 session=$4
tmp=${TEST_TMPDIR:-$(mktemp -d)}
fail() { echo "FAIL: $*"; exit 1; }
mkdir -p "$tmp/bin"
cp "$script" "$rescale" "$tune" "$tmp/bin/"  # process_probe.py imports host_rescale.py from its own folder
run() { python3 "$tmp/bin/process_probe.py" "$@"; }
probes=("$session"/probe/host_fault_speed.r*.json)
host=$session/host/c01_copies_pinned_pageable.r1.json

run >"$tmp/out" 2>&1 && fail "no arguments: exit 0"
grep -q "usage: process_probe.py" "$tmp/out" || fail "no usage line: $(cat "$tmp/out")"

# A call of one process: every ratio is 1 and the probe runs come out unchanged.
run "$tmp/one" "$host" --call "$host" --probes "${probes[@]}" >"$tmp/out" 2>&1 || { cat "$tmp/out"; fail "one process refused"; }
grep -qxF '{"kernel": 1.0, "isolated": 1.0, "first_touch": 1.0, "collapse": 1.0, "reprefetch": 1.0}' "$tmp/out" ||
  fail "one process: $(cat "$tmp/out")"
n=0
for p in "${probes[@]}"; do
  n=$((n + 1))
  python3 - "$p" "$tmp/one/probe.r$n.json" <<'PY' || fail "one process: probe run $n changed"
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:])
assert a["kernels"] == b["kernels"] and a["phases"] == b["phases"]
PY
done

# Three processes whose first touch and bulk kernels took 1x, 2x and 4x the
# committed process's: the call's median is the 2x one, so the 4x process
# scales those parts of the probe by exactly 2 and the 1x one by 0.5; the
# other parts, the same in all three, by 1.
for k in 1 2 4; do
  python3 - "$host" "$tmp/p$k.json" "$k" <<'PY'
import json, sys
r, k = json.load(open(sys.argv[1])), int(sys.argv[3])
for x in r["kernels"]:
    if x["name"] == "touch":
        x["counters"]["time_ns"] *= k
for x in r["phases"]:
    if x["name"] == "main":
        x["counters"]["time_ns"] *= k
json.dump(r, open(sys.argv[2], "w"))
PY
done
run "$tmp/x4" "$tmp/p4.json" --call "$tmp"/p[124].json --probes "${probes[@]}" >"$tmp/out" 2>&1 ||
  { cat "$tmp/out"; fail "the 4x process refused"; }
grep -qxF '{"kernel": 2.0, "isolated": 1.0, "first_touch": 2.0, "collapse": 1.0, "reprefetch": 1.0}' "$tmp/out" ||
  fail "the 4x process: $(cat "$tmp/out")"
run "$tmp/x1" "$tmp/p1.json" --call "$tmp"/p[124].json --probes "${probes[@]}" >"$tmp/out" 2>&1 ||
  { cat "$tmp/out"; fail "the 1x process refused"; }
grep -qxF '{"kernel": 0.5, "isolated": 1.0, "first_touch": 0.5, "collapse": 1.0, "reprefetch": 1.0}' "$tmp/out" ||
  fail "the 1x process: $(cat "$tmp/out")"
python3 - "${probes[0]}" "$tmp/x4/probe.r1.json" <<'PY' || fail "the 4x process's scaled probe"
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:])
for x, y in zip(a["kernels"], b["kernels"]):
    want = 2 * x["counters"]["time_ns"] if x["name"] == "touch" else x["counters"]["time_ns"]
    assert y["counters"]["time_ns"] == want, (x, y)
    assert {k: v for k, v in x["counters"].items() if k != "time_ns"} == \
        {k: v for k, v in y["counters"].items() if k != "time_ns"}, "a counter other than the time changed"
for x, y in zip(a["phases"], b["phases"]):
    want = 2 * x["counters"]["time_ns"] if x["name"] == "main" else x["counters"]["time_ns"]
    assert y["counters"]["time_ns"] == want, (x, y)
PY

# Bad inputs: each a clear error and a non-zero exit.
run "$tmp/bad" "$tmp/none.json" --call "$host" --probes "${probes[@]}" >"$tmp/out" 2>&1 && fail "missing process accepted"
grep -q "none.json: no such file" "$tmp/out" || fail "missing process not named: $(cat "$tmp/out")"
run "$tmp/bad" "$host" --probes "${probes[@]}" >"$tmp/out" 2>&1 && fail "no --call accepted"
grep -q "usage: process_probe.py" "$tmp/out" || fail "no --call: $(cat "$tmp/out")"
run "$tmp/bad" "$host" --call "$host" --probes >"$tmp/out" 2>&1 && fail "no probe runs accepted"
grep -q "usage: process_probe.py" "$tmp/out" || fail "no probe runs: $(cat "$tmp/out")"
run "$tmp/bad" "$session/c01_copies_pinned_pageable.r1.json" --call "$host" --probes "${probes[@]}" >"$tmp/out" 2>&1 &&
  fail "a suite result as the process accepted"
grep -q "0 'touch' and 0 'isolated' kernels" "$tmp/out" || fail "suite result not explained: $(cat "$tmp/out")"
cp "$host" "$tmp/p1.json"
run "$tmp" "$tmp/p1.json" --call "$tmp/p1.json" --probes "${probes[@]}" >"$tmp/out" 2>&1 && fail "OUT_DIR holding an input accepted"
grep -q "holds an input" "$tmp/out" || fail "OUT_DIR refusal: $(cat "$tmp/out")"
echo "PASS"
