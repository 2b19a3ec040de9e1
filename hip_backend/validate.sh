#!/usr/bin/env bash
# Regenerates the published validation error table from the committed hardware
# results (no GPU needed): replays every trace of traces/validation/ in the
# simulator with the calibrated profile, merges the hardware repetitions, runs
# `umsim compare` per trace and aggregates the errors.
#   hip_backend/validate.sh [PROFILE [RESULTS_DIR [OUT_DIR [TRACES_DIR]]]]
# Defaults: profiles/h200-pcie5.toml, hip_backend/results/h200-pcie5/session9 (out of session),
# docs/validation, traces/validation. The two-GPU suite:
#   hip_backend/validate.sh profiles/h200x2-nvlink.toml hip_backend/results/h200x2-nvlink \
#     docs/validation/two_gpu traces/validation_2gpu
# Outputs: OUT_DIR/{sim,hw,compare}/ and OUT_DIR/error_table.md
# UMSIM_BIN names a prebuilt umsim (hip_backend/validate_calls.sh, tests); else it is built here.
set -euo pipefail
prebuilt=${UMSIM_BIN:-}
[[ -n $prebuilt ]] && prebuilt=$(realpath "$prebuilt")
cd "$(dirname "$0")/.."
source hip_backend/compare_common.sh
profile=${1:-profiles/h200-pcie5.toml}
results=${2:-hip_backend/results/h200-pcie5/session9}
out=${3:-docs/validation}
traces=${4:-traces/validation}
copy_dir=$(mktemp -d)
trap 'rm -rf "$copy_dir"' EXIT
source hip_backend/private_binary.sh
umsim=$copy_dir/umsim
private_binary "$prebuilt" //tools:umsim "$umsim"
mkdir -p "$out/sim" "$out/hw" "$out/compare"
read -ra replay_options <<<"$(backend_replay_options "$results")"  # the program the backend ran
for trace in "$traces"/*.umt; do
  name=$(basename "$trace" .umt)
  if ! compgen -G "$results/$name.r*.json" >/dev/null; then
    echo "validate.sh: no hardware results for $name in $results (not run on the GPU yet): skipped" >&2
    continue
  fi
  # The backend synchronises every device at each phase marker: replay the same program.
  "$umsim" replay "$trace" --profile "$profile" --json "$out/sim/$name.json" -q "${replay_options[@]}"
  compare_with_hardware "$umsim" "$name" "$out/sim/$name.json" "$results" "$out"
done
python3 hip_backend/error_table.py "$out"/compare/*.compare.json >"$out/error_table.md"
cat "$out/error_table.md"
