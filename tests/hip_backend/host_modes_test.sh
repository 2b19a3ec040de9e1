#!/usr/bin/env bash
# hip_backend/host_modes.py on hand-made host_mode.umt results: per part and
# group the median, the spread (standard deviation of the log) and the range,
# and its bad inputs.
set -uo pipefail
tmp=${TEST_TMPDIR:-$(mktemp -d)}
fail() { echo "FAIL: $*"; exit 1; }
mkdir -p "$tmp/bin"
cp "$@" "$tmp/bin/"  # host_modes.py imports process_profile.py (and what it imports) from its own folder
run() { python3 "$tmp/bin/host_modes.py" "$@"; }

# result FILE KERNEL_MS FIRST_TOUCH_MS: three bulk kernels ("touch"), 16 isolated
# faults of 40 us, the first-touch phase ("main") and the ReadMostly phases.
result() {
  python3 - "$@" <<'PY'
import json, sys
path, kernel, touch = sys.argv[1], float(sys.argv[2]) * 1e6, float(sys.argv[3]) * 1e6
c = lambda t: {"counters": {"time_ns": t}}  # noqa: E731
kernels = [dict(name="touch", **c(kernel)) for _ in range(3)] + [dict(name="isolated", **c(40000)) for _ in range(16)]
phases = [dict(name="main", **c(touch)), dict(name="collapse", **c(30e6)), dict(name="reprefetch", **c(2e6))]
json.dump({"kernels": kernels, "phases": phases}, open(path, "w"))
PY
}
d=$tmp/call/host_modes
mkdir -p "$d"
# Randomised: kernels 10 / 20 / 40 ms (log spread ln 2 = 69.3%), first touch 50 ms each.
# Fixed: kernels 20 / 20 / 20 ms (0.0%), first touch 40 / 50 / 60 ms.
result "$d/random.1.json" 10 50; result "$d/fixed.1.json" 20 40
result "$d/random.2.json" 20 50; result "$d/fixed.2.json" 20 50
result "$d/random.3.json" 40 50; result "$d/fixed.3.json" 20 60
run "$tmp/call" >"$tmp/out" 2>&1 || { cat "$tmp/out"; fail "good results refused"; }
grep -q "Processes: 3 with the address space randomised, 3 with it fixed" "$tmp/out" || fail "counts: $(cat "$tmp/out")"
grep -qF "| kernel | 20.000 ms | 20.000 ms | 69.3% | 0.0% | 10.000 ms - 40.000 ms | 20.000 ms - 20.000 ms |" "$tmp/out" ||
  fail "kernel row: $(cat "$tmp/out")"
# ln(40/50), 0, ln(60/50): standard deviation 20.3%.
grep -qF "| first_touch | 50.000 ms | 50.000 ms | 0.0% | 20.3% |" "$tmp/out" || fail "first-touch row: $(cat "$tmp/out")"
grep -qF "| isolated | 0.040 ms | 0.040 ms | 0.0% | 0.0% |" "$tmp/out" || fail "isolated row: $(cat "$tmp/out")"

# Each process's times, so that a mode shared by parts shows.
grep -qF "| randomised 3 | 40.000 ms | 50.000 ms | 0.040 ms | 30.000 ms | 2.000 ms |" "$tmp/out" ||
  fail "process row: $(cat "$tmp/out")"
grep -qF "| fixed 1 | 20.000 ms | 40.000 ms |" "$tmp/out" || fail "fixed process row: $(cat "$tmp/out")"

# --cpus: the same probe in processes bound to the lower / upper half of the CPUs.
c=$tmp/call/host_cpus
mkdir -p "$c"
result "$c/low.1.json" 10 50; result "$c/high.1.json" 20 40
result "$c/low.2.json" 10 50; result "$c/high.2.json" 20 60
run --cpus "$tmp/call" >"$tmp/out" 2>&1 || { cat "$tmp/out"; fail "good CPU results refused"; }
grep -q "Processes: 2 bound to the lower half of the CPUs, 2 to the upper half" "$tmp/out" || fail "CPU counts: $(cat "$tmp/out")"
grep -qF "| kernel | 10.000 ms | 20.000 ms | 0.0% | 0.0% | 10.000 ms - 10.000 ms | 20.000 ms - 20.000 ms |" "$tmp/out" ||
  fail "CPU kernel row: $(cat "$tmp/out")"
grep -qF "| upper CPUs 2 | 20.000 ms | 60.000 ms |" "$tmp/out" || fail "CPU process row: $(cat "$tmp/out")"
echo '{}' >"$c/random.1.json"
run --cpus "$tmp/call" >"$tmp/out" 2>&1 && fail "a host_modes name among the CPU results accepted"
grep -q "random.1.json: not a host_cpus result (expected low.N.json or high.N.json)" "$tmp/out" ||
  fail "stray CPU file not named: $(cat "$tmp/out")"
run --cpus "$tmp/one" >"$tmp/out" 2>&1 && fail "a folder without host_cpus/ accepted"
grep -q "no host_cpus/ folder (a call run with .device_run.sh host_cpus.)" "$tmp/out" ||
  fail "missing CPU folder not explained: $(cat "$tmp/out")"

# Bad inputs: a clear error and a non-zero exit each.
run "$tmp" >"$tmp/out" 2>&1 && fail "a folder without host_modes/ accepted"
grep -q "no host_modes/ folder" "$tmp/out" || fail "missing folder not explained: $(cat "$tmp/out")"
mkdir -p "$tmp/one/host_modes"; result "$tmp/one/host_modes/random.1.json" 10 50; result "$tmp/one/host_modes/fixed.1.json" 10 50
result "$tmp/one/host_modes/random.2.json" 10 50
run "$tmp/one" >"$tmp/out" 2>&1 && fail "one fixed result accepted"
grep -q "1 'fixed' results; at least two" "$tmp/out" || fail "too few not explained: $(cat "$tmp/out")"
echo '{"kernels": [' >"$d/random.4.json"
run "$tmp/call" >"$tmp/out" 2>&1 && fail "a broken JSON file accepted"
grep -q "random.4.json: not a readable JSON file" "$tmp/out" || fail "broken file not named: $(cat "$tmp/out")"
echo '[]' >"$d/random.4.json"
run "$tmp/call" >"$tmp/out" 2>&1 && fail "a non-result accepted"
grep -q "random.4.json: not a replay result" "$tmp/out" || fail "non-result not named: $(cat "$tmp/out")"
rm "$d/random.4.json"; echo '{}' >"$d/other.json"
run "$tmp/call" >"$tmp/out" 2>&1 && fail "a stray file accepted"
grep -q "other.json: not a host_modes result" "$tmp/out" || fail "stray file not named: $(cat "$tmp/out")"
rm "$d/other.json"; result "$d/fixed.4.json" 0 50
run "$tmp/call" >"$tmp/out" 2>&1 && fail "a zero time accepted"
grep -q "fixed.4.json: a kernel or a timed phase has no time" "$tmp/out" || fail "zero time not named: $(cat "$tmp/out")"
rm "$d/fixed.4.json"; echo '{"kernels": ["touch"], "phases": []}' >"$d/fixed.4.json"
run "$tmp/call" >"$tmp/out" 2>&1 && fail "a kernel that is not an object accepted"
grep -q "fixed.4.json: a kernel or phase without counters.time_ns" "$tmp/out" ||
  fail "bad kernel not named: $(cat "$tmp/out")"
run >"$tmp/out" 2>&1 && fail "no argument accepted"
grep -q "usage" "$tmp/out" || fail "usage not printed: $(cat "$tmp/out")"
echo "host_modes_test: all cases passed"
