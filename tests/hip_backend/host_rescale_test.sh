#!/usr/bin/env bash
# hip_backend/host_rescale.py: the host probe's two factors on session 18's
# committed probe runs (docs/validation.md, "The host probe"), the written
# profile, and its bad inputs.
set -uo pipefail
rescale=$1 tune=$2 umsim=$3 trace=$4 profile=$5 other=$6
probes=$(dirname "$other")/probe
tmp=${TEST_TMPDIR:-$(mktemp -d)}
fail() { echo "FAIL: $*"; exit 1; }
mkdir -p "$tmp/bin"
cp "$rescale" "$tune" "$tmp/bin/"  # host_rescale.py imports tune_profile.py from its own folder
run() { python3 "$tmp/bin/host_rescale.py" "$@"; }

run >"$tmp/out" 2>&1 && fail "no arguments: exit 0"
grep -q "usage: host_rescale.py" "$tmp/out" || fail "no usage line: $(cat "$tmp/out")"

# Session 18: probe kernels 164.15 ms against the profile's 167.46 ms (each starts on an idle GPU, its fault
# path cold after the CPU's 1 GiB first touch), first
# touch 593.08 ms against 522.19 ms (medians of three runs each).
run "$profile" "$umsim" "$trace" "$tmp/p18.toml" "$probes"/host_fault_speed.r*.json >"$tmp/out" 2>&1 ||
  { cat "$tmp/out"; fail "session 18's probe runs refused"; }
grep -qF '"hardware_kernel_ms": 164.15, "profile_kernel_ms": 167.383, "gpu_fault_factor": 0.975' "$tmp/out" ||
  fail "GPU fault factor: $(cat "$tmp/out")"
grep -qF '"hardware_first_touch_ms": 593.082, "profile_first_touch_ms": 522.191, "cpu_fault_factor": 1.206' "$tmp/out" ||
  fail "CPU fault factor: $(cat "$tmp/out")"
"$umsim" profiles "$tmp/p18.toml" >/dev/null || fail "the written profile does not load"
grep -q '^va_block_cost = "2979ns"' "$tmp/p18.toml" || fail "faults.va_block_cost not 0.975 x 3055 ns"
grep -q '^run_cost = "4467ns"' "$tmp/p18.toml" || fail "faults.run_cost not 0.975 x 4582 ns"
grep -q '^first_touch_cost = "1585ns"' "$tmp/p18.toml" || fail "cpu.first_touch_cost not 1.206 x 1314 ns"
grep -q '^page_access_cost = "678ns"' "$tmp/p18.toml" || fail "cpu.page_access_cost (memory speed) changed"
grep -qxF "$(grep '^access_gbps = ' "$profile")" "$tmp/p18.toml" || fail "a GPU key changed"
[[ $(grep -c "^# Host part re-measured" "$tmp/p18.toml") -eq 1 ]] || fail "no note of the rescaling"

# Rescaling the rescaled profile on the same runs moves it only by rounding (whole
# nanoseconds, three-digit factors) and keeps one note.
run "$tmp/p18.toml" "$umsim" "$trace" "$tmp/again.toml" "$probes"/host_fault_speed.r*.json >"$tmp/out" 2>&1 ||
  { cat "$tmp/out"; fail "rescaling again failed"; }
grep -qE '"gpu_fault_factor": (0\.99[5-9]|1\.0|1\.00[0-5]),' "$tmp/out" || fail "second rescaling moved the GPU keys: $(cat "$tmp/out")"
[[ $(grep -c "^# Host part re-measured" "$tmp/again.toml") -eq 1 ]] || fail "notes pile up"

# A probe with isolated faults (the probe trace since session 22): the
# wake-up cost is set to what they take beyond the scaled service, fitted in
# turn with the bulk factor. Session 18's runs with 16 isolated kernels of 60 us
# added (the profile gives 25.8 us and has no wake-up).
with_kernels() {  # NAME COUNT NS PREFIX: session 18's probe runs with COUNT kernels NAME of NS each, as $tmp/PREFIX_*.json
  for r in "$probes"/host_fault_speed.r*.json; do
    python3 - "$r" "$tmp/$4_$(basename "$r")" "$1" "$2" "$3" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
r["kernels"] += [{"name": sys.argv[3], "gpu": 0, "counters": {"time_ns": int(sys.argv[5])}}] * int(sys.argv[4])
json.dump(r, open(sys.argv[2], "w"))
PY
  done
}
with_kernels isolated 16 60000 iso
run "$profile" "$umsim" "$trace" "$tmp/iso.toml" "$tmp"/iso_host_fault_speed.r*.json >"$tmp/out" 2>&1 ||
  { cat "$tmp/out"; fail "probe runs with isolated faults refused"; }
