#!/usr/bin/env bash
# Builds the fuzzers with clang-14 (libFuzzer + ASan + UBSan) and runs each for
# N seconds (default 60), starting from the saved corpus (seeds and past findings).
#   tools/fuzz/run_fuzzers.sh [SECONDS] [text|binary|engine|import ...]
# Targets: text and binary (the trace decoders), engine (fuzzed traces replayed
# through the model with invariant checking), import (the recorded-trace
# importers and the hardware profile loader).
# New inputs go to $FUZZ_OUT (default /tmp/umsim-fuzz)/<target>/corpus; crashes to
# $FUZZ_OUT/<target>/crash-*. Add a finding to tools/fuzz/corpus/<target>/found/
# once fixed, so that the corpus tests keep it fixed.
set -euo pipefail

seconds="${1:-60}"
shift || true
targets=("$@")
[[ ${#targets[@]} -gt 0 ]] || targets=(text binary engine import)

root="$(cd "$(dirname "$0")/../.." && pwd)"
out="${FUZZ_OUT:-/tmp/umsim-fuzz}"
cxx="${CXX_FUZZ:-clang++-14}"
command -v "$cxx" >/dev/null || {
  echo "run_fuzzers.sh: $cxx not found (apt-get install clang-14 libfuzzer-14-dev libclang-rt-14-dev)" >&2
  exit 1
}

flags=(-std=c++20 -O1 -g -fno-omit-frame-pointer -fsanitize=fuzzer,address,undefined
       -fno-sanitize-recover=undefined -I"$root")
# The library code: instrumented, no main (-fsanitize=fuzzer-no-link).
lib_flags=("${flags[@]/-fsanitize=fuzzer,address,undefined/-fsanitize=fuzzer-no-link,address,undefined}")

# Sources each target links (relative to the repository root).
trace_sources=(traces/*.cc io/atomic_output.cc io/descriptor_buffer.cc io/same_file.cc)
engine_sources=("${trace_sources[@]}" sim/*.cc policies/*.cc policies/*/*.cc)
import_sources=("${trace_sources[@]}" traces/importers/*.cc traces/generators/trace_emitter.cc
                traces/generators/page_touch_set.cc sim/profile.cc sim/link_model.cc)
# The corpus directory of each target (tools/fuzz/corpus/NAME).
declare -A corpus_of=([text]=text [binary]=binary [engine]=engine [import]=import)
declare -A fuzzer_of=([text]=text_decoder_fuzzer [binary]=binary_decoder_fuzzer
                      [engine]=engine_replay_fuzzer [import]=importer_profile_fuzzer)

compile() {  # compile SOURCE -> prints the object's path (kept while neither it nor a header it includes changed)
  local s=$1 o d
  o="$out/obj/$(echo "$s" | tr / _ | sed 's/\.cc$//').o"
  d="${o%.o}.d"
  # shellcheck disable=SC2046  # the dependency list splits into paths (none has a space)
  if [[ ! -e $o || ! -e $d || -n $(find $(sed -e 's/^[^:]*://' -e 's/\\$//' "$d") -newer "$o" 2>/dev/null) ]]; then
    "$cxx" "${lib_flags[@]}" -MMD -MF "$d" -c "$root/$s" -o "$o"
  fi
  echo "$o"
}

mkdir -p "$out/obj"
cd "$root"
for t in "${targets[@]}"; do
  fuzzer=${fuzzer_of[$t]:?unknown target $t (text, binary, engine, import)}
  case $t in
    engine) sources=("${engine_sources[@]}") ;;
    import) sources=("${import_sources[@]}") ;;
    *) sources=("${trace_sources[@]}") ;;
  esac
  objects=()
  for s in "${sources[@]}"; do
    [[ $s == *_main.cc ]] && continue
    objects+=("$(compile "$s")")
  done
  bin="$out/$t/$fuzzer"
  mkdir -p "$out/$t/corpus"
  echo "== building $bin" >&2
  "$cxx" "${flags[@]}" "$root/tools/fuzz/$fuzzer.cc" "${objects[@]}" -lzstd -llzma -lfmt -o "$bin"
  saved="$root/tools/fuzz/corpus/${corpus_of[$t]}"
  dirs=("$out/$t/corpus")
  [[ -d $saved ]] && dirs+=("$saved")
  [[ -d $saved/found ]] && dirs+=("$saved/found")
  echo "== fuzzing $t for ${seconds}s (corpus: ${dirs[*]})" >&2
  # New inputs go to the first directory; the saved ones are read only.
  (cd "$out/$t" && UMSIM_FUZZ_PROFILE="$root/profiles/h200-pcie5.toml" "./$fuzzer" -max_total_time="$seconds" \
     -max_len=65536 -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 "${dirs[@]}")
done
