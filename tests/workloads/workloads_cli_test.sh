#!/usr/bin/env bash
# End to end through `umsim`: every generator (as --list names them) at a small
# size produces a trace that `umsim trace check` passes and `umsim replay`
# replays, in both encodings; the importers turn the samples into the expected
# traces; bad command lines and bad inputs fail with a message and non-zero exit.
set -uo pipefail

umsim="$1"
samples=tests/workloads/samples
expected=tests/workloads/expected
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
failures=0

fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}

# Small parameters per generator (defaults otherwise).
small_params() {
  case "$1" in
    gemm) echo "footprint=3MiB,tile=128" ;;
    training|data_parallel) echo "footprint=4MiB,iterations=2" ;;
    llm_decode) echo "footprint=2MiB,iterations=3,prompt=8" ;;
    pipeline) echo "footprint=256KiB,iterations=4" ;;
    *) echo "footprint=2MiB,iterations=2" ;;
  esac
}

has_replay=0
"$umsim" replay --help >/dev/null 2>&1 && has_replay=1
[[ $has_replay == 1 ]] || echo "NOTE: this umsim has no replay command; replays skipped" >&2

# 1. --list shows every generator with its parameters.
"$umsim" trace gen --list >"$tmp/list.txt" || fail "trace gen --list"
generators=$(grep -E '^[a-z_0-9]+$' "$tmp/list.txt")
count=$(echo "$generators" | wc -l)
[[ $count -ge 12 ]] || fail "--list shows $count generators, expected at least 12"
for g in streaming random strided stencil2d stencil3d gemm bfs hashjoin training llm_decode pipeline data_parallel; do
  grep -qx "$g" <<<"$generators" || fail "--list lacks $g"  # (a pipe into grep -q can fail with SIGPIPE under pipefail)
done
grep -q "footprint" "$tmp/list.txt" || fail "--list shows no parameters"

# 2. Every generator and hint variant: gen -> check -> replay (text and binary).
for g in $generators; do
  variants=$(grep -A30 -x "$g" "$tmp/list.txt" | grep -m1 -E '^ +hints ' | sed -E 's/.*hint variant: //' |
             tr '|' '\n' | awk '{print $1}')
  [[ -n $variants ]] || fail "$g lists no hint variants"
  for h in $variants; do
    for ext in umt umtb; do
      out="$tmp/$g.$h.$ext"
      "$umsim" trace gen "$g" -p "$(small_params "$g")" -p "hints=$h" -o "$out" >"$tmp/gen.out" 2>&1 ||
        { fail "gen $g hints=$h: $(cat "$tmp/gen.out")"; continue; }
      "$umsim" trace check "$out" >"$tmp/check.out" 2>&1 || fail "check $g hints=$h ($ext): $(tail -3 "$tmp/check.out")"
      grep -q ", 0 errors, 0 warnings$" "$tmp/check.out" || fail "check $g hints=$h ($ext): $(tail -3 "$tmp/check.out")"
      if [[ $has_replay == 1 && $ext == umt ]]; then
        "$umsim" replay --gpus 2 -q "$out" --json "$tmp/r.json" >"$tmp/replay.out" 2>&1 ||
          fail "replay $g hints=$h: $(tail -3 "$tmp/replay.out")"
      fi
    done
  done
done

# 3. Same parameters, same bytes; a different seed, a different trace.
"$umsim" trace gen bfs -p footprint=1MiB -p seed=5 -o "$tmp/a.umt" >/dev/null
"$umsim" trace gen bfs -p footprint=1MiB,seed=5 -o "$tmp/b.umt" >/dev/null
cmp -s "$tmp/a.umt" "$tmp/b.umt" || fail "bfs is not deterministic"
"$umsim" trace gen bfs -p footprint=1MiB -p seed=6 -o "$tmp/c.umt" >/dev/null
cmp -s "$tmp/a.umt" "$tmp/c.umt" && fail "bfs ignores its seed"

