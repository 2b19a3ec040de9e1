#!/usr/bin/env bash
# hip_backend/machine_profile.sh: a profile from one call's calibration alone.
# Usage errors; an output naming an input is refused and the input kept; and a
# full run on session 68's committed calibration gives the committed profile
# with that calibration's directly measured keys and links (but the pooled
# values of the keys that follow the host's per-process mode) and its host part
# (the calibration's host-bound runs as a probe), in a profile that loads,
# with its report; with --probe (or a probe/ beside the calibration), the host
# part from the call's host probe runs instead.
set -uo pipefail
script=$1 umsim=$2 base=$3 session=$4 probe=$5 probe_trace=$6
shift 6
tmp=${TEST_TMPDIR:-$(mktemp -d)}
fail() { echo "FAIL: $*"; exit 1; }
# The script runs its helpers from its repository root: give it a copy of them.
mkdir -p "$tmp/repo/hip_backend" "$tmp/repo/traces/probe"
cp "$script" "$tmp/repo/hip_backend/"
for f in "$@"; do  # its Python helpers, and the probe traces they replay
  if [[ $f == *.umt ]]; then cp "$f" "$tmp/repo/traces/probe/"; else cp "$f" "$tmp/repo/hip_backend/"; fi
done
cp "$probe_trace" "$tmp/repo/traces/probe/"
run() { UMSIM_BIN=$umsim UMSIM_BASE_PROFILE=$base bash "$tmp/repo/hip_backend/machine_profile.sh" "$@"; }

run >"$tmp/out" 2>&1; [[ $? -eq 2 ]] || fail "no arguments: exit code not 2"
grep -q "usage: hip_backend/machine_profile.sh \[--probe PROBE_DIR\] CALIBRATION_DIR OUT.toml" "$tmp/out" || fail "no usage line"
run --probe >"$tmp/out" 2>&1; [[ $? -eq 2 ]] || fail "--probe without a directory: exit code not 2"
run --probe "$tmp/no_such_probe" "$session" "$tmp/p.toml" >"$tmp/out" 2>&1 && fail "missing probe directory accepted"
grep -q "no_such_probe: no such directory" "$tmp/out" || { cat "$tmp/out"; fail "missing probe directory not named"; }
mkdir -p "$tmp/empty"
run "$tmp/empty" "$tmp/p.toml" >"$tmp/out" 2>&1 && fail "empty directory accepted"
grep -q "has no device-side fit" "$tmp/out" || { cat "$tmp/out"; fail "missing fit not named"; }
run "$session" "$tmp/no/such/dir/p.toml" >"$tmp/out" 2>&1 && fail "missing output directory accepted"
grep -q "does not exist" "$tmp/out" || { cat "$tmp/out"; fail "missing output directory not named"; }
cp -r "$session" "$tmp/session"
before=$(md5sum <"$tmp/session/calibrated.toml")
run "$tmp/session" "$tmp/session/calibrated.toml" >"$tmp/out" 2>&1 && fail "output naming the input accepted"
grep -q "is the input" "$tmp/out" || { cat "$tmp/out"; fail "refusal not explained"; }
[[ $(md5sum <"$tmp/session/calibrated.toml") == "$before" ]] || fail "the input was changed"
UMSIM_BIN=$umsim UMSIM_BASE_PROFILE=$tmp/none.toml bash "$tmp/repo/hip_backend/machine_profile.sh" "$session" "$tmp/p.toml" \
  >"$tmp/out" 2>&1 && fail "missing base profile accepted"
grep -q "no base profile" "$tmp/out" || { cat "$tmp/out"; fail "missing base profile not named"; }

run "$session" "$tmp/machine.toml" >"$tmp/out" 2>&1 || { cat "$tmp/out"; fail "full run failed"; }
grep -q "16 keys from the calibration; host (calibration): GPU faults x0.674, CPU faults x0.584" "$tmp/out" || fail "summary: $(cat "$tmp/out")"
[[ -f $tmp/machine.toml && -f $tmp/machine.report.json && ! -e $tmp/machine.toml.partial ]] || fail "outputs missing"
"$umsim" profiles "$tmp/machine.toml" >/dev/null || fail "the profile does not load"
python3 - "$tmp/machine.toml" "$base" "$tmp/machine.report.json" <<'PY' || fail "profile values"
import json, sys, tomllib
machine, base = (tomllib.load(open(path, "rb")) for path in sys.argv[1:3])
report = json.load(open(sys.argv[3]))
want = {  # session 68's calibration (its calibrated.toml), not the committed profile's
    ("link", "host_to_gpu", "peak_gbps"): 52.0, ("prefetch", "cold_call_cost"): "100264ns",
    # fit_remote_requests.py on its sparse pinned runs
    ("remote", "request_cost"): "1.398ns", ("remote", "access_cost"): "0.123ns",
    # fit_rmw_cost.py on its launch_after_memset runs
    ("gpu", "rmw_cost"): "4.667ps",
    # its whole reads of host memory (calibration.json's "remote" runs), not its
    # calibrated.toml's sub-page fit (49.69)
    ("remote", "gpu_to_host_gbps"): 51.36,
}
for path, value in want.items():
    got = machine
    for part in path:
        got = got[part]
    if got != value:
        sys.exit(f"{'.'.join(path)} = {got!r}, want {value!r}")
