# Shared by validate.sh and per_process_sims.sh (sourced from the repository
# root): one trace's simulated result against its merged hardware repetitions.
#   compare_with_hardware UMSIM NAME SIM_JSON RESULTS_DIR OUT_DIR
# merges RESULTS_DIR/NAME.r*.json into OUT_DIR/hw/NAME.json (merge_reps.py:
# median times, maximum counters) and writes OUT_DIR/compare/NAME.compare.json
# and NAME.txt (`umsim compare`).
#   backend_replay_options RESULTS_DIR
# prints the `umsim replay` options that run the program the backend ran:
# --sync-at-phases (it synchronises every device at each phase marker) and, for
# results recorded before session 103 (RESULTS_DIR/streams_created_at_first_use
# says so), --streams-created-at-first-use (each stream's creation lies in the
# phase that first used it; docs/model.md, "Streams created at first use").
backend_replay_options() {
  local results=$1
  printf '%s' --sync-at-phases
  [ -f "$results/streams_created_at_first_use" ] && printf ' %s' --streams-created-at-first-use
  printf '\n'
}

compare_with_hardware() {
  local umsim=$1 name=$2 sim=$3 results=$4 out=$5
  python3 hip_backend/merge_reps.py "$results/$name".r*.json >"$out/hw/$name.json"
  "$umsim" compare "$sim" "$out/hw/$name.json" --json "$out/compare/$name.compare.json" >"$out/compare/$name.txt"
}
