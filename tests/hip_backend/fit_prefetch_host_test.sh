#!/usr/bin/env bash
# hip_backend/fit_prefetch_host.py on session 46's committed runs of
# traces/probe/prefetch_host.umt (the kernel behind the queued call 44.0 us
# after the running one, the move of 256 MiB to the CPU 17.91 ms: medians of
# three; the key comes out 17.2 us above the gap: the running kernel, the
# first on an idle GPU, starts host.idle_launch_gap after its call, the later
# one host.launch_gap after the queued call returns; the profile's
# host.other_stream_launch_gap alone gives 43.4 us, below which the key does
# not move the gap, so the fit searches for the least key that gives 44.0),
# and its bad inputs.
set -uo pipefail
fit=$1 tune=$2 profile=$3 umsim=$4 trace=$5
shift 5
runs=("$@")
source "$(dirname "$0")/fit_test_lib.sh"
fit_setup "$fit" "$tune"

cp "$profile" "$tmp/in.toml"
run "$tmp/in.toml" "$umsim" "$trace" "$tmp/out.toml" "${runs[@]}" >"$tmp/log" 2>&1 || { cat "$tmp/log"; fail "fit refused good runs"; }
for kv in '"prefetch.queued_call_cost": 61183' '"prefetch.to_cpu_page_cost": 17' '"pages": 65536'; do
  grep -q "$kv" "$tmp/log" || fail "expected $kv in: $(cat "$tmp/log")"
done
grep -q '^queued_call_cost = "61183ns" *# host time of a prefetch call queued' "$tmp/out.toml" || fail "key not written with its comment"
# The fitted profile reproduces the runs' medians in the simulator (within 0.2%).
python3 - "$tmp/log" <<'PY' || fail "the fitted model does not reproduce the runs"
import json, sys
r = json.loads(open(sys.argv[1]).read())
assert r["sim_gap_ns"] == r["hw_gap_ns"], r
assert abs(r["sim_to_cpu_ns"] - r["hw_to_cpu_ns"]) <= 2e-3 * r["hw_to_cpu_ns"], r
PY
# Runs whose later kernel started 30 us after the running one, less than the
# profile's other-stream gap alone gives: the key is 0.
python3 - "$tmp" "${runs[@]}" <<'PY' || fail "could not write the shifted runs"
import json, sys
tmp = sys.argv[1]
for n, path in enumerate(sys.argv[2:]):
    run = json.load(open(path))
    starts = {k["name"]: k["start_ns"] for k in run["kernels"]}
    for k in run["kernels"]:
        if k["name"] == "tiny":
            k["start_ns"] = starts["spin"] + 30000
    json.dump(run, open(f"{tmp}/short{n}.json", "w"))
PY
run "$tmp/in.toml" "$umsim" "$trace" "$tmp/short.toml" "$tmp"/short*.json >"$tmp/log" 2>&1 || { cat "$tmp/log"; fail "fit refused short-gap runs"; }
grep -q '"prefetch.queued_call_cost": 0,' "$tmp/log" || fail "expected a key of 0 in: $(cat "$tmp/log")"
# A profile without the keys gets them added to its [prefetch] table.
grep -v '^queued_call_cost\|^to_cpu_page_cost' "$tmp/in.toml" >"$tmp/nokeys.toml"
run "$tmp/nokeys.toml" "$umsim" "$trace" "$tmp/out2.toml" "${runs[@]}" >"$tmp/log" 2>&1 || { cat "$tmp/log"; fail "a profile without the keys refused"; }
grep -q '^to_cpu_page_cost = "17ns"' "$tmp/out2.toml" || fail "key not added: $(grep -n prefetch "$tmp/out2.toml")"
"$umsim" profiles "$tmp/out2.toml" >/dev/null || fail "the written profile does not load"

# Bad inputs: each refused with a message naming the file, nothing written.
rm -f "$tmp/out.toml"
echo '{"phases": [{"name": "queued", "counters": {"time_ns": 1}}], "kernels": []}' >"$tmp/other.json"
refused "a run without the phases" "other.json: expected phases queued, to_cpu and kernels spin, tiny .* missing to_cpu, spin, tiny" "$tmp/in.toml" "$umsim" "$trace" "$tmp/out.toml" "$tmp/other.json"
echo 'not json' >"$tmp/bad.json"
refused "a broken run" "bad.json: not an umsim-hip replay result" "$tmp/in.toml" "$umsim" "$trace" "$tmp/out.toml" "$tmp/bad.json"
grep -v '^\[prefetch\]' "$tmp/nokeys.toml" >"$tmp/notable.toml"
refused "a profile without [prefetch]" "no \[prefetch\] table" "$tmp/notable.toml" "$umsim" "$trace" "$tmp/out.toml" "${runs[@]}"
refused "OUT naming an input" "names an input" "$tmp/in.toml" "$umsim" "$trace" "$tmp/in.toml" "${runs[@]}"
cmp -s "$profile" "$tmp/in.toml" || fail "the input was changed"
[[ -e $tmp/out.toml ]] && fail "an output was written on error"
refused "no runs" "usage:" "$tmp/in.toml"
echo PASS
