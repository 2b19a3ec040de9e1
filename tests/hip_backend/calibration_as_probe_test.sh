#!/usr/bin/env bash
# hip_backend/calibration_as_probe.py: the two-GPU call's calibration (no probe
# ran there) turned into a probe trace and its hardware result, which
# host_rescale.py accepts; and its bad inputs.
set -uo pipefail
convert=$1 rescale=$2 tune=$3 umsim=$4 profile=$5 calibration=$6
tmp=${TEST_TMPDIR:-$(mktemp -d)}
fail() { echo "FAIL: $*"; exit 1; }
mkdir -p "$tmp/bin" "$tmp/out"
cp "$rescale" "$tune" "$tmp/bin/"  # host_rescale.py imports tune_profile.py from its own folder

python3 "$convert" >"$tmp/log" 2>&1 && fail "no arguments: exit 0"
grep -q "usage: calibration_as_probe.py" "$tmp/log" || fail "no usage line: $(cat "$tmp/log")"

python3 "$convert" "$calibration" "$tmp/out" >"$tmp/log" 2>&1 || { cat "$tmp/log"; fail "the calibration refused"; }
# The calibration's CPU first touch (256 MiB: 92.65 ms) and its three 1 GiB sequential fault kernels.
grep -qF '"first_touch_bytes": 268435456, "first_touch_ms": 92.6499, "bulk_ms": [100.782012, 140.558273, 102.032226]' \
  "$tmp/log" || fail "summary: $(cat "$tmp/log")"
"$umsim" trace check "$tmp/out/probe.umt" >"$tmp/log" 2>&1 || { cat "$tmp/log"; fail "the probe trace does not check"; }
[[ $(grep -c "^kernel touch gpu=0" "$tmp/out/probe.umt") -eq 3 ]] || fail "not three bulk kernels"
grep -q "^cpu w T len=262144KiB" "$tmp/out/probe.umt" || fail "first touch of another size"
ls "$tmp/out"/*.partial >/dev/null 2>&1 && fail "temporary files left"

# host_rescale.py takes it as a probe: the median kernel (102.03 ms) and the first touch.
python3 "$tmp/bin/host_rescale.py" "$profile" "$umsim" "$tmp/out/probe.umt" "$tmp/p.toml" "$tmp/out/probe.json" \
  >"$tmp/log" 2>&1 || { cat "$tmp/log"; fail "host_rescale.py refused the converted probe"; }
grep -qF '"hardware_kernel_ms": 102.032' "$tmp/log" || fail "bulk kernels: $(cat "$tmp/log")"
grep -qF '"hardware_first_touch_ms": 92.65' "$tmp/log" || fail "first touch: $(cat "$tmp/log")"
python3 - "$tmp/log" <<'PY' || fail "factors: $(cat "$tmp/log")"
import json, sys
r = json.loads(open(sys.argv[1]).read())
# A faster host than the profile's (its 1 GiB kernel 167 ms, first touch 131 ms in the simulator).
assert 0.4 < r["gpu_fault_factor"] < 0.7 and 0.4 < r["cpu_fault_factor"] < 0.7, r
PY

# Bad inputs: clear messages, non-zero exits, nothing written.
echo '{"faults": []}' >"$tmp/bad.json"
python3 "$convert" "$tmp/bad.json" "$tmp/out" >"$tmp/log" 2>&1 && fail "a file without cpu runs: exit 0"
grep -q "not a calibration" "$tmp/log" || fail "message: $(cat "$tmp/log")"
python3 - "$calibration" "$tmp/quick.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
c["faults"] = [r for r in c["faults"] if r["bytes"] < 1 << 30]  # a quick calibration: no 1 GiB runs
json.dump(c, open(sys.argv[2], "w"))
PY
python3 "$convert" "$tmp/quick.json" "$tmp/out" >"$tmp/log" 2>&1 && fail "a quick calibration: exit 0"
grep -q "1 GiB sequential fault run" "$tmp/log" || fail "message: $(cat "$tmp/log")"
echo 'not json' >"$tmp/garbage.json"
python3 "$convert" "$tmp/garbage.json" "$tmp/out" >"$tmp/log" 2>&1 && fail "garbage: exit 0"
grep -q "not a readable JSON file" "$tmp/log" || fail "message: $(cat "$tmp/log")"
python3 "$convert" "$calibration" "$tmp/nowhere" >"$tmp/log" 2>&1 && fail "a missing OUT_DIR: exit 0"
grep -q "no such directory" "$tmp/log" || fail "message: $(cat "$tmp/log")"
echo "PASS"
