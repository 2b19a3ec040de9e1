#!/usr/bin/env bash
# End-to-end: `umsim compare` on two small checked-in results; bad inputs give
# clear errors and a non-zero exit.
set -uo pipefail
umsim=$1
data=$(dirname "$2")
tmp=${TEST_TMPDIR:-$(mktemp -d)}
fail() { echo "FAIL: $*"; exit 1; }

out=$("$umsim" compare "$data/sim.json" "$data/hw.json" --json "$tmp/c.json") || fail "compare exited $?"
grep -q "kernel 0 read_all" <<<"$out" || fail "no kernel row: $out"
grep -Eq "time_ns +1100000 +1000000 +\+10\.0%" <<<"$out" || fail "kernel time row wrong: $out"
grep -Eq "bytes_h2d +536870912 +268435456 +\+100\.0%" <<<"$out" || fail "bytes row wrong: $out"
grep -q "not compared (unmeasured by one side): evictions remote_accesses" <<<"$out" || fail "skipped metrics missing"
python3 - "$tmp/c.json" <<'PY' || fail "JSON output wrong"
import json, sys
c = json.load(open(sys.argv[1]))
rows = {(r["scope"], r["metric"]): r for r in c["rows"]}
assert abs(rows[("kernel 0 read_all", "time_ns")]["rel_error"] - 0.1) < 1e-12
assert rows[("total", "bytes_d2h")]["rel_error"] == 0
assert c["skipped_metrics"] == ["evictions", "remote_accesses"]
PY

only=$("$umsim" compare "$data/sim.json" "$data/hw.json" --metrics time_ns) || fail "--metrics exited $?"
grep -q bytes_h2d <<<"$only" && fail "--metrics time_ns still shows bytes"

err=$("$umsim" compare "$data/sim.json" "$data/missing.json" 2>&1) && fail "missing file accepted"
grep -q "missing.json: cannot open" <<<"$err" || fail "unclear error: $err"
printf '{"schema": "umsim-result-1", "producer": "x"' >"$tmp/bad.json"
err=$("$umsim" compare "$data/sim.json" "$tmp/bad.json" 2>&1) && fail "truncated JSON accepted"
grep -q "bad.json: not valid JSON" <<<"$err" || fail "unclear error: $err"
printf '{"schema": "other"}' >"$tmp/schema.json"
err=$("$umsim" compare "$data/sim.json" "$tmp/schema.json" 2>&1) && fail "wrong schema accepted"
grep -q "unknown 'schema'" <<<"$err" || fail "unclear error: $err"
err=$("$umsim" compare "$data/sim.json" "$data/other_trace.json" 2>&1) && fail "different traces accepted"
grep -q "not the same trace" <<<"$err" || fail "unclear error: $err"
echo PASS
