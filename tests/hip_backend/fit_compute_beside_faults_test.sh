#!/usr/bin/env bash
# hip_backend/fit_compute_beside_faults.py on session 47's committed
# diagnostics: the start of the second of two kernels on two streams (18 runs,
# median 43.4 us) and the rate of compute beside faults that brings d5's and
# d6's compute_only kernel closest (0.64: +7.6% / -1.5% on their medians of
# 11.49 and 12.57 ms); the written profile replays d5 at the fitted keys; bad
# inputs refused, nothing written.
set -uo pipefail
fit=$1 tune=$2 profile=$3 umsim=$4 results=$5
source "$(dirname "$0")/fit_test_lib.sh"
fit_setup "$fit" "$tune"
ck=$results/diag_concurrent_kernels cb=$results/diag_compute_beside_faults
gap_runs=("$ck"/d1_*.json "$ck"/d3_*.json "$ck"/d6_*.json "$cb"/c2_*.json "$cb"/c3_*.json "$cb"/c4_*.json)
rate_runs=("$ck"/d5_*.json "$ck"/d6_*.json)
[[ ${#gap_runs[@]} == 18 && ${#rate_runs[@]} == 6 ]] || fail "expected 18 and 6 committed runs"

cp "$profile" "$tmp/in.toml"
run "$tmp/in.toml" "$umsim" "$tmp/out.toml" --gap "${gap_runs[@]}" --rate "${rate_runs[@]}" >"$tmp/log" 2>&1 ||
  { cat "$tmp/log"; fail "fit refused good runs"; }
for kv in '"host.other_stream_launch_gap": 43374' '"gpu.compute_beside_faults": 0.64' '"gap_runs": 18' \
  '"d5_compute_beside_faults.umt": 7.6' '"d6_faults_then_compute.umt": -1.5'; do
  grep -q "$kv" "$tmp/log" || fail "expected $kv in: $(cat "$tmp/log")"
done
grep -q '^other_stream_launch_gap = "43374ns"' "$tmp/out.toml" || fail "gap not written"
grep -q '^compute_beside_faults = 0.64' "$tmp/out.toml" || fail "rate not written"
# The written profile gives d5's compute kernel 7.6% above the hardware's median.
"$umsim" replay "$ck/traces/d5_compute_beside_faults.umt" --profile "$tmp/out.toml" --json "$tmp/d5.json" -q ||
  fail "the written profile does not replay"
python3 - "$tmp/d5.json" <<'PY' || fail "the written profile does not give the fitted time"
import json, sys
k = [k for k in json.load(open(sys.argv[1]))["kernels"] if k["name"] == "compute_only"][0]
assert abs(k["counters"]["time_ns"] / 11488415 - 1.076) < 0.001, k["counters"]["time_ns"]
PY
# Without the keys, the profile gets them added.
grep -v '^other_stream_launch_gap\|^compute_beside_faults' "$tmp/in.toml" >"$tmp/nokeys.toml"
run "$tmp/nokeys.toml" "$umsim" "$tmp/out2.toml" --gap "${gap_runs[@]}" --rate "${rate_runs[@]}" >"$tmp/log" 2>&1 ||
  { cat "$tmp/log"; fail "a profile without the keys refused"; }
grep -q '^compute_beside_faults = 0.64' "$tmp/out2.toml" || fail "rate not added"

# Bad inputs: each refused with a message naming the file, nothing written.
rm -f "$tmp/out.toml"
echo 'not json' >"$tmp/bad.json"
refused "a broken run" "bad.json: not a result" "$tmp/in.toml" "$umsim" "$tmp/out.toml" --gap "$tmp/bad.json" --rate "${rate_runs[@]}"
refused "a run of one kernel" "expected two kernels, found 1" "$tmp/in.toml" "$umsim" "$tmp/out.toml" \
  --gap "$cb"/c1_compute_alone.r1.json --rate "${rate_runs[@]}"
refused "a rate run without compute_only" "expected one kernel named compute_only, found 0" "$tmp/in.toml" "$umsim" \
  "$tmp/out.toml" --gap "${gap_runs[@]}" --rate "$cb"/c2_compute_beside_write_faults.r1.json
cp "$ck"/d5_compute_beside_faults.r1.json "$tmp/d9_elsewhere.r1.json"
refused "a run without its trace" "its trace .*d9_elsewhere.umt is missing" "$tmp/in.toml" "$umsim" "$tmp/out.toml" \
  --gap "${gap_runs[@]}" --rate "$tmp/d9_elsewhere.r1.json"
refused "no --rate" "usage:" "$tmp/in.toml" "$umsim" "$tmp/out.toml" --gap "${gap_runs[@]}"
refused "--rate before --gap" "expected --gap" "$tmp/in.toml" "$umsim" "$tmp/out.toml" --rate "${rate_runs[@]}" --gap "${gap_runs[@]}"
refused "OUT naming an input" "names an input" "$tmp/in.toml" "$umsim" "$tmp/in.toml" --gap "${gap_runs[@]}" --rate "${rate_runs[@]}"
cmp -s "$profile" "$tmp/in.toml" || fail "the input was changed"
[[ -e $tmp/out.toml ]] && fail "an output was written on error"
echo PASS
