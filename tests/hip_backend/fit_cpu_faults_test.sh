#!/usr/bin/env bash
# hip_backend/fit_cpu_faults.py on session 42's committed runs of
# traces/probe/cpu_faults.umt (word reads 18.27 ms, page reads 25.35, word
# writes 28.77, page writes 35.27: medians of three), and its bad inputs.
set -uo pipefail
fit=$1 tune=$2 profile=$3 umsim=$4 trace=$5
shift 5
runs=("$@")
source "$(dirname "$0")/fit_test_lib.sh"
fit_setup "$fit" "$tune" "$(dirname "$fit")/diag_runs.py"

cp "$profile" "$tmp/in.toml"
run "$tmp/in.toml" "$umsim" "$trace" "$tmp/out.toml" "${runs[@]}" >"$tmp/log" 2>&1 || { cat "$tmp/log"; fail "fit refused good runs"; }
for kv in '"cpu.read_fault_cost": 16422' '"cpu.faulted_page_read_cost": 292' '"cpu.fault_cost": 35732' \
  '"cpu.faulted_page_write_cost": 368'; do
  grep -q "$kv" "$tmp/log" || fail "expected $kv in: $(cat "$tmp/log")"
done
grep -q '^read_fault_cost = "16422ns" *# CPU read fault' "$tmp/out.toml" || fail "key not written with its comment"
grep -q '^faulted_page_read_cost = "292ns"' "$tmp/out.toml" || fail "faulted-page key not added"
# The fitted profile reproduces the runs' medians in the simulator (within 0.1%).
python3 - "$tmp/log" <<'PY' || fail "the fitted model does not reproduce the runs"
import json, sys
report = json.loads(open(sys.argv[1]).read())["phases"]
for d in report.values():
    for kind in ("word", "page"):
        assert abs(d[f"sim_{kind}_ns"] - d[f"hw_{kind}_ns"]) <= 1e-3 * d[f"hw_{kind}_ns"], d
PY

# Bad inputs: each refused with a message naming the file, nothing written.
rm -f "$tmp/out.toml"
echo '{"phases": [{"name": "page_read_faults", "counters": {"time_ns": 1}}]}' >"$tmp/other.json"
refused "a run without the phases" "other.json: expected phases .* missing word_read_faults" "$tmp/in.toml" "$umsim" "$trace" "$tmp/out.toml" "$tmp/other.json"
echo 'not json' >"$tmp/bad.json"
refused "a broken run" "bad.json: not a replay result with phase times" "$tmp/in.toml" "$umsim" "$trace" "$tmp/out.toml" "$tmp/bad.json"
grep -v '^read_fault_cost' "$tmp/in.toml" >"$tmp/nokey.toml"
refused "a profile without the key" "no cpu.read_fault_cost key in its \[cpu\] table" "$tmp/nokey.toml" "$umsim" "$trace" "$tmp/out.toml" "${runs[@]}"
refused "OUT naming an input" "names an input" "$tmp/in.toml" "$umsim" "$trace" "$tmp/in.toml" "${runs[@]}"
cmp -s "$profile" "$tmp/in.toml" || fail "the input was changed"
[[ -e $tmp/out.toml ]] && fail "an output was written on error"
refused "no runs" "usage:" "$tmp/in.toml"
echo PASS
