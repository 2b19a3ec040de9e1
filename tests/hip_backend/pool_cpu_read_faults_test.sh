#!/usr/bin/env bash
# hip_backend/pool_cpu_read_faults.py on sessions 42 and 43's committed
# calibrations (cpu_faults runs) and host probes, and its bad inputs. Each
# call's read fault is fit_cpu_faults.py's on the profile put on that call's
# host by host_rescale.py (session 42: 16422 ns at CPU factor 0.78, so 21054 at
# the reference host; session 43: 19977 ns at 0.969, 20616); the medians of the
# two calls are written. With --with-writes the write side too (write faults
# 35732 and 37808 ns, faulted page writes 368 and 323 ns).
set -uo pipefail
pool=$1 rescale=$2 fit=$3 tune=$4 runs=$5 profile=$6 umsim=$7 probe_trace=$8 fault_trace=$9
source "$(dirname "$0")/fit_test_lib.sh"
fit_setup "$pool" "$rescale" "$fit" "$tune" "$runs"
calls=()
for s in 42 43; do
  calls+=("profiles/raw/h200-pcie5/later/session$s:hip_backend/results/h200-pcie5/session$s/probe")
done

cp "$profile" "$tmp/in.toml"
run "$tmp/in.toml" "$umsim" "$probe_trace" "$fault_trace" "$tmp/out.toml" "${calls[@]}" >"$tmp/log" 2>&1 ||
  { cat "$tmp/log"; fail "pooling refused good calls"; }
# pooled SIDE FAULT_KEY PAGE_KEY FAULTS PAGES PAGE_MEDIAN: the report of the last
# run ($tmp/log) has each call's fit of SIDE (FAULTS, PAGES: comma-separated ns),
# its reference fault (the fit over the call's CPU factor), and the medians.
pooled() {
  python3 - "$tmp/log" "$@" <<'PY' || fail "unexpected $1 fits: $(cat "$tmp/log")"
import json, sys
log, side, fault_key, page_key, faults, pages, page_median = sys.argv[1:]
r = json.loads(open(log).read().splitlines()[-1])
calls = r["calls"]
assert [c[f"{side}_fault_ns"] for c in calls] == [int(x) for x in faults.split(",")], calls
assert [c[f"faulted_page_{side}_ns"] for c in calls] == [int(x) for x in pages.split(",")], calls
for c in calls:  # the reference value is the fit over the call's CPU factor
    assert abs(c[f"reference_{side}_fault_ns"] - c[f"{side}_fault_ns"] / c["cpu_fault_factor"]) <= 1, c
want = round((calls[0][f"reference_{side}_fault_ns"] + calls[1][f"reference_{side}_fault_ns"]) / 2)
m = r["medians_ns"]
assert m[fault_key] == want and m[page_key] == int(page_median), m
PY
}
pooled read cpu.read_fault_cost cpu.faulted_page_read_cost 16422,19977 292,345 318
python3 -c 'import json,sys; m = json.loads(open(sys.argv[1]).read().splitlines()[-1])["medians_ns"]; assert len(m) == 2, m' "$tmp/log" ||
  fail "without --with-writes more than the read side pooled: $(cat "$tmp/log")"
want=$(python3 -c 'import json,sys; print(json.loads(open(sys.argv[1]).read().splitlines()[-1])["medians_ns"]["cpu.read_fault_cost"])' "$tmp/log")
grep -q "^read_fault_cost = \"${want}ns\" *# " "$tmp/out.toml" || fail "read fault not written with its comment"
grep -q '^faulted_page_read_cost = "318ns"' "$tmp/out.toml" || fail "faulted page read not written"
# Only those two lines differ from the input.
[[ $(diff "$tmp/in.toml" "$tmp/out.toml" | grep -c '^>') == 2 ]] || fail "other lines changed: $(diff "$tmp/in.toml" "$tmp/out.toml")"
# A profile without the faulted-page key gets it in its [cpu] table.
grep -v '^faulted_page_read_cost' "$tmp/in.toml" >"$tmp/nopage.toml"
run "$tmp/nopage.toml" "$umsim" "$probe_trace" "$fault_trace" "$tmp/out2.toml" "${calls[0]}" >"$tmp/log" 2>&1 ||
  { cat "$tmp/log"; fail "a profile without the faulted-page key refused"; }
