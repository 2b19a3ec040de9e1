#!/usr/bin/env bash
# umsim-hip replay on a fake device API (no GPU; fake_hip_runtime.cc logs each
# runtime call): a trace over the safety limit is refused with exit status 3
# before any allocation, counting the backend's own access list; a trace
# within the limit goes on to allocate (so the fake really is the runtime).
set -uo pipefail
umsim_hip=$(realpath "$1")  # absolute: the test runs in its temporary directory
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
cd "$tmp" || exit 1
export UMSIM_FAKE_FREE_BYTES=$((1 << 30))  # limit: half, 512 MiB

printf 'umsim-trace 1\nalloc A 768MiB managed\nkernel k gpu=0\n  r A len=4KiB\nend\nfree A\n' >big.umt
printf 'umsim-trace 1\nalloc A 500MiB managed\nkernel k gpu=0\n  r A len=500MiB count=100\nend\nfree A\n' >list.umt
printf 'umsim-trace 1\nalloc A 4MiB managed\nkernel k gpu=0\n  r A len=4MiB\nend\nfree A\n' >small.umt

"$umsim_hip" replay big.umt --json big.json >out.txt 2>err.txt
status=$?
[[ $status -eq 3 ]] || fail "big.umt: exit $status, expected 3: $(cat err.txt)"
grep -qxF "umsim-hip: big.umt: refusing to replay: managed footprint 0.75 GiB (+ 0.00 GiB device memory, + 0.00 GiB for the backend's access list) exceeds 50% of the GPU's free memory (1.00 GiB of 2.00 GiB free, limit 0.50 GiB); the backend never oversubscribes a real GPU: study oversubscription with \`umsim replay\` instead" err.txt ||
  fail "big.umt: refusal message: $(cat err.txt)"
grep -q "Malloc" err.txt && fail "big.umt: allocated before refusing: $(cat err.txt)"
[[ -e big.json ]] && fail "big.umt: a result was written"

# 500 MiB fits the 512 MiB limit alone; 100 passes over 128000 pages add a 97.7 MiB access list.
"$umsim_hip" replay list.umt >out.txt 2>err.txt
status=$?
[[ $status -eq 3 ]] || fail "list.umt: exit $status, expected 3: $(cat err.txt)"
grep -qF "managed footprint 0.49 GiB (+ 0.00 GiB device memory, + 0.10 GiB for the backend's access list) exceeds 50%" err.txt ||
  fail "list.umt: refusal message: $(cat err.txt)"
grep -q "Malloc" err.txt && fail "list.umt: allocated before refusing: $(cat err.txt)"

# Within the limit the backend goes on to allocate (the fake refuses that).
"$umsim_hip" replay small.umt >out.txt 2>err.txt
status=$?
[[ $status -eq 1 ]] || fail "small.umt: exit $status, expected 1: $(cat err.txt)"
grep -qx "fake hip: hipMalloc" err.txt || fail "small.umt: no allocation reached: $(cat err.txt)"

# The per-process host probe: both options or neither; outputs never name an
# input or each other; a bad probe trace is refused before any GPU work.
printf 'umsim-trace 1\nalloc A 4MiB managed\nkernel k gpu=0\n  q A len=4MiB\nend\n' >bad_probe.umt
"$umsim_hip" replay small.umt --host-probe small.umt >out.txt 2>err.txt
status=$?
[[ $status -eq 1 ]] || fail "--host-probe alone: exit $status, expected 1"
grep -qF "umsim-hip: --host-probe and --host-probe-json go together" err.txt || fail "--host-probe alone: $(cat err.txt)"
cp small.umt keep.umt
"$umsim_hip" replay small.umt --json keep.umt >out.txt 2>err.txt
status=$?
[[ $status -eq 1 ]] || fail "--json naming another input's path: exit $status, expected 1"
"$umsim_hip" replay keep.umt --json ./keep.umt >out.txt 2>err.txt
status=$?
[[ $status -eq 1 ]] || fail "--json naming the trace: exit $status, expected 1"
grep -qF "umsim-hip: output ./keep.umt is the input keep.umt (refused: it would be overwritten)" err.txt ||
  fail "--json naming the trace: $(cat err.txt)"
cmp -s small.umt keep.umt || fail "--json naming the trace: the trace was changed"
"$umsim_hip" replay small.umt --host-probe keep.umt --host-probe-json keep.umt >out.txt 2>err.txt
status=$?
[[ $status -eq 1 ]] || fail "--host-probe-json naming the probe: exit $status, expected 1"
grep -qF "is the input keep.umt (refused" err.txt || fail "--host-probe-json naming the probe: $(cat err.txt)"
"$umsim_hip" replay small.umt --json r.json --host-probe keep.umt --host-probe-json ./r.json >out.txt 2>err.txt
status=$?
[[ $status -eq 1 ]] || fail "the two outputs the same: exit $status, expected 1"
grep -qF "umsim-hip: two outputs name the same file r.json" err.txt || fail "the two outputs the same: $(cat err.txt)"
"$umsim_hip" replay small.umt --json r.json --um-records ./r.json >out.txt 2>err.txt
status=$?
[[ $status -eq 1 ]] || fail "--um-records naming --json's file: exit $status, expected 1"
grep -qF "umsim-hip: two outputs name the same file r.json" err.txt || fail "--um-records naming --json's file: $(cat err.txt)"
"$umsim_hip" replay keep.umt --um-records keep.umt >out.txt 2>err.txt
status=$?
[[ $status -eq 1 ]] || fail "--um-records naming the trace: exit $status, expected 1"
grep -qF "is the input keep.umt (refused" err.txt || fail "--um-records naming the trace: $(cat err.txt)"
cmp -s small.umt keep.umt || fail "--um-records naming the trace: the trace was changed"
"$umsim_hip" replay small.umt --no-counters --um-records u.csv >out.txt 2>err.txt
status=$?
[[ $status -eq 1 ]] || fail "--um-records without counters: exit $status, expected 1"
grep -qF "umsim-hip: --um-records needs the counting pass (drop --no-counters)" err.txt || fail "--um-records without counters: $(cat err.txt)"
grep -q "Malloc" err.txt && fail "--um-records without counters: allocated before refusing: $(cat err.txt)"
"$umsim_hip" replay small.umt --json r.json --host-probe bad_probe.umt --host-probe-json p.json >out.txt 2>err.txt
status=$?
[[ $status -eq 1 ]] || fail "bad probe trace: exit $status, expected 1"
grep -qF "bad_probe.umt:4" err.txt || fail "bad probe trace: no file and line: $(cat err.txt)"
grep -q "Malloc" err.txt && fail "bad probe trace: allocated before refusing: $(cat err.txt)"
[[ -e r.json || -e p.json ]] && fail "bad probe trace: a result was written"

# Standard output is an output: a full disk behind it fails the command with the reason.
"$umsim_hip" replay --help >/dev/full 2>err.txt
status=$?
[[ $status -eq 1 ]] || fail "--help > /dev/full: exit $status, expected 1"
grep -qxF "umsim-hip: cannot write the standard output: No space left on device" err.txt ||
  fail "--help > /dev/full: $(cat err.txt)"
"$umsim_hip" replay --help >out.txt 2>err.txt || fail "--help: exit $?"
grep -q "umsim-hip replay TRACE" out.txt || fail "--help printed no usage: $(cat out.txt)"

if [[ $failures -ne 0 ]]; then
  echo "$failures failures"
  exit 1
fi
echo "umsim-hip on the fake device: refusals before allocation and standard output errors checked"
