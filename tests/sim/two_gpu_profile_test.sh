#!/usr/bin/env bash
# profiles/h200x2-nvlink.toml is the calibrated single-GPU profile with two GPUs,
# the two-GPU calibration's GPU-to-GPU values and the host part re-measured
# from that calibration: exactly what profiles/derive_h200x2.sh writes (a
# recalibration that forgets to re-derive it fails here). Without a fit
# derive_h200x2.py falls back to published NVLink numbers.
set -uo pipefail
derive=$1 single=$2 fit=$3 two=$4 wrapper=$5 umsim=$6
tmp=${TEST_TMPDIR:-$(mktemp -d)}
python3 "$derive" "$single" "$fit" >"$tmp/derived.toml" || { echo "FAIL: derive_h200x2.py failed"; exit 1; }
"$wrapper" "$umsim" "$tmp/final.toml" || { echo "FAIL: derive_h200x2.sh failed"; exit 1; }
diff -u "$two" "$tmp/final.toml" ||
  { echo "FAIL: $two is stale; run: profiles/derive_h200x2.sh bazel-bin/tools/umsim"; exit 1; }
grep -q "^# Host part re-measured by hip_backend/host_rescale.py from the two-GPU machine's calibration" "$two" || { echo "FAIL: no note of the host part"; exit 1; }
grep -q '^count = 2$' "$tmp/derived.toml" || { echo "FAIL: no 'count = 2'"; exit 1; }
grep -q '^peer_va_block_cost = ' "$tmp/derived.toml" || { echo "FAIL: no prefetch.peer_va_block_cost"; exit 1; }
python3 "$derive" "$single" >"$tmp/published.toml" || { echo "FAIL: published mode"; exit 1; }
grep -q '^peak_gbps = 450.0$' "$tmp/published.toml" || { echo "FAIL: no published NVLink peak"; exit 1; }
printf 'cpu.fault_cost = "1ns"\n' >"$tmp/single_gpu_fit.txt"
python3 "$derive" "$single" "$tmp/single_gpu_fit.txt" >"$tmp/out" 2>&1 && { echo "FAIL: a fit without peer values was accepted"; exit 1; }
grep -q "no two-GPU values" "$tmp/out" || { echo "FAIL: unclear error: $(cat "$tmp/out")"; exit 1; }
python3 "$derive" >/dev/null 2>&1 && { echo "FAIL: no usage error"; exit 1; }
"$wrapper" >"$tmp/out" 2>&1 && { echo "FAIL: derive_h200x2.sh without arguments exits 0"; exit 1; }
grep -q "usage: profiles/derive_h200x2.sh UMSIM_BINARY" "$tmp/out" || { echo "FAIL: no usage line: $(cat "$tmp/out")"; exit 1; }
"$wrapper" "$tmp/no-such-umsim" "$tmp/x.toml" >"$tmp/out" 2>&1 && { echo "FAIL: a missing umsim accepted"; exit 1; }
grep -q "is not an executable umsim binary" "$tmp/out" || { echo "FAIL: unclear error: $(cat "$tmp/out")"; exit 1; }
[[ -e $tmp/x.toml ]] && { echo "FAIL: an output written after an error"; exit 1; }
echo PASS