python3 -c 'import sys, tomllib; c = tomllib.load(open(sys.argv[1], "rb"))["cpu"]; assert c["faulted_page_read_cost"] == "292ns", c' "$tmp/out2.toml" ||
  fail "faulted-page key not added to [cpu]"

# --with-writes: the write fault (over the CPU factor) and the faulted page's
# write are pooled as well, and only those four lines change.
run --with-writes "$tmp/in.toml" "$umsim" "$probe_trace" "$fault_trace" "$tmp/both.toml" "${calls[@]}" >"$tmp/log" 2>&1 ||
  { cat "$tmp/log"; fail "pooling both sides refused good calls"; }
pooled write cpu.fault_cost cpu.faulted_page_write_cost 35732,37808 368,323 346
pooled read cpu.read_fault_cost cpu.faulted_page_read_cost 16422,19977 292,345 318
[[ $(diff "$tmp/in.toml" "$tmp/both.toml" | grep -c '^>') == 4 ]] || fail "with writes, other lines changed: $(diff "$tmp/in.toml" "$tmp/both.toml")"
grep -q '^faulted_page_write_cost = "346ns" *# ' "$tmp/both.toml" || fail "faulted page write not written with its comment"
grep -v '^faulted_page_write_cost' "$tmp/in.toml" >"$tmp/nowritepage.toml"
run --with-writes "$tmp/nowritepage.toml" "$umsim" "$probe_trace" "$fault_trace" "$tmp/out3.toml" "${calls[0]}" >"$tmp/log" 2>&1 ||
  { cat "$tmp/log"; fail "a profile without the faulted-page write key refused"; }
python3 -c 'import sys, tomllib; c = tomllib.load(open(sys.argv[1], "rb"))["cpu"]; assert c["faulted_page_write_cost"] == "368ns", c' "$tmp/out3.toml" ||
  fail "faulted-page write key not added to [cpu]"
rm -f "$tmp/both.toml" "$tmp/out3.toml"

# Bad inputs: each refused with a message naming what is wrong, nothing written.
rm -f "$tmp/out.toml"
refused "a call without a colon" "expected CALIBRATION_DIR:PROBE_DIR" "$tmp/in.toml" "$umsim" "$probe_trace" "$fault_trace" "$tmp/out.toml" "profiles/raw"
refused "a missing folder" "nowhere: no such directory" "$tmp/in.toml" "$umsim" "$probe_trace" "$fault_trace" "$tmp/out.toml" "nowhere:${calls[0]#*:}"
mkdir -p "$tmp/empty"
refused "a calibration without cpu_faults runs" "empty: no cpu_faults.r\*.json" "$tmp/in.toml" "$umsim" "$probe_trace" "$fault_trace" "$tmp/out.toml" "$tmp/empty:${calls[0]#*:}"
refused "a probe folder without runs" "empty: no host probe runs" "$tmp/in.toml" "$umsim" "$probe_trace" "$fault_trace" "$tmp/out.toml" "${calls[0]%%:*}:$tmp/empty"
mkdir -p "$tmp/badprobe" && echo 'not json' >"$tmp/badprobe/r1.json"
refused "a broken probe run" "host_rescale.py on .*badprobe failed" "$tmp/in.toml" "$umsim" "$probe_trace" "$fault_trace" "$tmp/out.toml" "${calls[0]%%:*}:$tmp/badprobe"
grep -v '^read_fault_cost' "$tmp/in.toml" >"$tmp/nokey.toml"
refused "a profile without the read fault" "no cpu.read_fault_cost key" "$tmp/nokey.toml" "$umsim" "$probe_trace" "$fault_trace" "$tmp/out.toml" "${calls[@]}"
grep -v '^fault_cost' "$tmp/in.toml" >"$tmp/nowrite.toml"
refused "a profile without the write fault, with writes" "no cpu.fault_cost key" --with-writes "$tmp/nowrite.toml" "$umsim" "$probe_trace" "$fault_trace" "$tmp/out.toml" "${calls[@]}"
refused "OUT naming an input" "is the input" "$tmp/in.toml" "$umsim" "$probe_trace" "$fault_trace" "$tmp/in.toml" "${calls[@]}"
refused "no calls" "usage:" "$tmp/in.toml" "$umsim" "$probe_trace" "$fault_trace" "$tmp/out.toml"
cmp -s "$profile" "$tmp/in.toml" || fail "the input was changed"
[[ -e $tmp/out.toml ]] && fail "an output was written on error"
echo PASS
