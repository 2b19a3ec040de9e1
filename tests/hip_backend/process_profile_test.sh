#!/usr/bin/env bash
# hip_backend/process_profile.py: a call's profile moved to one process's host
# speed, on session 57's committed per-process runs (host/) and on hand-made
# calls whose ratios are known; and its bad inputs.
set -uo pipefail
script=$1 rescale=$2 tune=$3 profile=$4 session=$5
tmp=${TEST_TMPDIR:-$(mktemp -d)}
fail() { echo "FAIL: $*"; exit 1; }
mkdir -p "$tmp/bin"
cp "$script" "$rescale" "$tune" "$tmp/bin/"  # process_profile.py imports host_rescale.py from its own folder
run() { python3 "$tmp/bin/process_profile.py" "$@"; }
host=$session/host/c01_copies_pinned_pageable.r1.json
ns() {  # FILE SECTION KEY -> the duration in ns
  python3 -c 'import sys; sys.path.insert(0, sys.argv[1]); import host_rescale as h
v = h.profile_values(open(sys.argv[2]).read()); k = sys.argv[3]; print(round(h.duration_ns(v[k], k, sys.argv[2])))' \
    "$tmp/bin" "$1" "$2.$3"
}

run >"$tmp/out" 2>&1 && fail "no arguments: exit 0"
grep -q "usage: process_profile.py" "$tmp/out" || fail "no usage line: $(cat "$tmp/out")"

# A call of one process: every ratio is 1, every value stays.
run "$profile" "$host" "$tmp/one.toml" "$host" >"$tmp/out" 2>&1 || { cat "$tmp/out"; fail "one process refused"; }
grep -qxF "kernel=1.0000 first_touch=1.0000 isolated=1.0000 collapse=1.0000 reprefetch=1.0000" "$tmp/out" ||
  fail "one process: $(cat "$tmp/out")"
diff <(grep -v '^#' "$profile") <(grep -v '^#' "$tmp/one.toml") >/dev/null || fail "one process: a value changed"
grep -q "^# Moved to one process's host speed by hip_backend/process_profile.py (weight 0.75" "$tmp/one.toml" ||
  fail "no note in the written profile"

# Three processes whose first touch and bulk kernels took 1x, 2x and 4x the
# committed process's: the call's median is the 2x one, so the 4x process has
# ratio 2 on those parts (1 on the others, the same in all three). With weight
# 1 its GPU fault keys and CPU fault keys double (and the moves to the CPU
# take twice as long); with the default 0.75 they grow by 2^0.75 = 1.6818; the
# collapse, revocation and wake-up stay.
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
run --weight 1 "$profile" "$tmp/p4.json" "$tmp/w1.toml" "$tmp"/p[124].json >"$tmp/out" 2>&1 ||
  { cat "$tmp/out"; fail "the 4x process refused"; }
grep -qxF "kernel=2.0000 first_touch=2.0000 isolated=1.0000 collapse=1.0000 reprefetch=1.0000" "$tmp/out" ||
  fail "the 4x process: $(cat "$tmp/out")"
for key in "faults va_block_cost" "faults page_cost" "faults run_cost" "cpu first_touch_cost" "cpu fault_cost"; do
  set -- $key
  [[ $(ns "$tmp/w1.toml" $1 $2) -eq $((2 * $(ns "$profile" $1 $2))) ]] || fail "weight 1: $1.$2 not doubled"
done
# The first touch also moves the moves to the CPU: their host work doubles, the
# link to the host's peak halves.
for key in "prefetch to_cpu_page_cost" "prefetch to_cpu_va_block_cost"; do
  set -- $key
  [[ $(ns "$tmp/w1.toml" $1 $2) -eq $((2 * $(ns "$profile" $1 $2))) ]] || fail "weight 1: $1.$2 not doubled"
done
python3 - "$tmp/bin" "$profile" "$tmp/w1.toml" <<'PY' || fail "weight 1: link.gpu_to_host.peak_gbps not halved"
import sys
sys.path.insert(0, sys.argv[1])
import host_rescale as h
peak = lambda path: float(h.profile_values(open(path).read())["link.gpu_to_host.peak_gbps"])  # noqa: E731
assert abs(peak(sys.argv[3]) - peak(sys.argv[2]) / 2) < 1e-3, (peak(sys.argv[2]), peak(sys.argv[3]))
PY
for key in "cpu collapse_fault_cost" "faults revoke_cpu_write_page_cost" "prefetch duplicate_va_block_cost" "faults wakeup_cost" "cpu page_access_cost"; do
  set -- $key
  [[ $(ns "$tmp/w1.toml" $1 $2) == $(ns "$profile" $1 $2) ]] || fail "weight 1: $1.$2 changed"
done
run "$profile" "$tmp/p1.json" "$tmp/w.toml" "$tmp"/p[124].json >"$tmp/out" 2>&1 || { cat "$tmp/out"; fail "the 1x process refused"; }
grep -qxF "kernel=0.5000 first_touch=0.5000 isolated=1.0000 collapse=1.0000 reprefetch=1.0000" "$tmp/out" ||
  fail "the 1x process: $(cat "$tmp/out")"
python3 - "$(ns "$profile" faults va_block_cost)" "$(ns "$tmp/w.toml" faults va_block_cost)" <<'PY' || fail "weight 0.75"
import sys
base, got = map(int, sys.argv[1:])
assert got == round(base * 0.5 ** 0.75), (base, got)
PY

# Bad inputs: each a clear error and a non-zero exit; the named output untouched.
echo keep >"$tmp/keep.toml"
run "$profile" "$tmp/none.json" "$tmp/keep.toml" "$host" >"$tmp/out" 2>&1 && fail "missing process accepted"
grep -q "none.json: no such file" "$tmp/out" || fail "missing process not named: $(cat "$tmp/out")"
run "$profile" "$session/c01_copies_pinned_pageable.r1.json" "$tmp/keep.toml" "$host" >"$tmp/out" 2>&1 &&
  fail "a suite result as the process accepted"
grep -q "0 'touch' and 0 'isolated' kernels" "$tmp/out" || fail "suite result not explained: $(cat "$tmp/out")"
[[ $(cat "$tmp/keep.toml") == keep ]] || fail "the output was touched on error"
cp "$profile" "$tmp/same.toml"
run "$tmp/same.toml" "$host" "$tmp/same.toml" "$host" >"$tmp/out" 2>&1 && fail "output naming the profile accepted"
grep -q "is the input" "$tmp/out" || fail "refusal not explained: $(cat "$tmp/out")"
cmp -s "$profile" "$tmp/same.toml" || fail "the input profile was changed"
run --weight x "$profile" "$host" "$tmp/w.toml" "$host" >"$tmp/out" 2>&1 && fail "--weight x accepted"
grep -q "\-\-weight needs a number" "$tmp/out" || fail "--weight x: $(cat "$tmp/out")"
run --weight 5 "$profile" "$host" "$tmp/w.toml" "$host" >"$tmp/out" 2>&1 && fail "--weight 5 accepted"
run "$profile" "$host" "$tmp/w.json" "$host" >"$tmp/out" 2>&1 && fail "OUT not .toml accepted"
echo "PASS"
