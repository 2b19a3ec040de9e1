#!/usr/bin/env bash
# hip_backend/pooled_errors.py on three hand-made calls' compare outputs: the
# pooled (median) errors, the scopes kept (in at least half of the calls, 50 us
# floor), the misses that repeat on every call, and its bad inputs.
set -uo pipefail
pooled=$1 table=$2
tmp=${TEST_TMPDIR:-$(mktemp -d)}
fail() { echo "FAIL: $*"; exit 1; }
mkdir -p "$tmp/bin"
cp "$pooled" "$table" "$tmp/bin/"  # pooled_errors.py imports error_table.py from its own folder
run() { python3 "$tmp/bin/pooled_errors.py" "$@"; }

# call N: trace t, kernel "a" sim 100 us against hw A_N, kernel "b" (sim 40 us:
# under the floor where hw is too) against B_N, phase "p" sim 1 ms against 1 ms.
make_call() {  # DIR A_HW_US B_HW_US
  mkdir -p "$1/compare"
  echo '{}' >"$1/hw.json"
  python3 - "$1" "$2" "$3" <<'PY'
import json, sys
d, a, b = sys.argv[1], float(sys.argv[2]) * 1000, float(sys.argv[3]) * 1000
def row(scope, sim, hw):
    return {"scope": scope, "metric": "time_ns", "sim": sim, "hw": hw, "rel_error": (sim - hw) / hw}
rows = [row("kernel 0 a", 100000, a), row("kernel 1 b", 40000, b), row("phase p", 1000000, 1000000),
        row("total", 5000000, 1000000)]
json.dump({"sim": "", "hw": d + "/hw.json", "trace": "t.umt", "rows": rows}, open(d + "/compare/t.compare.json", "w"))
PY
}
# a: +25%, +11.1%, -20% (median +11.1%, no repeat); b: hw 80 / 30 / 100 us:
# -50% and -60% where kept (the second call's 40 / 30 us is under the floor).
make_call "$tmp/c1" 80 80
make_call "$tmp/c2" 90 30
make_call "$tmp/c3" 125 100
run "$tmp/c1" "$tmp/c2" "$tmp/c3" >"$tmp/out" 2>&1 || { cat "$tmp/out"; fail "three calls refused"; }
grep -q "Pooled over 3 calls: 3 time scopes" "$tmp/out" || fail "scope count: $(cat "$tmp/out")"
# |pooled| of a, b, p: 11.1%, 55%, 0% -> median 11.1%; within 10%: p only;
# repeating: b only (faster on both calls that have it).
grep -qF "| 3 | 11.1% | 1/3 | 1 (0 / 1) |" "$tmp/out" || fail "summary row: $(cat "$tmp/out")"
grep -qF "| t | 3 | +0.0% | 1 |" "$tmp/out" || fail "per-trace row: $(cat "$tmp/out")"
grep -qF "| t | kernel 1 b | -55.0% | -60.0% .. -50.0% |" "$tmp/out" || fail "repeating miss row: $(cat "$tmp/out")"
grep -q "kernel 0 a |" <(sed -n '/Largest/,$p' "$tmp/out") && fail "a non-repeating miss listed as repeating"
grep -q "total" "$tmp/out" && fail "the total scope counted"
# Pooled errors taken out: c1 a 1.25 / 1.111 -> +12.5%, b 0.5 / 0.45 -> +11.1%, p 0
# (median 11.1%, was 25%); c2 a -> 0, p 0 (0%, was 5.6%); c3 a -28%, b -11.1%, p 0
# (11.1%, was 20%). Medians 20% -> 11.11%; at or under 6%: c2 both times; at or
# under 12%: c2 -> all three; 60% within 10%: none -> c2 (a and p).
grep -qF "| as judged | 20.00% | 1 of 3 | 1 of 3 | 0 of 3 |" "$tmp/out" || fail "as judged row: $(cat "$tmp/out")"
grep -qF "| pooled errors taken out | 11.11% | 1 of 3 | 3 of 3 | 1 of 3 |" "$tmp/out" ||
  fail "bias-free row: $(cat "$tmp/out")"

