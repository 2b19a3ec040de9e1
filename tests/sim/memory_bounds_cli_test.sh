#!/usr/bin/env bash
# Memory follows what a trace touches, not what it declares: huge allocations,
# huge GPU memories and huge footprints run in bounded memory or are refused
# with the cause named (never a bare std::bad_alloc). Each command runs under a
# 3 GiB address-space limit (ulimit -v), far below what sizing structures by the
# declared sizes would take.
set -uo pipefail
umsim="$1"
examples="$2"
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
limited() { (ulimit -v 3145728; "$@"); }
expect_ok() { limited "$@" >"$tmp/out" 2>"$tmp/err" || { fail "exit $? from: $*"; cat "$tmp/err"; }; }
expect_error() {  # expect_error "message fragment" command...
  local want="$1"; shift
  if limited "$@" >"$tmp/out" 2>"$tmp/err"; then fail "expected failure: $*"; return; fi
  grep -qF -- "$want" "$tmp/err" || { fail "missing '$want' in error of: $*"; cat "$tmp/err"; }
  grep -q "bad_alloc" "$tmp/err" && fail "bare std::bad_alloc from: $*"
}

# 1000 allocations of 64 TiB, each touched once at its end (29 KB of text).
{
  echo "umsim-trace 1"
  for i in $(seq 1 1000); do echo "alloc A$i 64TiB managed"; done
  echo "kernel k gpu=0"
  for i in $(seq 1 1000); do echo "  r A$i+68719476732KiB len=4KiB"; done
  echo "end"
} >"$tmp/huge.umt"
expect_ok "$umsim" trace stat "$tmp/huge.umt"
grep -q "1000" "$tmp/out" || fail "trace stat does not report the 1000 allocations"
# The model refuses the page metadata of so many pages, naming the allocation and the limit.
expect_error "allocation 'A1' of 64TiB needs" "$umsim" replay "$tmp/huge.umt"
expect_error "page metadata" "$umsim" replay "$tmp/huge.umt"
# A sweep sizes GPU memory from the footprint (trace stat) before replaying:
# half of 64 PiB is refused as a GPU size, 1 GiB reaches the metadata limit.
expect_error "more than the 4294967294 chunks per GPU the model addresses" \
  "$umsim" sweep "$tmp/huge.umt" --gpu-mem 50% -q -o "$tmp/sweep.jsonl"
expect_error "page metadata" "$umsim" sweep "$tmp/huge.umt" --gpu-mem 1GiB -q -o "$tmp/sweep.jsonl"

# Huge GPU memories: chunk records are made as chunks are used.
expect_ok "$umsim" replay "$examples/training_step.umt" --gpu-mem 256TiB
expect_ok "$umsim" replay "$examples/training_step.umt" --gpu-mem 128TiB --evict lru:granularity=64KiB
expect_error "more than the 4294967294 chunks per GPU the model addresses" \
  "$umsim" replay "$examples/training_step.umt" --gpu-mem 16383TiB
expect_error "more than the 4294967294 chunks per GPU the model addresses" \
  "$umsim" replay "$examples/training_step.umt" --gpu-mem 256TiB --evict lru:granularity=4KiB

# Huge generator footprints.
expect_error "parameter 'footprint': 16383TiB is more than the 128TiB" \
  "$umsim" trace gen random -p footprint=16383TiB -o "$tmp/gen.umtb"
[[ -e "$tmp/gen.umtb" ]] && fail "a refused trace gen left its output behind"
expect_error "parameter 'footprint': 16383TiB is more than the 128TiB" \
  "$umsim" trace gen training -p footprint=16383TiB -o "$tmp/gen.umtb"

if ((failures)); then
  echo "$failures failure(s)"
  exit 1
fi
echo "all memory-bound checks passed"
