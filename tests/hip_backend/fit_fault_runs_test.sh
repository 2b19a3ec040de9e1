#!/usr/bin/env bash
# hip_backend/fit_fault_runs.py on session 48's fault-runs diagnostic and host
# probe (a two-point grid: run_cost 0 or 3 us at va_block_cost 2 us; 3 wins),
# and its bad inputs.
set -uo pipefail
fit=$1 tune=$2 rescale=$3 profile=$4 umsim=$5 probe=$6 diag_runs=$7
diag=hip_backend/results/h200-pcie5/diag_fault_runs
probes=(hip_backend/results/h200-pcie5/session48/probe/*.json)
source "$(dirname "$0")/fit_test_lib.sh"
fit_setup "$fit" "$tune" "$rescale" "$diag_runs"

# The committed profile's [faults] as they were before the fit: no run_cost.
grep -v '^run_cost' "$profile" |
  sed -e 's/^va_block_cost = "[^"]*"\( *#.*per VA block serviced\)/va_block_cost = "20us"\1/' \
      -e 's/^page_cost = "[^"]*"/page_cost = "800ns"/' -e 's/^migrated_page_cost = "[^"]*"/migrated_page_cost = "200ns"/' >"$tmp/in.toml"
run --va-us 2 --run-us 0,3 "$tmp/in.toml" "$umsim" "$probe" "$diag" "$tmp/out.toml" "${probes[@]}" >"$tmp/log" 2>&1 ||
  { cat "$tmp/log"; fail "fit refused good runs"; }
python3 - "$tmp/log" <<'PY' || fail "unexpected fit: $(cat "$tmp/log")"
import json, sys
r = json.loads(open(sys.argv[1]).read().strip().splitlines()[-1])
assert (r["va_block_cost_us"], r["run_cost_us"]) == (2, 3), r
assert r["mean_abs_error"] < 0.12, r                      # 0.28 with the keys as they were
assert abs(r["errors"]["f1_stride_128KiB"]) < 0.1, r      # 16 separate regions per block
target, check = r["probe_bulk_ns"]
assert abs(check - target) <= 1e-3 * target, r            # the probe's bulk faults kept
assert 1.3 < r["factor"] < 1.8, r
PY
grep -q '^run_cost = "[0-9]*ns"' "$tmp/out.toml" || fail "run_cost not added"
grep -q '^va_block_cost = "[0-9]*ns" *# per VA block serviced' "$tmp/out.toml" || fail "va_block_cost's comment lost"
"$umsim" profiles "$tmp/out.toml" >/dev/null || fail "the written profile does not load"

# Bad inputs: each refused with a message, nothing written, the input unchanged.
rm -f "$tmp/out.toml"
cp "$tmp/in.toml" "$tmp/in.copy"
mkdir -p "$tmp/empty"
refused "a folder without traces" "empty: no traces/\*.umt" "$tmp/in.toml" "$umsim" "$probe" "$tmp/empty" "$tmp/out.toml" "${probes[@]}"
mkdir -p "$tmp/broken/traces"
cp "$diag/traces/f2_stride_512KiB.umt" "$tmp/broken/traces/"
echo 'not json' >"$tmp/broken/f2_stride_512KiB.r1.json"
refused "a broken run" "f2_stride_512KiB.r1.json: not a replay result with kernel times" "$tmp/in.toml" "$umsim" "$probe" "$tmp/broken" "$tmp/out.toml" "${probes[@]}"
rm "$tmp/broken/f2_stride_512KiB.r1.json"
refused "a trace without runs" "no runs of f2_stride_512KiB" "$tmp/in.toml" "$umsim" "$probe" "$tmp/broken" "$tmp/out.toml" "${probes[@]}"
refused "a bad grid" "expected comma-separated microseconds" --va-us 2,x "$tmp/in.toml" "$umsim" "$probe" "$diag" "$tmp/out.toml" "${probes[@]}"
grep -v '^\[faults\]' "$tmp/in.toml" >"$tmp/nofaults.toml"
refused "a profile without [faults]" "no \[faults\] table" --va-us 2 --run-us 3 "$tmp/nofaults.toml" "$umsim" "$probe" "$diag" "$tmp/out.toml" "${probes[@]}"
refused "OUT naming an input" "names an input" "$tmp/in.toml" "$umsim" "$probe" "$diag" "$tmp/in.toml" "${probes[@]}"
cmp -s "$tmp/in.toml" "$tmp/in.copy" || fail "the input was changed"
[[ -e $tmp/out.toml ]] && fail "an output was written on error"
refused "too few arguments" "usage:" "$tmp/in.toml"
echo PASS
