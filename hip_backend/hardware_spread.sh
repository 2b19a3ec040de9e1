#!/usr/bin/env bash
# How far apart the hardware itself is between two GPU-machine calls: the merged
# results of the earlier call (median of its repetitions) used as the prediction
# of the later call's, compared scope by scope with `umsim compare` and
# aggregated with the validation's error table (docs/validation.md, "Sessions 14-17").
#   hip_backend/hardware_spread.sh EARLIER_RESULTS LATER_RESULTS OUT_DIR
# e.g. hip_backend/hardware_spread.sh hip_backend/results/h200-pcie5/session15 \
#        hip_backend/results/h200-pcie5/session16 /tmp/spread_15_16
# Outputs: OUT_DIR/{earlier,later,compare}/ and OUT_DIR/error_table.md. UMSIM_BIN
# names a prebuilt umsim (tests); else it is built here.
set -euo pipefail
[[ $# -eq 3 ]] || { echo "usage: hip_backend/hardware_spread.sh EARLIER_RESULTS LATER_RESULTS OUT_DIR" >&2; exit 2; }
earlier=$(realpath "$1") later=$(realpath "$2") out=$(realpath -m "$3")
for d in "$earlier" "$later"; do
  compgen -G "$d/*.r1.json" >/dev/null || { echo "hardware_spread.sh: $d holds no hardware results (NAME.r1.json ...)" >&2; exit 1; }
done
[[ $out != "$earlier" && $out != "$later" ]] || { echo "hardware_spread.sh: OUT_DIR must not be an input directory" >&2; exit 1; }
umsim=${UMSIM_BIN:-}
[[ -n $umsim ]] && umsim=$(realpath "$umsim")
cd "$(dirname "$0")/.."
if [[ -z $umsim ]]; then
  ./bazelw build //tools:umsim >&2
  umsim=$(mktemp -d)/umsim
  cp bazel-bin/tools/umsim "$umsim"
fi
mkdir -p "$out/earlier" "$out/later" "$out/compare"
for first in "$later"/*.r1.json; do
  name=$(basename "$first" .r1.json)
  compgen -G "$earlier/$name.r*.json" >/dev/null || continue  # a trace only the later call ran
  python3 hip_backend/merge_reps.py "$earlier/$name".r*.json >"$out/earlier/$name.json"
  python3 hip_backend/merge_reps.py "$later/$name".r*.json >"$out/later/$name.json"
  "$umsim" compare "$out/earlier/$name.json" "$out/later/$name.json" --json "$out/compare/$name.compare.json" \
    >"$out/compare/$name.txt"
done
python3 hip_backend/error_table.py "$out"/compare/*.compare.json >"$out/error_table.md"
sed -n 1,3p "$out/error_table.md"
