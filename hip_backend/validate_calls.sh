#!/usr/bin/env bash
# The model judged on many GPU-machine calls at once, the way the published
# figures are (docs/validation.md, "Where the model stands"): each call's suite
# against PROFILE with its host part re-measured by that call's own host probe
# (hip_backend/host_rescale.py), then every call pooled (hip_backend/pooled_errors.py).
#   hip_backend/validate_calls.sh [--jobs N] [--traces DIR] [--same-session CALIBRATIONS_DIR]
#                                 PROFILE OUT_DIR RESULTS_DIR...
# Each RESULTS_DIR is one call's results (hip_backend/results/GPU/sessionN: the
# suite's NAME.rK.json and its host probe's probe/host_fault_speed.r*.json); a
# call without probe runs is judged with PROFILE as it is, and its row says so.
# The 69 out-of-session H200 calls (six minutes on two cores):
#   r=hip_backend/results/h200-pcie5
#   hip_backend/validate_calls.sh profiles/h200-pcie5.toml /tmp/h200_calls \
#     $r/session{18..24} $r/session{26..47} $r/session{49..86} $r/session{91,92}
# Writes OUT_DIR/sessionN/ (validate.sh's sim/, hw/, compare/, error_table.md and
# the profile used, probe.toml or profile.toml), OUT_DIR/calls.md (one row per
# call: the profile's host source, scopes, median abs time error, within 10%, and
# the call's own noise, hip_backend/repeatability.py) and
# OUT_DIR/pooled.md (pooled_errors.py: the per-call summary and the pooled
# errors). OUT_DIR must not exist yet: it is built under a temporary name beside
# itself and renamed once every call is judged, so a failed run leaves no
# OUT_DIR. --jobs: calls judged at once (default 2); --traces: the suite's
# traces (default traces/validation). --same-session: each call judged with a
# profile of its own machine instead (docs/validation.md, "Same session"): its
# calibration, CALIBRATIONS_DIR/sessionN (e.g. profiles/raw/h200-pcie5/later),
# its runs fitted again by the current fit onto PROFILE (fit_profile), then
# machine_profile.sh --probe with the call's probe and PROFILE as the base; the
# 30 H200 calls:
#   hip_backend/validate_calls.sh --same-session profiles/raw/h200-pcie5/later \
#     profiles/h200-pcie5.toml /tmp/h200_same $r/session35 $r/session{37..53} \
#     $r/session{56,60,68,72,76,80,82,84,86,91,92,99}
# UMSIM_BIN names a prebuilt umsim, UMSIM_FIT_BIN a prebuilt fit_profile; else
# they are built here.
set -euo pipefail
usage="usage: hip_backend/validate_calls.sh [--jobs N] [--traces DIR] [--same-session CALIBRATIONS_DIR] PROFILE OUT_DIR RESULTS_DIR..."
jobs=2 traces=traces/validation calibrations=""
while [[ ${1:-} == --* ]]; do
  case $1 in
    --jobs)
      [[ ${2:-} =~ ^[1-9][0-9]*$ ]] || { echo "validate_calls.sh: --jobs needs a positive whole number (got '${2:-}')" >&2; exit 2; }
      jobs=$2; shift 2 ;;
    --traces)
      [[ -n ${2:-} ]] || { echo "$usage" >&2; exit 2; }
      traces=$2; shift 2 ;;
    --same-session)
      [[ -n ${2:-} ]] || { echo "$usage" >&2; exit 2; }
      calibrations=$2; shift 2 ;;
    *) echo "validate_calls.sh: unknown option $1" >&2; echo "$usage" >&2; exit 2 ;;
  esac
