#!/usr/bin/env bash
# hip_backend/fault_structure.py on hand-made --um-records CSVs: two processes of
# one trace in one call and one in another, figures counted by hand; bad inputs.
set -uo pipefail
script=$1
tmp=${TEST_TMPDIR:-$(mktemp -d)}
fail() { echo "FAIL: $*"; exit 1; }
mkdir -p "$tmp/a" "$tmp/b" "$tmp/bad"
header="kind,start_ns,end_ns,value,flags,address,device,kernel"
result() { printf '{"kernels": [{"name": "touch", "counters": {"time_ns": %s}}]}\n' "$1" >"$2"; }
# Process 1: a fault mid-region (prefetch below, the faulted page, prefetch above),
# then a lone fault with its region above: 2 faulted pages, 2 coherence and 3
# prefetch copies, 32 pages (0.125 MiB, shown 0.1); copy gaps 3, 3, 4, 2 us (median 3).
# The explicit prefetch (cause 1, kernel -1) and the CPU fault are no fault service's copies.
printf '%s\nkernel_window,0,100000,0,0,0,0,0\ncpu_fault,-500,,1,2,0,-1,-1\nh2d,1000,1500,32768,3,0,0,0\nh2d,4000,4500,4096,2,32768,0,0\nh2d,7000,7500,28672,3,36864,0,0\nh2d,11000,11500,4096,2,65536,0,0\nh2d,13000,13500,61440,3,69632,0,0\nh2d,20000,20500,1048576,1,0,0,-1\n' "$header" >"$tmp/a/t.r1.csv"
result 2000000 "$tmp/a/t.r1.json"
# Process 2: one fault, its region above it: 1 faulted page, 1 + 1 copies, one gap of 5 us.
# The median gap over processes: 4 us. Call b: one copy, no gap, 0.0 MiB.
printf '%s\nh2d,1000,1500,4096,2,0,0,0\nh2d,6000,6500,61440,3,4096,0,0\n' "$header" >"$tmp/a/t.r2.csv"
result 4000000 "$tmp/a/t.r2.json"
printf '%s\nh2d,1000,1500,4096,2,0,0,0\n' "$header" >"$tmp/b/t.r1.csv"
result 1000000 "$tmp/b/t.r1.json"

out=$(python3 "$script" "$tmp/a" "$tmp/b") || fail "exit $?: $out"
grep -qxF "| t | touch | 3.00 / 1.00 | 3 | 1-2 | 1-2 | 0-3 | 0.0-0.1 | 4.00 |" <<<"$out" || fail "table row: $out"
json=$(python3 "$script" --json "$tmp/a") || fail "--json exit $?"
python3 - "$json" <<'PY' || fail "json: $json"
import json, sys
r = json.loads(sys.argv[1])
assert r["faulted_pages"] == [1, 2] and r["coherence_copies"] == [1, 2] and r["prefetch_copies"] == [1, 3], r
assert r["mib"] == [0.1, 0.1] and r["median_gap_us"] == 4.0 and r["time_ms"] == [3.0] and r["processes"] == 2, r
PY

# Bad inputs: no arguments, no records, a result missing, a wrong header, a short line.
python3 "$script" >"$tmp/out" 2>&1 && fail "no arguments accepted"
grep -q "usage: fault_structure.py" "$tmp/out" || fail "no usage: $(cat "$tmp/out")"
python3 "$script" "$tmp/bad" >"$tmp/out" 2>&1 && fail "a directory without records accepted"
grep -q "no NAME.rN.csv records" "$tmp/out" || fail "empty directory: $(cat "$tmp/out")"
printf '%s\n' "$header" >"$tmp/bad/u.r1.csv"
python3 "$script" "$tmp/bad" >"$tmp/out" 2>&1 && fail "records without a result accepted"
grep -q "u.r1.csv: no result u.r1.json beside it" "$tmp/out" || fail "missing result: $(cat "$tmp/out")"
result 1 "$tmp/bad/u.r1.json"
printf 'kind,start\nh2d,1\n' >"$tmp/bad/u.r1.csv"
python3 "$script" "$tmp/bad" >"$tmp/out" 2>&1 && fail "a wrong header accepted"
grep -q "u.r1.csv:1: expected the header" "$tmp/out" || fail "wrong header: $(cat "$tmp/out")"
printf '%s\nh2d,1,2,3\n' "$header" >"$tmp/bad/u.r1.csv"
python3 "$script" "$tmp/bad" >"$tmp/out" 2>&1 && fail "a short line accepted"
grep -q "u.r1.csv:2: expected 8 fields, found 4" "$tmp/out" || fail "short line: $(cat "$tmp/out")"
printf '%s\nh2d,x,2,3,2,0,0,0\n' "$header" >"$tmp/bad/u.r1.csv"
python3 "$script" "$tmp/bad" >"$tmp/out" 2>&1 && fail "a non-integer accepted"
grep -q "u.r1.csv:2: expected integers" "$tmp/out" || fail "non-integer: $(cat "$tmp/out")"
echo "PASS"
