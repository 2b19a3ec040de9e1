#!/usr/bin/env bash
# hip_backend/machine_profile.sh: a profile from one call's calibration alone.
# Usage errors; an output naming an input is refused and the input kept; and a
# full run on session 14's committed calibration gives the fault keys that
# calibration alone tunes to (pooled with other sessions they differ: batch
# 5 us, page 1600 ns), in a profile that loads, with its tuning report.
set -uo pipefail
script=$1 tune=$2 umsim=$3 tool=$4 session=$5
tmp=${TEST_TMPDIR:-$(mktemp -d)}
fail() { echo "FAIL: $*"; exit 1; }
# The script runs tune_profile.py from its repository root: give it a copy of both.
mkdir -p "$tmp/repo/hip_backend"
cp "$script" "$tune" "$tmp/repo/hip_backend/"
run() { UMSIM_BIN=$umsim UMSIM_TRACES_TOOL=$tool bash "$tmp/repo/hip_backend/machine_profile.sh" "$@"; }

run >"$tmp/out" 2>&1; [[ $? -eq 2 ]] || fail "no arguments: exit code not 2"
grep -q "usage: hip_backend/machine_profile.sh CALIBRATION_DIR OUT.toml" "$tmp/out" || fail "no usage line"
mkdir -p "$tmp/empty"
run "$tmp/empty" "$tmp/p.toml" >"$tmp/out" 2>&1 && fail "empty directory accepted"
grep -q "has no device-side fit" "$tmp/out" || { cat "$tmp/out"; fail "missing fit not named"; }
run "$session" "$tmp/no/such/dir/p.toml" >"$tmp/out" 2>&1 && fail "missing output directory accepted"
grep -q "does not exist" "$tmp/out" || { cat "$tmp/out"; fail "missing output directory not named"; }
cp -r "$session" "$tmp/session"
before=$(md5sum <"$tmp/session/calibrated.toml")
run "$tmp/session" "$tmp/session/calibrated.toml" >"$tmp/out" 2>&1 && fail "output naming the input accepted"
grep -q "is the input" "$tmp/out" || { cat "$tmp/out"; fail "refusal not explained"; }
[[ $(md5sum <"$tmp/session/calibrated.toml") == "$before" ]] || fail "the input was changed"

run "$session" "$tmp/machine.toml" >"$tmp/out" 2>&1 || { cat "$tmp/out"; fail "full run failed"; }
[[ -f $tmp/machine.toml && -f $tmp/machine.tune.json && ! -e $tmp/machine.toml.partial ]] || fail "outputs missing"
"$umsim" profiles "$tmp/machine.toml" >/dev/null || fail "the profile does not load"
python3 - "$tmp/machine.tune.json" <<'PY' || fail "tuned values"
import json, sys
r = json.load(open(sys.argv[1]))
want = {"faults.batch_cost": '"10us"', "faults.page_cost": '"800ns"', "faults.concurrency": "128",
        "faults.populate_gbps": "30", "cpu.fault_cost": '"4000ns"'}
got = {k: r["values"][k] for k in want}
if got != want or r["calibration_files"] != 1:
    sys.exit(f"got {got} from {r['calibration_files']} file(s), want {want} from 1")
PY
grep -q '^batch_cost = "10us"' "$tmp/machine.toml" || fail "profile lacks the tuned batch cost"
# [calibrated_on] names session 14's machine (its machine.txt), not the starting profile's.
grep -q '^date = "2026-12-01T19:29Z"' "$tmp/machine.toml" || fail "[calibrated_on] is not session 14's machine"
echo "PASS"