# A comparison whose merged hardware file is gone (committed comparisons name
# files that were not kept): only time rows are read, so the same result.
rm "$tmp/c3/hw.json"
run "$tmp/c1" "$tmp/c2" "$tmp/c3" >"$tmp/out" 2>&1 || { cat "$tmp/out"; fail "a missing merged file refused"; }
grep -qF "| 3 | 11.1% | 1/3 | 1 (0 / 1) |" "$tmp/out" || fail "summary without the merged file: $(cat "$tmp/out")"

# Two calls only: a scope present in one of them is kept (half of two).
run "$tmp/c1" "$tmp/c2" >"$tmp/out" 2>&1 || { cat "$tmp/out"; fail "two calls refused"; }
grep -q "Pooled over 2 calls: 3 time scopes" "$tmp/out" || fail "two calls: $(cat "$tmp/out")"

# A scope the model never times (sim 0 on every call: pooled -100%) has no factor
# to take out: it stays a miss, and the table is still written.
for c in c1 c2 c3; do
  mkdir -p "$tmp/z$c/compare"
  python3 - "$tmp/$c/compare/t.compare.json" "$tmp/z$c/compare/t.compare.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
c["rows"].append({"scope": "kernel 2 z", "metric": "time_ns", "sim": 0, "hw": 100000, "rel_error": -1.0})
json.dump(c, open(sys.argv[2], "w"))
PY
done
run "$tmp/zc1" "$tmp/zc2" "$tmp/zc3" >"$tmp/out" 2>&1 || { cat "$tmp/out"; fail "a never-timed scope broke the table"; }
grep -qF "| pooled errors taken out |" "$tmp/out" || fail "no bias-free row with a never-timed scope: $(cat "$tmp/out")"

# Bad inputs: a clear error and a non-zero exit each.
run "$tmp/c1" >"$tmp/out" 2>&1 && fail "one call accepted"
grep -q "at least two calls" "$tmp/out" || fail "one call not explained: $(cat "$tmp/out")"
mkdir -p "$tmp/empty"
run "$tmp/c1" "$tmp/empty" >"$tmp/out" 2>&1 && fail "a directory without compare outputs accepted"
grep -q "empty: no compare/\*.compare.json" "$tmp/out" || fail "empty directory not named: $(cat "$tmp/out")"
mkdir -p "$tmp/broken/compare"
echo '{"rows": [' >"$tmp/broken/compare/t.compare.json"
run "$tmp/c1" "$tmp/broken" >"$tmp/out" 2>&1 && fail "broken JSON accepted"
grep -q "broken: unreadable compare output" "$tmp/out" || fail "broken JSON not named: $(cat "$tmp/out")"
grep -q "Traceback" "$tmp/out" && fail "a traceback instead of an error"
# Each call against the other calls' hardware: a's hw 60 / 100 / 100 us (model
# 100: +66.7% / 0 / 0; the others' median 100 / 80 / 80: out on every call), b's
# 100 us on each (model 40: -60%; the others' 100: within), p within both ways.
make_call "$tmp/d1" 60 100
make_call "$tmp/d2" 100 100
make_call "$tmp/d3" 100 100
run "$tmp/d1" "$tmp/d2" "$tmp/d3" >"$tmp/out" 2>&1 || { cat "$tmp/out"; fail "the second three calls refused"; }
grep -qF "| $tmp/d1 | 3 | 2 (66.7%) | 1 (33.3%) |" "$tmp/out" || fail "others' hardware row d1: $(cat "$tmp/out")"
grep -qF "| $tmp/d2 | 3 | 2 (66.7%) | 2 (66.7%) |" "$tmp/out" || fail "others' hardware row d2: $(cat "$tmp/out")"
grep -qF "other calls' hardware 3 of 3, model 2 of 3." "$tmp/out" || fail "60% reach line: $(cat "$tmp/out")"
echo PASS
