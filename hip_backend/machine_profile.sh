#!/usr/bin/env bash
# A profile of the machine one GPU-machine call ran on, from that call's
# calibration alone (docs/hip_backend.md, "A profile per machine"):
#   hip_backend/machine_profile.sh [--probe PROBE_DIR] CALIBRATION_DIR OUT.toml
# CALIBRATION_DIR is what `device_run.sh calibrate` left: an unpacked results
# directory (raw/h200-pcie5.toml, raw/calibration.json) or a committed copy
# (calibrated.toml, calibration.json; profiles/raw/h200-pcie5/later/sessionN).
# PROBE_DIR holds the same call's host probe runs (host_fault_speed.r*.json of
# traces/probe/host_fault_speed.umt; hip_backend/results/h200-pcie5/sessionN/probe);
# an unpacked results directory's own probe/ is used where it has them.
# Starts from the committed profile (UMSIM_BASE_PROFILE, else
# profiles/h200-pcie5.toml), whose structure the diagnostics fitted, and takes
# from the call what it measures of its machine:
#   - the keys its calibration reads off one microbenchmark each and the links'
#     curves, from its device-side fit (hip_backend/pool_calibrations.py
#     --machine on this one calibration), except those that follow the host's
#     per-process mode (moves to the CPU, pageable copies: HOST_MODE_KEYS there),
#     which keep the base profile's pooled values;
#   - the remote reads' request and touch costs, from its sparse pinned runs
#     (hip_backend/fit_remote_requests.py);
#   - the read-modify-write stores' cost, from its runs of
#     traces/probe/launch_after_memset.umt (hip_backend/fit_rmw_cost.py);
#   - the host part: the fault-servicing and CPU fault keys scaled to this
#     host (hip_backend/host_rescale.py) by the call's host probe where it ran
#     one, else by the calibration's host-bound runs taken as a probe
#     (hip_backend/calibration_as_probe.py). The probe is preferred: its CPU
#     first touch is the median of three runs, the calibration's one run, and
#     that one run's CPU factor disagreed with the probe's on every call compared
#     (docs/validation.md, "The same session in one command").
# It no longer re-tunes the fault keys in the simulator: that grid left out
# what the diagnostics fitted since, and on session 68 its profile was 21.7%
# off its own suite, this one 12.5% and the committed profile 9.1%
# (docs/validation.md, "Session 68").
# [calibrated_on] takes the call's machine.txt (GPU, CPU, kernel, driver,
# CUDA, date) where the directory keeps one.
# Writes OUT.toml and its report OUT.report.json (the keys taken, the host
# factors), each through a temporary file renamed into place; an OUT that names
# an input is refused.
set -euo pipefail
usage="usage: hip_backend/machine_profile.sh [--probe PROBE_DIR] CALIBRATION_DIR OUT.toml"
probe_dir=""
if [[ ${1:-} == --probe ]]; then
  [[ $# -ge 2 ]] || { echo "$usage" >&2; exit 2; }
  probe_dir=$2
  shift 2
  [[ -d $probe_dir ]] || { echo "machine_profile.sh: --probe $probe_dir: no such directory" >&2; exit 1; }
fi
[[ $# -eq 2 ]] || { echo "$usage" >&2; exit 2; }
dir=$1 out=$2
[[ -n $probe_dir || ! -d $dir/probe ]] || probe_dir=$dir/probe
probes=()
if [[ -n $probe_dir ]]; then
  shopt -s nullglob
  probes=("$probe_dir"/host_fault_speed.r*.json)
  shopt -u nullglob
  [[ ${#probes[@]} -gt 0 ]] || { echo "machine_profile.sh: $probe_dir has no host probe runs (host_fault_speed.r*.json)" >&2; exit 1; }
fi
fit="" raw=""
for candidate in "$dir/raw/h200-pcie5.toml" "$dir/calibrated.toml"; do
  [[ -f $candidate ]] && { fit=$candidate; break; }
done
for candidate in "$dir/raw/calibration.json" "$dir/calibration.json"; do
  [[ -f $candidate ]] && { raw=$candidate; break; }
done
[[ -n $fit ]] || { echo "machine_profile.sh: $dir has no device-side fit (raw/h200-pcie5.toml or calibrated.toml)" >&2; exit 1; }
[[ -n $raw ]] || { echo "machine_profile.sh: $dir has no calibration (raw/calibration.json or calibration.json)" >&2; exit 1; }
[[ $out == *.toml ]] || { echo "machine_profile.sh: OUT must end in .toml (got '$out')" >&2; exit 1; }
report=${out%.toml}.report.json
[[ -d $(dirname "$out") ]] || { echo "machine_profile.sh: directory $(dirname "$out") of OUT does not exist" >&2; exit 1; }
for target in "$out" "$report"; do
  for input in "$fit" "$raw" "${probes[@]}"; do
    if [[ -e $target && $(realpath "$target") == $(realpath "$input") ]]; then
      echo "machine_profile.sh: output $target is the input $input (refused: it would be overwritten)" >&2
      exit 1
    fi
  done
done

# UMSIM_BIN names a prebuilt binary (tests); else it is built here.
umsim=${UMSIM_BIN:-}
[[ -n $umsim ]] && umsim=$(realpath "$umsim")
fit=$(realpath "$fit") raw=$(realpath "$raw") out=$(realpath -m "$out") report=$(realpath -m "$report")
for k in "${!probes[@]}"; do probes[k]=$(realpath "${probes[k]}"); done
base=${UMSIM_BASE_PROFILE:-}
[[ -n $base ]] && base=$(realpath "$base")
cd "$(dirname "$0")/.."
base=${base:-$PWD/profiles/h200-pcie5.toml}
[[ -f $base ]] || { echo "machine_profile.sh: no base profile $base" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
source hip_backend/private_binary.sh
private_binary "$umsim" //tools:umsim "$tmp/umsim"
umsim=$tmp/umsim
mkdir -p "$tmp/calibration" "$tmp/probe"
cp "$fit" "$tmp/calibration/calibrated.toml"
cp "$raw" "$tmp/calibration/calibration.json"  # remote.gpu_to_host_gbps is read off its runs
python3 hip_backend/pool_calibrations.py --machine "$base" "$tmp/direct.toml" "$tmp/calibration" >/dev/null
# Remote reads' request and touch costs, fitted together on the call's sparse
# pinned runs (calibrations without them keep the base profile's).
if remote_fit=$(python3 hip_backend/fit_remote_requests.py "$(dirname "$raw")" 2>"$tmp/remote.err"); then
  python3 - "$tmp/direct.toml" "$remote_fit" <<'PY'
import json, sys
sys.path.insert(0, "hip_backend")
from tune_profile import set_values
path, fit = sys.argv[1], json.loads(sys.argv[2])
values = {"remote.request_cost": '"%.3fns"' % fit["request_cost_ns"], "remote.access_cost": '"%.3fns"' % fit["access_cost_ns"]}
text = set_values(open(path).read(), values)
open(path, "w").write(text)
PY
else
  remote_fit=null
  echo "machine_profile.sh: remote request costs kept from the base profile: $(cat "$tmp/remote.err")" >&2
fi
# Read-modify-write stores to resident memory, from the call's runs of the
# resident rmw kernel, against this profile's access speed (calibrations
# without them keep the base profile's).
if rmw_fit=$(python3 hip_backend/fit_rmw_cost.py "$umsim" "$tmp/direct.toml" traces/probe/launch_after_memset.umt \
    "$(dirname "$raw")" 2>"$tmp/rmw.err"); then
  python3 - "$tmp/direct.toml" "$rmw_fit" <<'PY'
import json, sys
sys.path.insert(0, "hip_backend")
from tune_profile import set_values
path, fit = sys.argv[1], json.loads(sys.argv[2])
text = set_values(open(path).read(), {"gpu.rmw_cost": '"%.3fps"' % (fit["value_ns"] * 1000)})
open(path, "w").write(text)
PY
else
  rmw_fit=null
  echo "machine_profile.sh: gpu.rmw_cost kept from the base profile: $(cat "$tmp/rmw.err")" >&2
fi
# The host part: the call's probe runs of the probe trace, else its
# calibration's host-bound runs as a trace of their own and its result.
if [[ ${#probes[@]} -gt 0 ]]; then
  host_from=probe host_source="this call's host probe (${#probes[@]} runs)"
  probe_trace=traces/probe/host_fault_speed.umt probe_runs=("${probes[@]}")
else
  host_from=calibration host_source="this call's calibration: its host-bound runs (hip_backend/calibration_as_probe.py)"
  python3 hip_backend/calibration_as_probe.py "$raw" "$tmp/probe" >/dev/null
  probe_trace=$tmp/probe/probe.umt probe_runs=("$tmp/probe/probe.json")
fi
python3 hip_backend/host_rescale.py --source "$host_source" \
  "$tmp/direct.toml" "$umsim" "$probe_trace" "$tmp/profile.toml" "${probe_runs[@]}" >"$tmp/host.json"
# The machine it describes: [calibrated_on] from the call's machine.txt, where kept.
machine=""
for candidate in "$(dirname "$raw")/machine.txt" "$(dirname "$raw")/../logs/machine.txt"; do
  [[ -f $candidate ]] && { machine=$candidate; break; }
done
if [[ -n $machine ]]; then
  python3 - "$tmp/profile.toml" "$machine" <<'PY'
import re, sys
path, machine = sys.argv[1], sys.argv[2]
facts = dict(line.split("=", 1) for line in open(machine).read().splitlines() if "=" in line)
text, section, out = open(path).read().splitlines(), "", []
for line in text:
    s = line.strip()
    if s.startswith("["):
        section = s
    m = re.match(r"(\w+)\s*=", s)
    if section == "[calibrated_on]" and m and facts.get(m.group(1), "").strip():
        value = facts[m.group(1)].strip().replace('"', "'")
        line = f'{m.group(1)} = "{value}"'
    out.append(line)
open(path, "w").write("\n".join(out) + "\n")
PY
fi
"$umsim" profiles "$tmp/profile.toml" >/dev/null  # the result loads
# The report reads the keys taken from the written profile, not from
# pool_calibrations.py's printed lines; the profile names them.
python3 - "$base" "$fit" "$tmp/direct.toml" "$tmp/host.json" "$tmp/report.json" "$host_from" "$host_source" "$remote_fit" "$rmw_fit" \
  "$tmp/profile.toml" <<'PY'
import json, os, sys
sys.path.insert(0, "hip_backend")
from host_rescale import profile_values
from pool_calibrations import MACHINE_KEYS
base, fit, direct, host, out, host_from, host_source, remote_fit, rmw_fit, profile = sys.argv[1:]
values = profile_values(open(direct).read())
remote_keys = ["remote.request_cost", "remote.access_cost"] if json.loads(remote_fit) else []
rmw_keys = ["gpu.rmw_cost"] if json.loads(rmw_fit) else []
keys = {key: values[key].strip('"') for key in MACHINE_KEYS + remote_keys + rmw_keys}
json.dump({"base_profile": base, "device_fit": fit, "keys_from_calibration": keys,
           "host_from": host_from, "host_source": host_source, "host": json.load(open(host))}, open(out, "w"), indent=1)
# Say in the profile which values are this call's: their trailing comments are
# the base profile's, which describe how the base's values were measured.
lines = open(profile).read().splitlines()
at = next((i for i, line in enumerate(lines) if line.startswith("# Host part re-measured")), 0)
note = [f"# Values from this call's calibration: {', '.join(sorted(keys))};",
        f"# their trailing comments, and every other value, are the base profile's ({os.path.basename(base)})."]
open(profile, "w").write("\n".join(lines[:at] + note + lines[at:]) + "\n")
PY
cp "$tmp/profile.toml" "$out.partial" && mv "$out.partial" "$out"
cp "$tmp/report.json" "$report.partial" && mv "$report.partial" "$report"
summary=$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); h=r["host"]; print("%d keys from the calibration; host (%s): GPU faults x%.3f, CPU faults x%.3f" % (len(r["keys_from_calibration"]), r["host_from"], h["gpu_fault_factor"], h["cpu_fault_factor"]))' "$report")
echo "machine_profile.sh: wrote $out ($summary; report $report)"