# The committed structure stays: keys neither the calibration nor the host part sets.
for section, key in (("gpu", "fill_lanes"), ("prefetch", "to_cpu_va_block_cost"), ("host", "pageable_to_host_call_cost")):
    if machine[section][key] != base[section][key]:
        sys.exit(f"{section}.{key} changed: {machine[section][key]!r} against {base[section][key]!r}")
# Keys that follow the host's per-process mode keep the pooled values (session
# 68's calibration: pageable uploads 9.0 GB/s, moves to the CPU 18.5 GB/s).
for path in (("host", "pageable_copy_gbps"), ("host", "pageable_to_host_copy_gbps"), ("link", "gpu_to_host", "peak_gbps"),
             ("link", "gpu_to_host", "latency")):
    got, pooled = machine, base
    for part in path:
        got, pooled = got[part], pooled[part]
    if got != pooled:
        sys.exit(f"{'.'.join(path)} = {got!r}: a host-mode key taken from the calibration (pooled {pooled!r})")
# The host part scaled from its runs (the committed 1222 ns page cost x0.674).
if machine["faults"]["page_cost"] != "824ns":
    sys.exit(f"faults.page_cost = {machine['faults']['page_cost']!r}, want '824ns'")
if (report["keys_from_calibration"]["link.host_to_gpu.peak_gbps"] != "52" or "host.pageable_copy_gbps" in report["keys_from_calibration"]
        or report["host"]["gpu_fault_factor"] != 0.674 or report["host_from"] != "calibration"):
    sys.exit(f"report: {report}")
PY
# The profile names the values that are this call's; their comments are the base's.
grep -q "^# Values from this call's calibration: .*gpu.rmw_cost, host.copy_call_cost" "$tmp/machine.toml" \
  || fail "the profile does not name the calibration's keys"
# [calibrated_on] names session 68's machine (its machine.txt), not the base profile's.
grep -q '^date = "2026-12-04T14:41Z"' "$tmp/machine.toml" || fail "[calibrated_on] is not session 68's machine"

# With the call's host probe: the same calibration keys, the host part from the
# probe's three runs (session 68's CPU first touch x0.834, not the single
# calibration run's x0.584). An empty probe directory is refused.
mkdir -p "$tmp/empty_probe"
run --probe "$tmp/empty_probe" "$session" "$tmp/p.toml" >"$tmp/out" 2>&1 && fail "empty probe directory accepted"
grep -q "has no host probe runs" "$tmp/out" || { cat "$tmp/out"; fail "empty probe directory not explained"; }
[[ ! -e $tmp/p.toml ]] || fail "an output was written on error"
run --probe "$probe" "$session" "$tmp/probed.toml" >"$tmp/out" 2>&1 || { cat "$tmp/out"; fail "run with --probe failed"; }
grep -q "16 keys from the calibration; host (probe): GPU faults x0.785, CPU faults x0.834" "$tmp/out" || fail "probe summary: $(cat "$tmp/out")"
grep -q "from this call's host probe (3 runs)" "$tmp/probed.toml" || fail "the profile does not name the probe as its host part's source"
"$umsim" profiles "$tmp/probed.toml" >/dev/null || fail "the probed profile does not load"
# The calibration's keys are the same either way; only the host part differs.
python3 - "$tmp/machine.report.json" "$tmp/probed.report.json" <<'PY' || fail "probe report"
import json, sys
calibration, probed = (json.load(open(path)) for path in sys.argv[1:])
if probed["keys_from_calibration"] != calibration["keys_from_calibration"] or probed["host_from"] != "probe":
    sys.exit(f"report: {probed}")
PY
# An unpacked results directory's own probe/ is taken without --probe.
cp -r "$session" "$tmp/unpacked" && cp -r "$probe" "$tmp/unpacked/probe"
run "$tmp/unpacked" "$tmp/auto.toml" >"$tmp/out" 2>&1 || { cat "$tmp/out"; fail "run with probe/ failed"; }
grep -q "host (probe)" "$tmp/out" || fail "probe/ beside the calibration not taken: $(cat "$tmp/out")"
cmp -s "$tmp/auto.toml" "$tmp/probed.toml" || fail "probe/ and --probe give different profiles"
echo "PASS"
