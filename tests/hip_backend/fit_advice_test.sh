#!/usr/bin/env bash
# hip_backend/fit_advice.py on session 51's runs of traces/probe/advice_costs.umt
# (phase medians, ns: rm_cpu_twice_64MiB 3986; rm_cpu_16MiB 1534685, _64MiB
# 5687937, _256MiB 21373939, rm_cpu_again_64MiB 5921686; ab_cpu_64MiB 2516446,
# _256MiB 10078214; prefcpu_256MiB 4076894, prefgpu_256MiB 3997900), hand-
# checked: ReadMostly (34518247 - 4 x 3986) / 102400 pages = 337, AccessedBy
# (12594660 - 2 x 3986) / 81920 = 154, preferred (8074794 - 2 x 3986) / 131072
# = 62; then its bad inputs.
set -uo pipefail
fit=$1 tune=$2 rescale=$3 profile=$4
shift 4
runs=("$@")
source "$(dirname "$0")/fit_test_lib.sh"
fit_setup "$fit" "$tune" "$rescale" "$(dirname "$fit")/diag_runs.py"

sed -e 's/^advise_call_cost = "[0-9]*ns"/advise_call_cost = "1ns"/' \
  -e 's/^advise_read_mostly_page_cost = "[0-9]*ns"/advise_read_mostly_page_cost = "1ns"/' "$profile" >"$tmp/in.toml"
grep -q '^advise_call_cost = "1ns"' "$tmp/in.toml" || fail "the profile has no advise_call_cost line"
run "$tmp/in.toml" "$tmp/out.toml" "${runs[@]}" >"$tmp/log" 2>&1 || { cat "$tmp/log"; fail "fit refused good runs"; }
for kv in '"host.advise_call_cost": 3986' '"host.advise_read_mostly_page_cost": 337' \
  '"host.advise_accessed_by_page_cost": 154' '"host.advise_preferred_page_cost": 62'; do
  grep -q "$kv" "$tmp/log" || fail "value $kv: $(cat "$tmp/log")"
done
grep -q '^advise_call_cost = "3986ns" *# per advise call' "$tmp/out.toml" || fail "key not written with its comment"
grep -q '^advise_read_mostly_page_cost = "337ns"' "$tmp/out.toml" || fail "read-mostly key not written"
diff <(grep -v '^advise_' "$tmp/in.toml") <(grep -v '^advise_' "$tmp/out.toml") || fail "other lines changed"

# Bad inputs: each refused with a message naming the file, nothing written.
rm -f "$tmp/out.toml"
echo '{"phases": [{"name": "main", "counters": {"time_ns": 1}}]}' >"$tmp/other.json"
refused "a run of another trace" "other.json: expected a phase 'rm_cpu_twice_64MiB'" "$tmp/in.toml" "$tmp/out.toml" "$tmp/other.json"
refused "runs of different traces" "other.json: its phases differ" "$tmp/in.toml" "$tmp/out.toml" "${runs[0]}" "$tmp/other.json"
echo 'not json' >"$tmp/bad.json"
refused "a broken run" "bad.json: not a replay result with phase times" "$tmp/in.toml" "$tmp/out.toml" "$tmp/bad.json"
python3 - "${runs[0]}" "$tmp/noab.json" <<'PY'
import json, sys
run = json.load(open(sys.argv[1]))
run["phases"] = [p for p in run["phases"] if not p["name"].startswith("ab_cpu_")]
json.dump(run, open(sys.argv[2], "w"))
PY
refused "a run without AccessedBy phases" "noab.json: no phase for host.advise_accessed_by_page_cost" "$tmp/in.toml" "$tmp/out.toml" "$tmp/noab.json"
grep -v '^advise_preferred_page_cost' "$tmp/in.toml" >"$tmp/nokey.toml"
refused "a profile without a key" "no host.advise_preferred_page_cost key in its \[host\] table" "$tmp/nokey.toml" "$tmp/out.toml" "${runs[@]}"
refused "OUT naming an input" "names an input" "$tmp/in.toml" "$tmp/in.toml" "${runs[@]}"
grep -q '^advise_call_cost = "1ns"' "$tmp/in.toml" || fail "the input was changed"
[[ -e $tmp/out.toml ]] && fail "an output was written on error"
refused "no runs" "usage:" "$tmp/in.toml"
echo PASS
