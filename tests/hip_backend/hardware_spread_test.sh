#!/usr/bin/env bash
# hip_backend/hardware_spread.sh (between two calls) and repeatability.py
# (within one call) on committed hardware results: the figures docs/validation.md
# publishes ("Sessions 14-17"), and their bad inputs.
set -uo pipefail
spread=$1 repeat=$2 merge=$3 table=$4 umsim=$5 results=$(dirname "$(dirname "$6")")
tmp=${TEST_TMPDIR:-$(mktemp -d)}
fail() { echo "FAIL: $*"; exit 1; }
# The script runs its helpers from its repository root: give it a copy of them.
mkdir -p "$tmp/repo/hip_backend"
cp "$spread" "$repeat" "$merge" "$table" "$tmp/repo/hip_backend/"
run() { UMSIM_BIN=$umsim bash "$tmp/repo/hip_backend/hardware_spread.sh" "$@"; }

run >"$tmp/out" 2>&1; [[ $? -eq 2 ]] || fail "no arguments: exit code not 2"
grep -q "usage: hip_backend/hardware_spread.sh EARLIER_RESULTS LATER_RESULTS OUT_DIR" "$tmp/out" || fail "no usage line"
mkdir -p "$tmp/empty"
run "$tmp/empty" "$results/session16" "$tmp/o" >"$tmp/out" 2>&1 && fail "a directory without results accepted"
grep -q "holds no hardware results" "$tmp/out" || { cat "$tmp/out"; fail "empty directory not named"; }
run "$results/session15" "$results/session16" "$results/session16" >"$tmp/out" 2>&1 && fail "OUT_DIR = input accepted"
grep -q "must not be an input directory" "$tmp/out" || { cat "$tmp/out"; fail "refusal not explained"; }

# Sessions 15 -> 16 (two machines of one kind), as published.
run "$results/session15" "$results/session16" "$tmp/s" >"$tmp/out" 2>&1 || { cat "$tmp/out"; fail "spread failed"; }
grep -qF "| time | 267 | 4.9% | 186/267 |" "$tmp/s/error_table.md" || { head -4 "$tmp/s/error_table.md"; fail "15 -> 16"; }
[[ -f $tmp/s/compare/v01_sequential_first_touch.txt ]] || fail "no per-trace comparison"

out=$(python3 "$repeat" "$results/session17") || fail "repeatability failed"
grep -qF "one repetition vs the mean of the others: median 6.1%, 556/870 within 10%; an exact model against the median of the repetitions: median 2.4%, 84.4% within 10%" <<<"$out" || fail "session 17: $out"
python3 "$repeat" "$tmp/empty" >"$tmp/out" 2>&1 && fail "repeatability of an empty directory exited 0"
grep -q "holds no repeated hardware results" "$tmp/out" || { cat "$tmp/out"; fail "empty directory not named"; }
python3 "$repeat" >"$tmp/out" 2>&1 && fail "repeatability without arguments exited 0"
grep -q "usage: repeatability.py" "$tmp/out" || fail "no usage line: $(cat "$tmp/out")"
echo "PASS"
