#!/usr/bin/env bash
# hip_backend/fit_launch_after_memset.py on the committed calibration runs of
# session 40 (phase "kernel" less kernel "update": 181298, 296058, 318773 ns;
# median 296058, less the profile's sync return 6082), on a profile with
# another value, on one without the sync return, and its bad inputs.
set -uo pipefail
fit=$1 tune=$2 rescale=$3 profile=$4
shift 4
runs=("$@")
source "$(dirname "$0")/fit_test_lib.sh"
fit_setup "$fit" "$tune" "$rescale" "$(dirname "$fit")/diag_runs.py"

sed 's/^launch_after_memset_cost = "[0-9]*ns"/launch_after_memset_cost = "1ns"/' "$profile" >"$tmp/in.toml"
grep -q '^launch_after_memset_cost = "1ns"' "$tmp/in.toml" || fail "the profile has no launch_after_memset_cost line"
run "$tmp/in.toml" "$tmp/out.toml" "${runs[@]}" >"$tmp/log" 2>&1 || { cat "$tmp/log"; fail "fit refused good runs"; }
grep -q '"value_ns": 289976' "$tmp/log" || fail "value: $(cat "$tmp/log")"
grep -q '^launch_after_memset_cost = "289976ns" *# host time before' "$tmp/out.toml" || fail "key not written with its comment"
diff <(grep -v '^launch_after_memset_cost' "$tmp/in.toml") <(grep -v '^launch_after_memset_cost' "$tmp/out.toml") \
  || fail "other lines changed"
# Without host.sync_return_cost the gap is the key.
grep -v '^sync_return_cost' "$tmp/in.toml" >"$tmp/nosync.toml"
run "$tmp/nosync.toml" "$tmp/out2.toml" "${runs[@]}" >"$tmp/log" 2>&1 || { cat "$tmp/log"; fail "fit refused a profile without the sync return"; }
grep -q '"value_ns": 296058' "$tmp/log" || fail "value without the sync return: $(cat "$tmp/log")"

# Bad inputs: each refused with a message naming the file, nothing written.
rm -f "$tmp/out.toml"
echo '{"phases": [], "kernels": []}' >"$tmp/other.json"
refused "a run without the phase" "other.json: expected a phase 'kernel' and a kernel 'update'" "$tmp/in.toml" "$tmp/out.toml" "$tmp/other.json"
echo 'not json' >"$tmp/bad.json"
refused "a broken run" "bad.json: not a replay result with phase times" "$tmp/in.toml" "$tmp/out.toml" "$tmp/bad.json"
grep -v '^launch_after_memset_cost' "$tmp/in.toml" >"$tmp/nokey.toml"
refused "a profile without the key" "no host.launch_after_memset_cost key in its \[host\] table" "$tmp/nokey.toml" "$tmp/out.toml" "${runs[@]}"
sed 's/^sync_return_cost = "[0-9]*ns"/sync_return_cost = "1s"/' "$tmp/in.toml" >"$tmp/longsync.toml"
grep -q '^sync_return_cost = "1s"' "$tmp/longsync.toml" || fail "the profile has no sync_return_cost line"
refused "a sync return longer than the gap" "median gap (296058 ns) is shorter than host.sync_return_cost (1000000000 ns)" \
  "$tmp/longsync.toml" "$tmp/out.toml" "${runs[@]}"
refused "OUT naming an input" "names an input" "$tmp/in.toml" "$tmp/in.toml" "${runs[@]}"
grep -q '"1ns"' "$tmp/in.toml" || fail "the input was changed"
[[ -e $tmp/out.toml ]] && fail "an output was written on error"
refused "no runs" "usage:" "$tmp/in.toml"
echo PASS
