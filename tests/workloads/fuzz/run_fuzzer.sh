#!/usr/bin/env bash
# Builds the workload-input fuzzer with clang-14 (libFuzzer, ASan, UBSan) and
# runs it for SECONDS (default 60) from the checked-in corpus:
#   tests/workloads/fuzz/run_fuzzer.sh [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/../../.."
seconds=${1:-60}
out=${TMPDIR:-/tmp}/umsim-workload-fuzz
mkdir -p "$out/corpus"
cp tests/workloads/fuzz/corpus/* "$out/corpus/"
clang++-14 -std=c++20 -O1 -g -fsanitize=fuzzer,address,undefined -I. -DFMT_HEADER_ONLY \
  tests/workloads/fuzz/workload_input_fuzzer.cc traces/importers/*.cc traces/generators/trace_emitter.cc \
  traces/generators/page_touch_set.cc traces/generators/trace_summary.cc hip_backend/recorder/record_log.cc \
  hip_backend/recorder/record_to_trace.cc traces/units.cc traces/event.cc \
  -o "$out/workload_input_fuzzer"
"$out/workload_input_fuzzer" -max_total_time="$seconds" -max_len=4096 "$out/corpus"
