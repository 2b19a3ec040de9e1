#!/usr/bin/env bash
# Builds the trace decoder fuzzers with clang-14 (libFuzzer + ASan + UBSan) and
# runs each for N seconds (default 60) on a copy of the seed corpus.
#   tools/fuzz/run_fuzzers.sh [SECONDS] [text|binary ...]
# New inputs go to $FUZZ_OUT (default /tmp/umsim-fuzz/<target>/corpus); crashes to
# /tmp/umsim-fuzz/<target>/crash-*. Add a finding to tools/fuzz/corpus/<target>/
# once fixed, so that the corpus tests keep it fixed.
set -euo pipefail

seconds="${1:-60}"
shift || true
targets=("$@")
[[ ${#targets[@]} -gt 0 ]] || targets=(text binary)

root="$(cd "$(dirname "$0")/../.." && pwd)"
out="${FUZZ_OUT:-/tmp/umsim-fuzz}"
cxx="${CXX_FUZZ:-clang++-14}"
command -v "$cxx" >/dev/null || {
  echo "run_fuzzers.sh: $cxx not found (apt-get install clang-14 libfuzzer-14-dev libclang-rt-14-dev)" >&2
  exit 1
}

flags=(-std=c++20 -O1 -g -fno-omit-frame-pointer -fsanitize=fuzzer,address,undefined
       -fno-sanitize-recover=undefined -I"$root")
sources=(
  traces/binary_reader.cc traces/binary_writer.cc traces/byte_io.cc traces/event.cc
  traces/event_validation.cc traces/name_table.cc traces/open_trace.cc traces/text_reader.cc
  traces/text_writer.cc traces/trace_names.cc traces/units.cc traces/trace_checker.cc
)

mkdir -p "$out/obj"
objects=()
for s in "${sources[@]}"; do
  o="$out/obj/$(basename "$s" .cc).o"
  # -fsanitize=fuzzer-no-link for the library code: instrumented, no main.
  "$cxx" "${flags[@]/-fsanitize=fuzzer,address,undefined/-fsanitize=fuzzer-no-link,address,undefined}" \
    -c "$root/$s" -o "$o"
  objects+=("$o")
done

for t in "${targets[@]}"; do
  bin="$out/$t/${t}_decoder_fuzzer"
  mkdir -p "$out/$t/corpus"
  echo "== building $bin" >&2
  "$cxx" "${flags[@]}" "$root/tools/fuzz/${t}_decoder_fuzzer.cc" "${objects[@]}" -lzstd -o "$bin"
  cp -n "$root/tools/fuzz/corpus/$t/"* "$out/$t/corpus/" 2>/dev/null || true
  echo "== fuzzing $t for ${seconds}s" >&2
  (cd "$out/$t" && "./${t}_decoder_fuzzer" -max_total_time="$seconds" -max_len=65536 -timeout=10 \
     -rss_limit_mb=2048 -print_final_stats=1 corpus)
done
