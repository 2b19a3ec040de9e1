#!/usr/bin/env bash
# hip_backend/fit_cold_prefetch.py on the committed cold-prefetch diagnostic
# (the values in profiles/h200-pcie5.toml), on a hand-made diagnostic whose
# costs are known, and its bad inputs.
set -uo pipefail
script=$1 diag=$2
tmp=${TEST_TMPDIR:-$(mktemp -d)}
fail() { echo "FAIL: $*"; exit 1; }
run() { python3 "$script" "$@"; }

run "$diag" >"$tmp/out" 2>&1 || { cat "$tmp/out"; fail "the committed diagnostic refused"; }
grep -qxF '{"idle_call_cost": 30616, "cold_excess": 68419, "first_on_gpu_cost": 59735, "check_d3": 76362}' "$tmp/out" ||
  fail "committed diagnostic: $(cat "$tmp/out")"

# Hand-made: every next_X 30 us, after_X 30 + 25 us for 1-16 ms, 30 + 70 us
# beyond; warm 30 us, first 30 + 70 + 50 us (d1, d4) and 30 + 70 + 80 (d3).
mkdir -p "$tmp/made"
python3 - "$tmp/made" <<'PY'
import json, sys
out = sys.argv[1]
def result(phases):
    return {"phases": [{"name": n, "counters": {"time_ns": t}} for n, t in phases.items()]}
sweep = {}
for x, extra in [("1ms", 25), ("4ms", 25), ("16ms", 25), ("64ms", 70), ("256ms", 70), ("1s", 70)]:
    sweep[f"after_{x}"] = (30 + extra) * 1000
    sweep[f"next_{x}"] = 30000
for rep in (1, 2, 3):
    for trace, first in [("d1_h2d_after_cpu", 150), ("d2_d2h_after_cpu", 150), ("d3_first_after_1s", 180),
                         ("d4_used_then_1s", 150)]:
        phases = dict(sweep) if trace.startswith(("d1", "d2")) else {}
        phases.update({"first": first * 1000, "warm": 30000})
        json.dump(result(phases), open(f"{out}/{trace}.r{rep}.json", "w"))
PY
run "$tmp/made" >"$tmp/out" 2>&1 || { cat "$tmp/out"; fail "hand-made diagnostic refused"; }
grep -qxF '{"idle_call_cost": 25000, "cold_excess": 70000, "first_on_gpu_cost": 50000, "check_d3": 80000}' "$tmp/out" ||
  fail "hand-made diagnostic: $(cat "$tmp/out")"

expect_error() {  # MESSAGE ARGS...
  local message=$1; shift
  run "$@" >"$tmp/out" 2>&1 && fail "accepted: $*"
  grep -qF -- "$message" "$tmp/out" || fail "for $*: expected '$message', got: $(cat "$tmp/out")"
}
expect_error "usage:"
expect_error "no such folder" "$tmp/none"
mkdir -p "$tmp/empty"
expect_error "no replays of d1_h2d_after_cpu" "$tmp/empty"
cp -r "$tmp/made" "$tmp/broken"
echo "{" >"$tmp/broken/d2_d2h_after_cpu.r2.json"
expect_error "d2_d2h_after_cpu.r2.json: not a replay result" "$tmp/broken"
cp -r "$tmp/made" "$tmp/other"
python3 -c 'import json; json.dump({"phases": [{"name": "main", "counters": {"time_ns": 1}}]}, open("'"$tmp"'/other/d4_used_then_1s.r1.json", "w"))'
expect_error "d4_used_then_1s.r1.json: no phase 'first'" "$tmp/other"
echo PASS
