# Shared by validate.sh and per_process_sims.sh (sourced from the repository
# root): one trace's simulated result against its merged hardware repetitions.
#   compare_with_hardware UMSIM NAME SIM_JSON RESULTS_DIR OUT_DIR
# merges RESULTS_DIR/NAME.r*.json into OUT_DIR/hw/NAME.json (merge_reps.py:
# median times, maximum counters) and writes OUT_DIR/compare/NAME.compare.json
# and NAME.txt (`umsim compare`).
compare_with_hardware() {
  local umsim=$1 name=$2 sim=$3 results=$4 out=$5
  python3 hip_backend/merge_reps.py "$results/$name".r*.json >"$out/hw/$name.json"
  "$umsim" compare "$sim" "$out/hw/$name.json" --json "$out/compare/$name.compare.json" >"$out/compare/$name.txt"
}