python3 - "$tmp/out" "$tmp/iso.toml" <<'PY' || fail "isolated-fault wake-up: $(cat "$tmp/out")"
import json, re, sys
r = json.loads(open(sys.argv[1]).read())
text = open(sys.argv[2]).read()
wakeup = int(re.search(r'^wakeup_cost = "(\d+)ns"', text, re.M).group(1))
block = int(re.search(r'^va_block_cost = "(\d+)ns"', text, re.M).group(1))
assert r["hardware_isolated_ms"] == 0.06 and 33000 <= r["wakeup_ns"] <= 36000, r
assert wakeup == r["wakeup_ns"] and block == round(3055 * r["gpu_fault_factor"]), (wakeup, block)
assert 0.97 <= r["gpu_fault_factor"] <= 0.977, r  # the bulk kernels pay the wake-up once too
PY
grep -q "# the isolated faults took 0.060 ms" "$tmp/iso.toml" || fail "no note of the isolated faults"
# Isolated faults quicker than the rescaled service alone (session 23's probe
# against a profile with slow fault costs): the wake-up is 0, said in the note,
# not a refusal. The same runs with 20 us isolated kernels (the profile: 25.8 us).
with_kernels isolated 16 20000 quick
run "$profile" "$umsim" "$trace" "$tmp/quick.toml" "$tmp"/quick_host_fault_speed.r*.json >"$tmp/out" 2>&1 ||
  { cat "$tmp/out"; fail "isolated faults quicker than the service refused"; }
grep -q '"wakeup_ns": 0.0' "$tmp/out" || fail "quick isolated faults: wake-up not 0: $(cat "$tmp/out")"
grep -q '^wakeup_cost = "0ns"' "$tmp/quick.toml" || fail "quick isolated faults: profile wake-up not 0"
grep -q "wakeup_cost = 0 ns (the rescaled service alone takes longer)" "$tmp/quick.toml" || fail "quick isolated faults: no note"
echo '{"kernels": [{"name": "isolated", "counters": {"time_ns": 1}}], "phases": []}' >"$tmp/few.json"
run "$profile" "$umsim" "$trace" "$tmp/keep.toml" "$tmp/few.json" >"$tmp/out" 2>&1 && fail "a partial probe accepted"
grep -q "0 'touch' and 1 'isolated' kernels" "$tmp/out" || fail "partial probe not explained: $(cat "$tmp/out")"

# The probe's ReadMostly part (since session 53): a CPU write collapsing 64
# MiB of read duplicates and a prefetch duplicating it again, each scaling
# its own keys (the collapse no longer with the CPU fault keys). Session 18's
# runs with the two phases added: collapse 200 ms (profile 159.875 ms),
# reprefetch 6 ms (profile 4.862 ms).
with_read_mostly() {  # COLLAPSE_NS REPREFETCH_NS PREFIX
  for r in "$probes"/host_fault_speed.r*.json; do
    python3 - "$r" "$tmp/$3_$(basename "$r")" "$1" "$2" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
r["phases"] += [{"name": n, "counters": {"time_ns": int(t)}} for n, t in
                (("collapse", sys.argv[3]), ("reprefetch", sys.argv[4])) if t != "-"]
json.dump(r, open(sys.argv[2], "w"))
PY
  done
}
with_read_mostly 200000000 6000000 rm
run "$profile" "$umsim" "$trace" "$tmp/rm.toml" "$tmp"/rm_host_fault_speed.r*.json >"$tmp/out" 2>&1 ||
  { cat "$tmp/out"; fail "probe runs with the ReadMostly phases refused"; }
python3 - "$tmp/out" "$tmp/rm.toml" "$profile" <<'PY' || fail "ReadMostly factors: $(cat "$tmp/out")"
import json, re, sys
r = json.loads(open(sys.argv[1]).read())
text, base = open(sys.argv[2]).read(), open(sys.argv[3]).read()
def ns(t, key):
    return int(re.search(r'^' + key + r' = "(\d+)ns"', t, re.M).group(1))
assert r["hardware_collapse_ms"] == 200.0 and r["hardware_reprefetch_ms"] == 6.0, r
assert 1.25 <= r["collapse_factor"] <= 1.29 and 1.21 <= r["revoke_factor"] <= 1.27, r
assert r["cpu_fault_factor"] == 1.206 and r["gpu_fault_factor"] == 0.975, r  # the other groups as before
assert ns(text, "collapse_fault_cost") == round(ns(base, "collapse_fault_cost") * r["collapse_factor"])
assert ns(text, "revoke_cpu_write_page_cost") == round(ns(base, "revoke_cpu_write_page_cost") * r["revoke_factor"])
prefetch = lambda t: t[t.index("[prefetch]"):]
assert ns(prefetch(text), "duplicate_va_block_cost") == round(ns(prefetch(base), "duplicate_va_block_cost") * r["revoke_factor"])
PY
grep -q "# the CPU write collapsing read duplicates took 200.000 ms" "$tmp/rm.toml" || fail "no note of the collapse"
grep -q "# the prefetch duplicating the collapsed range again took 6.000 ms" "$tmp/rm.toml" || fail "no note of the reprefetch"
with_read_mostly 200000000 - half
run "$profile" "$umsim" "$trace" "$tmp/keep.toml" "$tmp"/half_host_fault_speed.r1.json >"$tmp/out" 2>&1 &&
  fail "a collapse phase without its reprefetch accepted"
