#!/usr/bin/env bash
# hip_backend/reference_subsets.py on a hand-made call: one trace, a kernel, a
# phase and a kernel under 50 us, three repetitions; every row hand-computed
# (docs in the script). And its bad inputs.
set -uo pipefail
script=$1 repeatability=$2
tmp=${TEST_TMPDIR:-$(mktemp -d)}
fail() { echo "FAIL: $*"; exit 1; }
mkdir -p "$tmp/bin" "$tmp/sim" "$tmp/hw"
cp "$script" "$repeatability" "$tmp/bin/"
run() { python3 "$tmp/bin/reference_subsets.py" "$@"; }
result() {  # FILE KERNEL_NS PHASE_NS
  printf '{"kernels": [{"name": "k", "counters": {"time_ns": %s}}, {"name": "short", "counters": {"time_ns": 10000}}],
"phases": [{"name": "p", "counters": {"time_ns": %s}}]}\n' "$2" "$3" >"$1"
}
result "$tmp/sim/t.json" 100000 200000
result "$tmp/hw/t.r1.json" 100000 200000
result "$tmp/hw/t.r2.json" 110000 200000
result "$tmp/hw/t.r3.json" 130000 260000

run "$tmp/sim" "$tmp/hw" >"$tmp/out" 2>&1 || { cat "$tmp/out"; fail "a good call refused"; }
# k=1: errors (kernel, phase) r1 (0, 0), r2 (1/11, 0), r3 (3/13, 3/13): medians 0, 4.55, 23.08%.
# k=2: (r1,r2) ref 105/200 us: 4.76%, 0 -> 2.38%; (r1,r3) 115/230: 13.04% both; (r2,r3) 120/230:
#      16.67%, 13.04% -> 14.86%; mean 10.09%, within 10% on 1/3 of the choices' scopes.
# k=3: ref 110/200 us: 9.09%, 0 -> 4.55%, both within 10%. The 10 us kernel never counts.
for row in "| 1 of 3 | 3 | 9.21% (0.00-23.08%) | 66.7% |" "| 2 of 3 | 3 | 10.09% (2.38-14.86%) | 33.3% |" \
  "| 3 of 3 | 1 | 4.55% (4.55-4.55%) | 100.0% |"; do
  grep -qF -- "$row" "$tmp/out" || fail "expected $row in: $(cat "$tmp/out")"
done

# Twelve repetitions: a k with more than 200 choices is judged on 200 drawn with a
# fixed seed, the same on every run.
mkdir -p "$tmp/sim12" "$tmp/hw12"
result "$tmp/sim12/t.json" 100000 200000
for i in $(seq 1 12); do result "$tmp/hw12/t.r$i.json" $((95000 + 1000 * i)) $((190000 + 3000 * i)); done
run "$tmp/sim12" "$tmp/hw12" >"$tmp/out12a" 2>&1 || { cat "$tmp/out12a"; fail "twelve repetitions refused"; }
run "$tmp/sim12" "$tmp/hw12" >"$tmp/out12b" 2>&1
cmp -s "$tmp/out12a" "$tmp/out12b" || fail "two runs differ"
grep -qF "| 6 of 12 | 200 |" "$tmp/out12a" || fail "k=6 of 12 not sampled: $(cat "$tmp/out12a")"
grep -qF "| 2 of 12 | 66 |" "$tmp/out12a" || fail "k=2 of 12 not every choice: $(cat "$tmp/out12a")"
grep -qF "| 12 of 12 | 1 |" "$tmp/out12a" || fail "no row for all twelve: $(cat "$tmp/out12a")"

bad() {  # WHAT EXPECTED_TEXT ARGS...
  local what=$1 text=$2
  shift 2
  run "$@" >"$tmp/out" 2>&1 && fail "$what accepted"
  grep -qF -- "$text" "$tmp/out" || fail "$what not explained: $(cat "$tmp/out")"
  return 0
}
bad "no arguments" "usage: reference_subsets.py SIM_DIR RESULTS_DIR"
bad "a missing folder" "$tmp/none: no such directory" "$tmp/sim" "$tmp/none"
mkdir -p "$tmp/empty"
bad "no simulations" "no simulated results" "$tmp/empty" "$tmp/hw"
cp "$tmp/sim/t.json" "$tmp/sim/u.json"
result "$tmp/hw/u.r1.json" 100000 200000
bad "one repetition" "u has 1 repetition(s)" "$tmp/sim" "$tmp/hw"
result "$tmp/hw/u.r2.json" 100000 200000
bad "unequal repetitions" "u has 2 repetitions, other traces 3" "$tmp/sim" "$tmp/hw"
result "$tmp/hw/u.r3.json" 100000 200000
run "$tmp/sim" "$tmp/hw" >/dev/null 2>&1 || fail "two traces of three repetitions refused"
echo '{"kernels": [' >"$tmp/hw/u.r2.json"
bad "a broken result" "u.r2.json: not an umsim result" "$tmp/sim" "$tmp/hw"
echo PASS
