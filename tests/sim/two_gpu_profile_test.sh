#!/usr/bin/env bash
# profiles/h200x2-nvlink.toml is the calibrated single-GPU profile with two GPUs
# and NVLink: exactly what profiles/derive_h200x2.py writes from h200-pcie5.toml
# (a recalibration that forgets to re-derive it fails here).
set -uo pipefail
derive=$1 single=$2 two=$3
tmp=${TEST_TMPDIR:-$(mktemp -d)}
python3 "$derive" "$single" >"$tmp/derived.toml" || { echo "FAIL: derive_h200x2.py failed"; exit 1; }
diff -u "$two" "$tmp/derived.toml" || { echo "FAIL: $two is stale; run: python3 profiles/derive_h200x2.py profiles/h200-pcie5.toml > profiles/h200x2-nvlink.toml"; exit 1; }
grep -q '^count = 2$' "$tmp/derived.toml" || { echo "FAIL: no 'count = 2'"; exit 1; }
grep -q '^peak_gbps = 450.0$' "$tmp/derived.toml" || { echo "FAIL: no NVLink peak"; exit 1; }
python3 "$derive" >/dev/null 2>&1 && { echo "FAIL: no usage error"; exit 1; }
echo PASS