grep -q "1 'collapse' and 0 'reprefetch' phases" "$tmp/out" || fail "half ReadMostly part not explained: $(cat "$tmp/out")"

# The probe's read of pinned host memory (since session 105): it scales
# remote.gpu_to_host_gbps by a factor (the kernel takes 1.342 ms with the
# profile's 51.32 GB/s; 2 ms on the hardware, a host whose GPU reads host
# memory slowly, gives about two thirds of it) and remote.request_cost by its
# inverse square, and the stores' bandwidth stays; a profile without one gets
# the reads' value first.
with_kernels remote_read 1 2000000 remote
run "$profile" "$umsim" "$trace" "$tmp/remote.toml" "$tmp"/remote_host_fault_speed.r*.json >"$tmp/out" 2>&1 ||
  { cat "$tmp/out"; fail "probe runs with the remote read refused"; }
python3 - "$tmp/out" "$tmp/remote.toml" <<'PY' || fail "remote read factor: $(cat "$tmp/out")"
import json, re, sys
r = json.loads(open(sys.argv[1]).read())
text = open(sys.argv[2]).read()
assert r["hardware_remote_read_ms"] == 2.0 and r["profile_remote_read_ms"] == 1.342, r
assert 0.66 <= r["remote_read_factor"] <= 0.68, r
assert r["cpu_fault_factor"] == 1.206 and r["gpu_fault_factor"] == 0.975, r  # the other groups as before
reads = float(re.search(r"^gpu_to_host_gbps = ([0-9.]+)", text, re.M).group(1))
assert abs(reads - 51.32 * r["remote_read_factor"]) < 0.01, reads
assert re.search(r"^gpu_write_to_host_gbps = 51.32 ", text, re.M), "the stores' bandwidth moved"
# Each read request's cost grows as the square of the bandwidth's fall: 1.558 ns / factor^2.
requests = float(re.search(r'^request_cost = "([0-9.]+)ns"', text, re.M).group(1))
assert abs(requests - 1.558 / r["remote_read_factor"] ** 2) < 0.01, requests
PY
grep -q "# the GPU's read of pinned host memory took 2.000 ms (profile: 1.342 ms)" "$tmp/remote.toml" ||
  fail "no note of the remote read"
grep -v '^gpu_write_to_host_gbps' "$profile" >"$tmp/nowrite.toml"
run "$tmp/nowrite.toml" "$umsim" "$trace" "$tmp/remote2.toml" "$tmp"/remote_host_fault_speed.r*.json >"$tmp/out" 2>&1 ||
  { cat "$tmp/out"; fail "a profile without the stores' bandwidth refused"; }
grep -q '^gpu_write_to_host_gbps = 51.32$' "$tmp/remote2.toml" || fail "stores' bandwidth not added: $(grep -n gbps "$tmp/remote2.toml")"
with_kernels remote_read 2 2000000 twice
run "$profile" "$umsim" "$trace" "$tmp/keep.toml" "$tmp"/twice_host_fault_speed.r1.json >"$tmp/out" 2>&1 &&
  fail "two remote_read kernels accepted"
grep -q "2 'remote_read' kernels" "$tmp/out" || fail "two remote reads not explained: $(cat "$tmp/out")"

# Bad inputs: each a clear error and a non-zero exit; the named output untouched.
echo keep >"$tmp/keep.toml"
run "$profile" "$umsim" "$trace" "$tmp/keep.toml" "$other" >"$tmp/out" 2>&1 && fail "another trace's result accepted"
grep -q "0 'touch' and 0 'isolated' kernels, 1 'main' phases" "$tmp/out" || fail "wrong result not explained: $(cat "$tmp/out")"
[[ $(cat "$tmp/keep.toml") == keep ]] || fail "the output was touched on error"
echo '{"kernels": [' >"$tmp/broken.json"
run "$profile" "$umsim" "$trace" "$tmp/keep.toml" "$tmp/broken.json" >"$tmp/out" 2>&1 && fail "broken JSON accepted"
grep -q "broken.json: not a readable JSON file" "$tmp/out" || fail "broken JSON not named: $(cat "$tmp/out")"
run "$profile" "$umsim" "$trace" "$tmp/keep.toml" "$tmp/none.json" >"$tmp/out" 2>&1 && fail "missing probe accepted"
grep -q "none.json: no such file" "$tmp/out" || fail "missing probe not named: $(cat "$tmp/out")"
cp "$profile" "$tmp/same.toml"
run "$tmp/same.toml" "$umsim" "$trace" "$tmp/same.toml" "$probes"/host_fault_speed.r1.json >"$tmp/out" 2>&1 &&
  fail "output naming the profile accepted"
