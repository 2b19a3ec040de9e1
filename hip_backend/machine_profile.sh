#!/usr/bin/env bash
# A profile of the machine one GPU-machine call ran on, from that call's
# calibration alone (docs/hip_backend.md, "A profile per machine"):
#   hip_backend/machine_profile.sh CALIBRATION_DIR OUT.toml
# CALIBRATION_DIR is what `device_run.sh calibrate` left: an unpacked results
# directory (raw/h200-pcie5.toml, raw/calibration.json) or a committed copy
# (calibrated.toml, calibration.json; profiles/raw/h200-pcie5/later/sessionN).
# Starts from the device-side fit (links, prefetch, CPU, remote, copies) and
# tunes the fault-servicing keys in the simulator on that calibration's runs
# only, not pooled with other sessions: hosts differ between calls by up to
# ~20% in fault servicing (docs/validation.md, "Sessions 14-17").
# [calibrated_on] takes the call's machine.txt (GPU, CPU, kernel, driver,
# CUDA, date) where the directory keeps one; the CPU's fault path
# (hip_backend/fit_cpu_faults.py) where it keeps runs of
# traces/probe/cpu_faults.umt; the host's side of prefetch calls
# (hip_backend/fit_prefetch_host.py) where it keeps runs of
# traces/probe/prefetch_host.umt; the host time of advice calls
# (hip_backend/fit_advice.py) where it keeps runs of traces/probe/advice_costs.umt.
# Writes OUT.toml and its tuning report OUT.tune.json, each through a temporary file renamed into place; an
# OUT that names an input is refused.
set -euo pipefail
usage="usage: hip_backend/machine_profile.sh CALIBRATION_DIR OUT.toml"
[[ $# -eq 2 ]] || { echo "$usage" >&2; exit 2; }
dir=$1 out=$2
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
report=${out%.toml}.tune.json
[[ -d $(dirname "$out") ]] || { echo "machine_profile.sh: directory $(dirname "$out") of OUT does not exist" >&2; exit 1; }
for target in "$out" "$report"; do
  for input in "$fit" "$raw"; do
    if [[ -e $target && $(realpath "$target") == $(realpath "$input") ]]; then
      echo "machine_profile.sh: output $target is the input $input (refused: it would be overwritten)" >&2
      exit 1
    fi
  done
done

# UMSIM_BIN and UMSIM_TRACES_TOOL name prebuilt binaries (tests); else they are built here.
umsim=${UMSIM_BIN:-} traces_tool=${UMSIM_TRACES_TOOL:-}
[[ -n $umsim ]] && umsim=$(realpath "$umsim")
[[ -n $traces_tool ]] && traces_tool=$(realpath "$traces_tool")
fit=$(realpath "$fit") raw=$(realpath "$raw") out=$(realpath -m "$out") report=$(realpath -m "$report")
cd "$(dirname "$0")/.."
if [[ -z $umsim || -z $traces_tool ]]; then
  ./bazelw build -c opt //tools:umsim //hip_backend:calibration_traces_tool >&2
  umsim=$PWD/bazel-bin/tools/umsim traces_tool=$PWD/bazel-bin/hip_backend/calibration_traces_tool
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp "$fit" "$tmp/profile.toml"
python3 hip_backend/tune_profile.py "$tmp/profile.toml" "$umsim" "$traces_tool" "$raw" >"$tmp/tune.json"
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
# The CPU's fault path, where the call ran traces/probe/cpu_faults.umt (session
# 42 on): its fault costs and faulted pages (hip_backend/fit_cpu_faults.py).
cpu_runs=("$(dirname "$raw")"/cpu_faults.r*.json)
if [[ -f ${cpu_runs[0]} ]]; then
  python3 hip_backend/fit_cpu_faults.py "$tmp/profile.toml" "$umsim" traces/probe/cpu_faults.umt "$tmp/cpu.toml" \
    "${cpu_runs[@]}" >"$tmp/cpu_faults.json"
  mv "$tmp/cpu.toml" "$tmp/profile.toml"
fi
# The host's side of prefetch calls, where the call ran
# traces/probe/prefetch_host.umt (session 46 on; hip_backend/fit_prefetch_host.py).
prefetch_runs=("$(dirname "$raw")"/prefetch_host.r*.json)
if [[ -f ${prefetch_runs[0]} ]]; then
  python3 hip_backend/fit_prefetch_host.py "$tmp/profile.toml" "$umsim" traces/probe/prefetch_host.umt "$tmp/prefetch.toml" \
    "${prefetch_runs[@]}" >"$tmp/prefetch_host.json"
  mv "$tmp/prefetch.toml" "$tmp/profile.toml"
fi
# The host time of advice calls, where the call ran traces/probe/advice_costs.umt
# (session 52 on; hip_backend/fit_advice.py).
advice_runs=("$(dirname "$raw")"/advice_costs.r*.json)
if [[ -f ${advice_runs[0]} ]]; then
  python3 hip_backend/fit_advice.py "$tmp/profile.toml" "$tmp/advice.toml" "${advice_runs[@]}" >"$tmp/advice.json"
  mv "$tmp/advice.toml" "$tmp/profile.toml"
fi
"$umsim" profiles "$tmp/profile.toml" >/dev/null  # the result loads
cp "$tmp/profile.toml" "$out.partial" && mv "$out.partial" "$out"
cp "$tmp/tune.json" "$report.partial" && mv "$report.partial" "$report"
median=$(python3 -c 'import json,sys; print("%.1f%%" % (100 * json.load(open(sys.argv[1]))["median_abs_error"]))' "$report")
echo "machine_profile.sh: wrote $out (calibration runs' median abs time error $median; report $report)"
