#!/usr/bin/env bash
# hip_backend/tune_profile.py: pooling of calibration sessions (median of every
# repetition of a GPU microbenchmark over all files, launch overhead removed;
# CPU runs from the last file) and its usage errors. The grid search itself needs the simulator and minutes.
set -uo pipefail
script=$1 tool=$2
shift 2  # then every committed calibration file
tmp=${TEST_TMPDIR:-$(mktemp -d)}
cat >"$tmp/check.py" <<'PY'
import importlib.util, sys
spec = importlib.util.spec_from_file_location("tune_profile", sys.argv[1])
t = importlib.util.module_from_spec(spec)
spec.loader.exec_module(t)
old = {"launch_overhead_ns": 5000,  # a session before repetitions: one time per run
       "faults": [{"pattern": "sequential", "bytes": 64, "time_ns": 105000}],
       "read_mostly": [{"bytes": 256, "time_ns": 20000, "launch_overhead_ns": 4000}],
       "cpu": [{"test": "first_touch", "pages": 8, "time_ns": 1},
               {"test": "fault", "pages": 8, "time_ns": 700}]}
new = {"launch_overhead_ns": 6000,
       "faults": [{"pattern": "sequential", "bytes": 64, "time_ns": 86000, "launch_overhead_ns": 6000,
                   "times_ns": [86000, 66000, 126000]},
                  {"pattern": "gpu_fresh", "bytes": 64, "time_ns": 16000, "times_ns": [16000]}],
       "read_mostly": [{"bytes": 256, "time_ns": 30000, "launch_overhead_ns": 6000}],
       "cpu": [{"test": "fault", "pages": 8, "time_ns": 900}, {"test": "fault_read", "pages": 8, "time_ns": 600}]}
got = t.pooled_hardware_times([old, new])
# sequential: 100000 (old) and 80000, 60000, 120000 (new) -> median of four = 90000;
# CPU runs from the last file only (the host differs between sessions).
want = {("faults", "sequential", 64): 90000, ("faults", "gpu_fresh", 64): 10000,
        ("read_mostly", "", 256): 20000, ("cpu_fault", "fault", 8): 900, ("cpu_fault", "fault_read", 8): 600}
if got != want:
    sys.exit(f"pooled times: got {got}, want {want}")
# add_key: an optional key becomes the first line of its table (only the first such header), and
# nothing changes where the table is missing.
toml = '[faults]\nbatch_size = 256\n\n[cpu]  # host\nfault_cost = "8us"\n[cpu_x]\n'
want_toml = '[faults]\nbatch_size = 256\n\n[cpu]  # host\nread_cost = "0ns"\nfault_cost = "8us"\n[cpu_x]\n'
if t.add_key(toml, "cpu", "read_cost", '"0ns"') != want_toml:
    sys.exit(f"add_key: got {t.add_key(toml, 'cpu', 'read_cost', '0')!r}")
if t.add_key(toml, "remote", "x", "1") != toml:
    sys.exit("add_key: a missing table changed the text")
# set_or_add_values: a key its table has is set in place (its comment kept), one it lacks is
# added to that table (not to another table holding the same name), a missing table raises.
toml = '[faults]\nbatch_size = 256  # count\n[cpu]\nbatch_size = 1\n'
want_toml = '[faults]\ncost = "2ns"\nbatch_size = 128  # count\n[cpu]\nbatch_size = 1\n'
got = t.set_or_add_values(toml, {"faults.batch_size": "128", "faults.cost": '"2ns"'})
if got != want_toml:
    sys.exit(f"set_or_add_values: got {got!r}")
want_cpu = '[faults]\nbatch_size = 256  # count\n[cpu]\ncost = "3ns"\nbatch_size = 1\n'
if (got := t.set_or_add_values(toml, {"cpu.cost": '"3ns"'})) != want_cpu:
    sys.exit(f"set_or_add_values into [cpu]: got {got!r}")
try:
    t.set_or_add_values(toml, {"host.free_call_cost": '"1ns"'})
    sys.exit("set_or_add_values: a missing table was accepted")
except KeyError as e:
    if e.args != ("host",):
        sys.exit(f"set_or_add_values: raised {e!r}")
PY
python3 "$tmp/check.py" "$script" || { echo "FAIL: pooling"; exit 1; }
python3 "$script" only_one_arg >"$tmp/out" 2>&1 && { echo "FAIL: usage error exited 0"; exit 1; }
grep -q "usage: tune_profile.py PROFILE.toml UMSIM_BINARY CALIBRATION_TRACES_TOOL RAW.json" "$tmp/out" ||
  { echo "FAIL: no usage line"; cat "$tmp/out"; exit 1; }

# Every microbenchmark of every committed calibration session has its trace
# among those calibration_traces_tool writes (the tuner replays exactly those).
"$tool" "$tmp/traces" || { echo "FAIL: calibration_traces_tool"; exit 1; }
# An option is not taken for the output folder.
abs_tool=$(realpath "$tool")
(cd "$tmp" && "$abs_tool" --help >out 2>&1) || { echo "FAIL: --help exits non-zero"; exit 1; }
grep -q "usage: calibration_traces OUT_DIR" "$tmp/out" || { echo "FAIL: --help prints no usage"; exit 1; }
[[ -e $tmp/--help ]] && { echo "FAIL: --help made a folder"; exit 1; }
(cd "$tmp" && "$abs_tool" -x >/dev/null 2>&1) && { echo "FAIL: an unknown option exits 0"; exit 1; }
cat >"$tmp/cover.py" <<'PY'
import importlib.util, json, os, sys
spec = importlib.util.spec_from_file_location("tune_profile", sys.argv[1])
t = importlib.util.module_from_spec(spec)
spec.loader.exec_module(t)
traces, raws = sys.argv[2], sys.argv[3:]
if not raws:
    sys.exit("no calibration files given")
for path in raws:
    for key in t.pooled_hardware_times([json.load(open(path))]):
        name = t.trace_name(*key)
        if not os.path.exists(os.path.join(traces, name)):
            sys.exit(f"{path}: {key} has no trace {name}")
PY
python3 "$tmp/cover.py" "$script" "$tmp/traces" "$@" || { echo "FAIL: coverage"; exit 1; }
"$tool" >/dev/null 2>&1 && { echo "FAIL: tool without arguments exited 0"; exit 1; }
echo "PASS"
