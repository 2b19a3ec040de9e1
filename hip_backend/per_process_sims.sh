#!/usr/bin/env bash
# Validation with each replay's own host speed (docs/validation.md, "The host's
# speed is set per process"): the profile's host part rescaled by the call's
# host probe (host_rescale.py), then, for every repetition of every trace,
# moved to that repetition's process (process_profile.py, from its host/
# result), the trace simulated with it; the simulated repetitions are merged
# like the hardware's (merge_reps.py: median per scope) and compared with them.
#   hip_backend/per_process_sims.sh PROFILE RESULTS_DIR OUT_DIR [TRACES_DIR]
# RESULTS_DIR is a call's results with probe/ and host/ (session 57 on).
# Outputs: OUT_DIR/call.toml, OUT_DIR/{profiles,sim,hw,compare}/ and
# OUT_DIR/error_table.md. About a minute for the suite.
set -euo pipefail
cd "$(dirname "$0")/.."
source hip_backend/compare_common.sh
[[ $# -ge 3 ]] || { echo "usage: per_process_sims.sh PROFILE RESULTS_DIR OUT_DIR [TRACES_DIR]" >&2; exit 2; }
profile=$1 results=$2 out=$3 traces=${4:-traces/validation}
for need in "$profile" "$results/probe" "$results/host"; do
  [[ -e $need ]] || { echo "per_process_sims.sh: $need: not found (results from session 57 on have probe/ and host/)" >&2; exit 1; }
done
./bazelw build //tools:umsim >&2
umsim=$(mktemp -d)/umsim
cp bazel-bin/tools/umsim "$umsim"  # a private copy: other builds may replace bazel-bin meanwhile
mkdir -p "$out/profiles" "$out/sim" "$out/hw" "$out/compare"
read -ra replay_options <<<"$(backend_replay_options "$results")"  # the program the backend ran
python3 hip_backend/host_rescale.py "$profile" "$umsim" traces/probe/host_fault_speed.umt "$out/call.toml" \
  "$results"/probe/*.json >"$out/call.rescale.json"
for trace in "$traces"/*.umt; do
  name=$(basename "$trace" .umt)
  compgen -G "$results/$name.r*.json" >/dev/null || continue
  for hw in "$results/$name".r*.json; do
    rep=${hw##*.r}; rep=${rep%.json}
    host=$results/host/$name.r$rep.json
    [[ -f $host ]] || { echo "per_process_sims.sh: no host/$name.r$rep.json in $results" >&2; exit 1; }
    python3 hip_backend/process_profile.py "$out/call.toml" "$host" "$out/profiles/$name.r$rep.toml" \
      "$results"/host/*.json >/dev/null
    "$umsim" replay "$trace" --profile "$out/profiles/$name.r$rep.toml" --json "$out/sim/$name.r$rep.json" -q \
      "${replay_options[@]}"
  done
  python3 hip_backend/merge_reps.py "$out/sim/$name".r*.json >"$out/sim/$name.json"
  compare_with_hardware "$umsim" "$name" "$out/sim/$name.json" "$results" "$out"
done
python3 hip_backend/error_table.py "$out"/compare/*.compare.json >"$out/error_table.md"
cat "$out/error_table.md"