# 4. Importers: samples -> expected traces, which check and replay.
import_and_compare() {  # NAME FORMAT INPUT [OPTIONS...]
  local name=$1 format=$2 input=$3
  shift 3
  "$umsim" trace import "$format" "$input" "$@" -o "$tmp/$name.umt" >"$tmp/import.out" 2>&1 ||
    { fail "import $name: $(cat "$tmp/import.out")"; return; }
  cmp -s "$expected/$name.umt" "$tmp/$name.umt" || fail "import $name differs: $(diff "$expected/$name.umt" "$tmp/$name.umt")"
  "$umsim" trace check "$tmp/$name.umt" >/dev/null 2>&1 || fail "check of imported $name"
  if [[ $has_replay == 1 ]]; then
    "$umsim" replay --gpus 2 -q "$tmp/$name.umt" >"$tmp/replay.out" 2>&1 ||
      fail "replay of imported $name: $(tail -3 "$tmp/replay.out")"
  fi
}
import_and_compare vecadd_nvbit_inferred nvbit "$samples/vecadd.nvbit.txt"
import_and_compare vecadd_nvbit_allocs nvbit "$samples/vecadd.nvbit.txt" --allocs "$samples/vecadd.allocs"
import_and_compare saxpy_accelsim accelsim "$samples/accelsim/kernelslist.g"
import_and_compare accesses_csv csv "$samples/accesses.csv" --header --columns time=0,op=1,addr=2,size=3,kernel=4,proc=5,stream=6
# NVBit 1.5.5's numbering and xz-compressed Accel-Sim kernels import the same accesses.
"$umsim" trace import nvbit "$samples/vecadd.nvbit155.txt" -o "$tmp/v155.umt" >/dev/null 2>&1 || fail "import of NVBit 1.5.5 output"
diff <(grep -v '^# imported' "$tmp/v155.umt") <(grep -v '^# imported' "$expected/vecadd_nvbit_inferred.umt") >/dev/null ||
  fail "NVBit 1.5.5 output imports differently"
"$umsim" trace import accelsim "$samples/accelsim_xz/kernelslist.g" -o "$tmp/xz.umt" >/dev/null 2>&1 || fail "import of .traceg.xz"
diff <(grep -v '^# imported' "$tmp/xz.umt") <(grep -v '^# imported' "$expected/saxpy_accelsim.umt") >/dev/null ||
  fail "xz-compressed Accel-Sim kernels import differently"

# 5. Bad command lines and inputs: non-zero exit, the expected message, no output file left behind.
expect_error() {  # MESSAGE COMMAND...
  local message=$1
  shift
  if "$@" >"$tmp/err.out" 2>&1; then
    fail "succeeded but should fail: $*"
  elif ! grep -qF -- "$message" "$tmp/err.out"; then
    fail "$* printed '$(cat "$tmp/err.out")', expected '$message'"
  fi
}
expect_error "unknown generator 'nope' (known: bfs" "$umsim" trace gen nope -o "$tmp/x.umt"
expect_error "generator 'random': unknown parameter 'sead'" "$umsim" trace gen random -p sead=1 -o "$tmp/x.umt"
expect_error "parameter 'write_fraction': expected a number in 0..1" "$umsim" trace gen random -p write_fraction=2 -o "$tmp/x.umt"
[[ -e $tmp/x.umt ]] && fail "a failed gen left $tmp/x.umt behind"
expect_error "an output file is required" "$umsim" trace gen streaming
printf 'CTA 0,0,0 - warp 0 - LDG.E - 0x7f0000001000\n' >"$tmp/bad.nvbit"
expect_error "bad.nvbit:1: memory access before any LAUNCH line" "$umsim" trace import nvbit "$tmp/bad.nvbit" -o "$tmp/y.umt"
[[ -e $tmp/y.umt ]] && fail "a failed import left $tmp/y.umt behind"
expect_error "csv: --columns must map at least op and addr" "$umsim" trace import csv "$samples/accesses.csv" --columns op=1 -o "$tmp/y.umt"
expect_error "missing.txt: cannot open input" "$umsim" trace import nvbit "$tmp/missing.txt" -o "$tmp/y.umt"
# --gpu=-1 once turned every GPU access into a CPU access and exited 0: a usage error now (exit 2).
"$umsim" trace import nvbit "$samples/vecadd.nvbit.txt" --gpu=-1 -o "$tmp/y.umt" >"$tmp/err.out" 2>&1
status=$?
[[ $status == 2 ]] || fail "--gpu=-1 exited $status, expected 2"
grep -qF -- "--gpu: Value -1 not in range 0 to 14" "$tmp/err.out" || fail "--gpu=-1 printed '$(cat "$tmp/err.out")'"
[[ -e $tmp/y.umt ]] && fail "a refused import left $tmp/y.umt behind"
expect_error "format: pin not in" "$umsim" trace import pin "$samples/accesses.csv" -o "$tmp/y.umt"

if [[ $failures -gt 0 ]]; then
  echo "$failures failure(s)" >&2
  exit 1
fi
echo "workloads CLI: all passed"