done
[[ $# -ge 4 ]] || { echo "$usage" >&2; echo "(at least two calls: for one, hip_backend/validate.sh)" >&2; exit 2; }
profile=$1 out=$2
shift 2
fail() { echo "validate_calls.sh: $*" >&2; exit 1; }
[[ -f $profile ]] || fail "no profile $profile"
[[ -d $traces ]] || fail "--traces $traces: no such directory"
[[ -z $calibrations || -d $calibrations ]] || fail "--same-session $calibrations: no such directory"
[[ ! -e $out ]] || fail "$out exists: name an OUT_DIR that does not (it is never overwritten)"
[[ -d $(dirname "$out") ]] || fail "directory $(dirname "$out") of OUT_DIR does not exist"
declare -A seen=()
calls=()
for dir in "$@"; do
  [[ -d $dir ]] || fail "$dir: no such directory (expected a call's results, e.g. hip_backend/results/h200-pcie5/session91)"
  compgen -G "$dir/*.r[0-9]*.json" >/dev/null || fail "$dir: no suite results (NAME.rK.json)"
  name=$(basename "$(realpath "$dir")")
  [[ -z ${seen[$name]:-} ]] || fail "$dir and ${seen[$name]} are both named $name: judge calls of one name in separate runs"
  seen[$name]=$dir
  if [[ -n $calibrations ]]; then
    [[ -f $calibrations/$name/calibration.json && -f $calibrations/$name/calibrated.toml ]] ||
      fail "--same-session: $calibrations/$name holds no calibration (calibration.json and calibrated.toml)"
    compgen -G "$dir/probe/host_fault_speed.r*.json" >/dev/null || fail "--same-session: $dir has no host probe runs"
  fi
  calls+=("$(realpath "$dir")")
done
profile=$(realpath "$profile") traces=$(realpath "$traces") out=$(realpath -m "$out")
[[ -n $calibrations ]] && calibrations=$(realpath "$calibrations")
fit_bin=${UMSIM_FIT_BIN:-}
[[ -n $fit_bin ]] && fit_bin=$(realpath "$fit_bin")
umsim=${UMSIM_BIN:-}
[[ -n $umsim ]] && umsim=$(realpath "$umsim")
cd "$(dirname "$0")/.."
work=$(mktemp -d "$out.partial-XXXXXX")
trap 'rm -rf "$work"' EXIT
source hip_backend/private_binary.sh
private_binary "$umsim" //tools:umsim "$work/.umsim"
umsim=$work/.umsim
if [[ -n $calibrations ]]; then
  private_binary "$fit_bin" //hip_backend:fit_profile "$work/.fit_profile"
  fit_bin=$work/.fit_profile
fi

# judge CALL_DIR: one call into $work/NAME; its log there.
judge() {
  local dir=$1 name probes used
  name=$(basename "$dir")
  mkdir -p "$work/$name"
  probes=("$dir"/probe/host_fault_speed.r*.json)
  if [[ -n $calibrations ]]; then
    # Its own machine: its calibration's runs fitted as the current calibrate
    # fits them, onto PROFILE (a stored fit lacks the keys added since).
    cp -rL "$calibrations/$name" "$work/$name/calibration"
    cp "$profile" "$work/$name/calibration/calibrated.toml"
    "$fit_bin" "$work/$name/calibration/calibration.json" "$work/$name/calibration/calibrated.toml" \
      >"$work/$name/calibration/fit_values.txt" 2>"$work/$name/judge.log" || return 1
    UMSIM_BIN=$umsim UMSIM_BASE_PROFILE=$profile bash hip_backend/machine_profile.sh --probe "$dir/probe" \
      "$work/$name/calibration" "$work/$name/same.toml" >>"$work/$name/judge.log" 2>&1 || return 1
    echo "its own calibration (re-fitted) and probe (${#probes[@]} runs)" >"$work/$name/host_source"
    used=$work/$name/same.toml
  elif [[ -e ${probes[0]} ]]; then
    python3 hip_backend/host_rescale.py "$profile" "$umsim" traces/probe/host_fault_speed.umt \
      "$work/$name/probe.toml" "${probes[@]}" >"$work/$name/rescale.json" 2>"$work/$name/judge.log" || return 1
    echo "the call's probe (${#probes[@]} runs)" >"$work/$name/host_source"
    used=$work/$name/probe.toml
  else
    cp "$profile" "$work/$name/profile.toml"
    echo "no probe runs: the profile as it is" >"$work/$name/host_source"
    used=$work/$name/profile.toml
  fi
  UMSIM_BIN=$umsim bash hip_backend/validate.sh "$used" "$dir" "$work/$name" "$traces" >>"$work/$name/judge.log" 2>&1
}

failed=()
pids=() names=()
wait_one() {  # waits for the oldest job; a call whose judging failed goes to `failed`
  if ! wait "${pids[0]}"; then failed+=("${names[0]}"); fi
  pids=("${pids[@]:1}") names=("${names[@]:1}")
}
for dir in "${calls[@]}"; do
  (( ${#pids[@]} < jobs )) || wait_one
  judge "$dir" &
  pids+=($!) names+=("$dir")
done
while (( ${#pids[@]} > 0 )); do wait_one; done
if (( ${#failed[@]} > 0 )); then
  for dir in "${failed[@]}"; do
    echo "validate_calls.sh: judging $dir failed:" >&2
    tail -n 5 "$work/$(basename "$dir")/judge.log" >&2
  done
  exit 1
fi

# One row per call, from its comparisons (pooled_errors.py reads the same
# scopes), beside the call's own noise (repeatability.py): how far one
# repetition lies from the others, and what a model exact in expectation would
# be off against the median of the repetitions.
python3 - "$work" "${calls[@]}" <<'PY' >"$work/calls.md"
import os, statistics, sys
sys.path.insert(0, "hip_backend")
from pooled_errors import time_errors
from repeatability import differences, noise_floor
work, calls = sys.argv[1], sys.argv[2:]
def percent(values):
    return f"{statistics.median(values) * 100:.1f}%" if values else "-"
print("| call | host part | scopes | median abs time error | within 10% | a repetition against the others | an exact model |")
print("|---|---|---|---|---|---|---|")
for call in calls:
    name = os.path.basename(call)
    errors = [abs(e) for e in time_errors(os.path.join(work, name)).values()]
    source = open(os.path.join(work, name, "host_source")).read().strip()
    within = sum(e <= 0.10 for e in errors)
    share = f"{within} ({within / len(errors) * 100:.1f}%)" if errors else "-"  # none comparable: no share
    print(f"| {name} | {source} | {len(errors)} | {percent(errors)} | {share} | "
          f"{percent(differences(call))} | {percent(noise_floor(call))} |")
PY
# From inside the work folder: pooled.md names each call as its folder, not the
# temporary path it is written under.
pooler=$PWD/hip_backend/pooled_errors.py
(cd "$work" && python3 "$pooler" "${calls[@]##*/}" >pooled.md)
rm -f "$work/.umsim" "$work/.fit_profile"
mv -T "$work" "$out"  # -T: never into an OUT_DIR made meanwhile
trap - EXIT
cat "$out/calls.md"
echo
sed -n '/Every pooled scope/,/^| pooled errors taken out/p' "$out/pooled.md"
echo "validate_calls.sh: wrote $out (calls.md, pooled.md, one folder per call)"