grep -q "is the input" "$tmp/out" || fail "refusal not explained: $(cat "$tmp/out")"
cmp -s "$profile" "$tmp/same.toml" || fail "the input profile was changed"
run "$profile" "$umsim" "$trace" "$tmp/out.json" "$probes"/host_fault_speed.r1.json >"$tmp/out" 2>&1 && fail "OUT not .toml accepted"
# A duration given as an integer of ns (the profile format's other form) reads as one.
sed 's/^va_block_cost = "3055ns"/va_block_cost = 3055/' "$profile" >"$tmp/int.toml"
run "$tmp/int.toml" "$umsim" "$trace" "$tmp/int_out.toml" "$probes"/host_fault_speed.r*.json >"$tmp/out" 2>&1 ||
  { cat "$tmp/out"; fail "an integer-ns duration refused"; }
grep -q '^va_block_cost = "2979ns"' "$tmp/int_out.toml" || fail "integer-ns va_block_cost not scaled as 3055 ns"
sed 's/^va_block_cost = "3055ns"/va_block_cost = "fast"/' "$profile" >"$tmp/bad.toml"
run "$tmp/bad.toml" "$umsim" "$trace" "$tmp/p.toml" "$probes"/host_fault_speed.r1.json >"$tmp/out" 2>&1 &&
  fail "a duration without a number accepted"
grep -q 'faults.va_block_cost = "fast": expected a duration such as "20us" or an integer of ns' "$tmp/out" ||
  fail "bad duration not explained: $(cat "$tmp/out")"
grep -v '^first_touch_cost' "$profile" >"$tmp/partial.toml"
run "$tmp/partial.toml" "$umsim" "$trace" "$tmp/p.toml" "$probes"/host_fault_speed.r1.json >"$tmp/out" 2>&1 &&
  fail "a profile without cpu.first_touch_cost accepted"
grep -q "no cpu.first_touch_cost" "$tmp/out" || fail "missing key not named: $(cat "$tmp/out")"

# --source names where the runs came from in the note, wrapped into comment
# lines of at most 100 characters; the values are those of the plain run.
src="another machine's calibration: its host-bound runs (hip_backend/calibration_as_probe.py on some/where/calibration.json)"
run --source "$src" "$profile" "$umsim" "$trace" "$tmp/src.toml" "$probes"/host_fault_speed.r*.json >"$tmp/out" 2>&1 ||
  { cat "$tmp/out"; fail "--source refused"; }
python3 - "$tmp/src.toml" "$tmp/p18.toml" "$src" <<'PY' || fail "--source note"
import sys
text, plain, src = open(sys.argv[1]).read(), open(sys.argv[2]).read(), sys.argv[3]
lines = text.splitlines()
at = next(i for i, l in enumerate(lines) if l.startswith("# Host part re-measured"))
note = []
for l in lines[at:]:
    if l.startswith("# the probe's"):
        break
    assert len(l) <= 100, f"note line longer than 100: {l!r}"
    note.append(l[2:])
assert " ".join(note) == f"Host part re-measured by hip_backend/host_rescale.py from {src}:", note
strip = lambda t: [l for l in t.splitlines() if not l.startswith("#")]
assert strip(text) == strip(plain), "--source changed a value"
PY
[[ $(grep -c "^# Host part re-measured" "$tmp/src.toml") -eq 1 ]] || fail "--source: not one note"
run --source "$tmp/src.toml" "$umsim" "$trace" "$tmp/p.toml" "$probes"/host_fault_speed.r1.json >"$tmp/out" 2>&1 &&
  fail "--source with too few arguments after it accepted"
grep -q "usage: host_rescale.py \[--source TEXT\]" "$tmp/out" || fail "--source misuse: $(cat "$tmp/out")"
run --source " " "$profile" "$umsim" "$trace" "$tmp/p.toml" "$probes"/host_fault_speed.r1.json >"$tmp/out" 2>&1 &&
  fail "an empty --source accepted"
grep -q "\-\-source needs a description" "$tmp/out" || fail "empty --source: $(cat "$tmp/out")"
echo "PASS"
