#!/usr/bin/env bash
# hip_backend/fit_prefetch_hold.py on the committed diagnostics: one prefetch
# call on an idle stream, then a kernel `tiny` on another stream, whose start
# (median of three processes) is when the call returned. Session 99's q4
# (128 MiB, 64 blocks: 1,503,381 ns) and session 45's h1 / h2 (64 / 256 MiB, 32
# / 128 blocks: 1,008,953 / 4,114,014 ns); the simulator starts `tiny` at
# 94,380 ns with the key at 0 (the call's own costs and the launch gap). With
# the committed profile as every call's probe profile (factor 1) the blocks
# take (1,503,381 - 94,380) / 64 = 22,016, (1,008,953 - 94,380) / 32 = 28,580
# and (4,114,014 - 94,380) / 128 = 31,403 ns: the median 28,580. A probe profile
# whose faults.va_block_cost is twice the committed one (a host twice as slow)
# halves its case's value to the reference host's. Then the bad inputs.
set -uo pipefail
fit=$1 rescale=$2 tune=$3 profile=$4 umsim=$5
source "$(dirname "$0")/fit_test_lib.sh"
fit_setup "$fit" "$rescale" "$tune"
results=hip_backend/results/h200-pcie5
q=$results/diag_prefetch_pipeline h=$results/diag_prefetch_hold

cp "$profile" "$tmp/in.toml"
cases=("$tmp/in.toml:$q:q4_one_call" "$tmp/in.toml:$h:h1_hold_64" "$tmp/in.toml:$h:h2_hold_256")
run "$tmp/in.toml" "$umsim" "$tmp/out.toml" "${cases[@]}" >"$tmp/log" 2>&1 || { cat "$tmp/log"; fail "fit refused good runs"; }
python3 - "$tmp/log" <<'PY' || fail "unexpected fit: $(cat "$tmp/log")"
import json, sys
r = json.loads(open(sys.argv[1]).read())
got = [(c["blocks"], c["sim_start_at_0_ns"], round(c["hw_start_ns"]), c["per_block_ns"]) for c in r["cases"]]
assert got == [(64, 94380, 1503381, 22016), (32, 94380, 1008953, 28580), (128, 94380, 4114014, 31403)], got
assert r["fitted_ns"] == 28580, r
PY
grep -q '^host_va_block_cost = "28580ns" *# host time per VA block' "$tmp/out.toml" || fail "key not written with its comment"
"$umsim" profiles "$tmp/out.toml" >/dev/null || fail "the written profile does not load"

# A host twice as slow at the driver's work: h2's value halves (15,702) and
# becomes the median.
python3 - "$tmp/in.toml" "$tmp/slow.toml" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
text = re.sub(r'^va_block_cost = "3055ns"', 'va_block_cost = "6110ns"', text, count=1, flags=re.M)
open(sys.argv[2], "w").write(text)
PY
grep -q '^va_block_cost = "6110ns"' "$tmp/slow.toml" || fail "the test's slow profile was not made"
run "$tmp/in.toml" "$umsim" "$tmp/out.toml" "$tmp/in.toml:$q:q4_one_call" "$tmp/in.toml:$h:h1_hold_64" \
  "$tmp/slow.toml:$h:h2_hold_256" >"$tmp/log" 2>&1 || { cat "$tmp/log"; fail "fit refused a slow host's case"; }
grep -q '"fitted_ns": 22016' "$tmp/log" || fail "expected 22016 with h2 halved: $(cat "$tmp/log")"
grep -q '"gpu_fault_factor": 2.0' "$tmp/log" || fail "expected the slow case's factor 2.0: $(cat "$tmp/log")"
# A profile without the key gets it added to its [prefetch] table.
grep -v '^host_va_block_cost' "$tmp/in.toml" >"$tmp/nokey.toml"
run "$tmp/nokey.toml" "$umsim" "$tmp/out2.toml" "${cases[0]}" >"$tmp/log" 2>&1 || { cat "$tmp/log"; fail "a profile without the key refused"; }
grep -q '^host_va_block_cost = "22016ns"' "$tmp/out2.toml" || fail "key not added: $(grep -n prefetch "$tmp/out2.toml")"

# Bad inputs: each refused with a message naming what is wrong, nothing written.
rm -f "$tmp/out.toml"
refused "a case without its parts" "'$tmp/in.toml:q4_one_call': expected PROBE_PROFILE:DIAG_DIR:TRACE" \
  "$tmp/in.toml" "$umsim" "$tmp/out.toml" "$tmp/in.toml:q4_one_call"
refused "a trace that is not there" "traces/q9_none.umt: no such trace" "$tmp/in.toml" "$umsim" "$tmp/out.toml" "$tmp/in.toml:$q:q9_none"
mkdir -p "$tmp/diag/traces" && cp "$q/traces/q4_one_call.umt" "$tmp/diag/traces/"
refused "a trace without runs" "no replays of q4_one_call" "$tmp/in.toml" "$umsim" "$tmp/out.toml" "$tmp/in.toml:$tmp/diag:q4_one_call"
echo 'not json' >"$tmp/diag/q4_one_call.r1.json"
refused "a broken run" "q4_one_call.r1.json: not a replay result with kernel times" "$tmp/in.toml" "$umsim" "$tmp/out.toml" "$tmp/in.toml:$tmp/diag:q4_one_call"
refused "a trace without a tiny kernel" "expected one kernel named 'tiny', found 0" "$tmp/in.toml" "$umsim" "$tmp/out.toml" "$tmp/in.toml:$q:q1_one_wait"
grep -v '^va_block_cost' "$tmp/nokey.toml" >"$tmp/noblock.toml"
refused "a probe profile without faults.va_block_cost" "no faults.va_block_cost" "$tmp/in.toml" "$umsim" "$tmp/out.toml" "$tmp/noblock.toml:$q:q4_one_call"
grep -v '^\[prefetch\]' "$tmp/nokey.toml" >"$tmp/notable.toml"
refused "a probe profile without [prefetch]" "no \[prefetch\] table" "$tmp/in.toml" "$umsim" "$tmp/out.toml" "$tmp/notable.toml:$q:q4_one_call"
refused "OUT naming an input" "names an input" "$tmp/in.toml" "$umsim" "$tmp/in.toml" "${cases[@]}"
cmp -s "$profile" "$tmp/in.toml" || fail "the input was changed"
[[ -e $tmp/out.toml ]] && fail "an output was written on error"
refused "no cases" "usage:" "$tmp/in.toml" "$umsim" "$tmp/out.toml"
echo PASS
