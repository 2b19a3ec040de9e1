#!/usr/bin/env bash
# hip_backend/fit_fill_lanes.py on the committed diagnostic (the value in
# profiles/h200-pcie5.toml), on a hand-made one whose memsets take what the
# kernels take, and its bad inputs.
set -uo pipefail
script=$1 umsim=$2 profile=$3 diag=$4
tmp=${TEST_TMPDIR:-$(mktemp -d)}
fail() { echo "FAIL: $*"; exit 1; }
run() { python3 "$script" "$@"; }

run "$umsim" "$profile" "$diag" >"$tmp/out" 2>&1 || { cat "$tmp/out"; fail "the committed diagnostic refused"; }
grep -qxF '{"fill_lanes": 29, "hardware_ratio_64MiB": 1.498, "model_ratio_64MiB": 1.495, "hardware_ratio_256MiB": 1.474, "model_ratio_256MiB": 1.473}' "$tmp/out" ||
  fail "committed diagnostic: $(cat "$tmp/out")"

# Hand-made: every memset takes its kernel's time. The trace kernels' own 32
# lanes give the model the same ratio, 1 (0.999 at 64 MiB: the kernel's launch),
# and no other count comes as close.
mkdir -p "$tmp/same/traces"
cp "$diag/traces/memset_sizes.umt" "$tmp/same/traces/"
python3 - "$tmp/same" <<'PY'
import json, sys
phases = {}
for size, ms in (("4MiB", 1), ("16MiB", 2), ("64MiB", 5), ("256MiB", 20)):
    phases[f"memset_{size}"] = phases[f"kernel_{size}"] = ms * 1e6
for rep in (1, 2, 3):
    json.dump({"phases": [{"name": n, "counters": {"time_ns": t}} for n, t in phases.items()]},
              open(f"{sys.argv[1]}/memset_sizes.r{rep}.json", "w"))
PY
run "$umsim" "$profile" "$tmp/same" >"$tmp/out" 2>&1 || { cat "$tmp/out"; fail "hand-made diagnostic refused"; }
grep -qxF '{"fill_lanes": 32, "hardware_ratio_64MiB": 1.0, "model_ratio_64MiB": 0.999, "hardware_ratio_256MiB": 1.0, "model_ratio_256MiB": 1.0}' "$tmp/out" ||
  fail "hand-made diagnostic: $(cat "$tmp/out")"

expect_error() {  # MESSAGE ARGS...
  local message=$1; shift
  run "$@" >"$tmp/out" 2>&1 && fail "accepted: $*"
  grep -qF -- "$message" "$tmp/out" || fail "for $*: expected '$message', got: $(cat "$tmp/out")"
}
expect_error "usage:"
expect_error "usage:" "$umsim" "$profile"
expect_error "no such folder" "$umsim" "$profile" "$tmp/none"
mkdir -p "$tmp/bare"
expect_error "no traces/memset_sizes.umt" "$umsim" "$profile" "$tmp/bare"
mkdir -p "$tmp/empty/traces" && cp "$diag/traces/memset_sizes.umt" "$tmp/empty/traces/"
expect_error "no replays of memset_sizes" "$umsim" "$profile" "$tmp/empty"
expect_error "$tmp/no.toml: cannot read it" "$umsim" "$tmp/no.toml" "$tmp/same"
cp -r "$tmp/same" "$tmp/broken"
echo "{" >"$tmp/broken/memset_sizes.r2.json"
expect_error "memset_sizes.r2.json: not a replay result" "$umsim" "$profile" "$tmp/broken"
cp -r "$tmp/same" "$tmp/other"
python3 -c 'import json; json.dump({"phases": [{"name": "memset_64MiB", "counters": {"time_ns": 1}}]}, open("'"$tmp"'/other/memset_sizes.r1.json", "w"))'
expect_error "memset_sizes.r1.json: no phase 'kernel_64MiB'" "$umsim" "$profile" "$tmp/other"
printf '[copy_engines]\nh2d = 1\n' >"$tmp/nogpu.toml"
expect_error "the profile has no [gpu] table" "$umsim" "$tmp/nogpu.toml" "$tmp/same"
echo PASS
