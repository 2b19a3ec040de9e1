#!/usr/bin/env bash
# hip_backend/fit_d2h_prefetch.py on the committed diagnostics (the values in
# profiles/h200-pcie5.toml), on hand-made ones whose costs are known, and its
# bad inputs.
set -uo pipefail
script=$1 small=$2 cold=$3
tmp=${TEST_TMPDIR:-$(mktemp -d)}
fail() { echo "FAIL: $*"; exit 1; }
run() { python3 "$script" "$@"; }

run "$small" "$cold" >"$tmp/out" 2>&1 || { cat "$tmp/out"; fail "the committed diagnostics refused"; }
grep -qxF '{"first_on_cpu_cost": 43566, "next_on_cpu_cost": 26373, "to_cpu_va_block_cost": 14815, "check_e1_second": 37648}' "$tmp/out" ||
  fail "committed diagnostics: $(cat "$tmp/out")"

# Hand-made: a 64 KiB call into a VA block the CPU holds pages of 25 us, one
# into a block it holds none of 12 us more; the process's first call (into
# such a block) 60 us more still, its second 30 us more.
mkdir -p "$tmp/small" "$tmp/cold"
python3 - "$tmp" <<'PY'
import json, sys
out = sys.argv[1]
def result(phases):
    return {"phases": [{"name": n, "counters": {"time_ns": t * 1000}} for n, t in phases.items()]}
for rep in (1, 2, 3):
    json.dump(result({"first": 97, "fresh_64KiB": 67, "same_64KiB": 25}), open(f"{out}/small/e1_d2h_sizes.r{rep}.json", "w"))
    json.dump(result({"first": 97, "one_block": 16 * 25 + 12 + 30, "own_blocks": 16 * (25 + 12)}),
              open(f"{out}/small/e2_d2h_blocks.r{rep}.json", "w"))
    json.dump(result({"first": 97, "warm": 55, "next_1ms": 24, "next_4ms": 25, "next_16ms": 26}),
              open(f"{out}/cold/d2_d2h_after_cpu.r{rep}.json", "w"))
PY
run "$tmp/small" "$tmp/cold" >"$tmp/out" 2>&1 || { cat "$tmp/out"; fail "hand-made diagnostics refused"; }
grep -qxF '{"first_on_cpu_cost": 60000, "next_on_cpu_cost": 30000, "to_cpu_va_block_cost": 12000, "check_e1_second": 42000}' "$tmp/out" ||
  fail "hand-made diagnostics: $(cat "$tmp/out")"

expect_error() {  # MESSAGE ARGS...
  local message=$1; shift
  run "$@" >"$tmp/out" 2>&1 && fail "accepted: $*"
  grep -qF -- "$message" "$tmp/out" || fail "for $*: expected '$message', got: $(cat "$tmp/out")"
}
expect_error "usage:"
expect_error "usage:" "$tmp/small"
expect_error "no such folder" "$tmp/none" "$tmp/cold"
mkdir -p "$tmp/empty"
expect_error "no replays of e2_d2h_blocks" "$tmp/empty" "$tmp/cold"
expect_error "no replays of d2_d2h_after_cpu" "$tmp/small" "$tmp/empty"
cp -r "$tmp/small" "$tmp/broken"
echo "{" >"$tmp/broken/e2_d2h_blocks.r2.json"
expect_error "e2_d2h_blocks.r2.json: not a replay result" "$tmp/broken" "$tmp/cold"
cp -r "$tmp/small" "$tmp/other"
python3 -c 'import json; json.dump({"phases": [{"name": "main", "counters": {"time_ns": 1}}]}, open("'"$tmp"'/other/e1_d2h_sizes.r1.json", "w"))'
expect_error "e1_d2h_sizes.r1.json: no phase 'same_64KiB'" "$tmp/other" "$tmp/cold"
echo PASS
