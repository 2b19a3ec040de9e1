#!/usr/bin/env bash
# The command line's bad-input suite (cases in bad_input_cases.txt): every case runs one umsim command on a bad
# input (impossible sizes, overflowing offsets, unbounded work, bad results for
# compare, contradictory options, full disks, outputs that name inputs or that
# must not be destroyed) and asserts its exact output, its exit status, and that
# no file in the working directory was created, changed or removed.
set -uo pipefail

umsim="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
cases_file="$(cd "$(dirname "$2")" && pwd)/$(basename "$2")"
export umsim
work="${TEST_TMPDIR:-$(mktemp -d)}/bad_input_cli"
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
failures=0
cases=0

# Inputs.
printf 'umsim-trace 1\nalloc A 4KiB managed\nkernel k gpu=0\n  r A len=4KiB\nend\nfree A\nend-of-trace\n' >good.umt
printf 'umsim-trace 1\nalloc A 18446744073709551615 managed\ncpu r A+0x7fffffffffffffff len=4KiB\nfree A\nend-of-trace\n' >huge.umt
printf 'umsim-trace 1\nalloc A 18446744073709547520 managed\nfree A\nend-of-trace\n' >largest.umt
printf 'umsim-trace 1\nalloc A 1MiB managed\ncpu r A+4KiB len=0\nfree A\nend-of-trace\n' >zero_cpu.umt
printf 'umsim-trace 1\nalloc A 1MiB managed\nkernel k gpu=0\n  w A len=0\nend\nfree A\nend-of-trace\n' >zero_gpu.umt
printf 'umsim-trace 1\nalloc A 1MiB managed\ncpu r A+0xffffffffffffffff len=2\nfree A\nend-of-trace\n' >wrap.umt
printf 'umsim-trace 1\nalloc A 1MiB managed\nprefetch A+0xfffffffffffff000 len=8KiB to=gpu0\nfree A\nend-of-trace\n' >wrap_prefetch.umt
printf 'umsim-trace 1\nalloc A 1MiB managed\ncpu r A+0x8000000000000000 len=4KiB\nfree A\nend-of-trace\n' >past_end.umt
printf 'umsim-trace 1\nalloc A 1MiB managed\nprefetch A+0x100001000 to=gpu0\nfree A\nend-of-trace\n' >past_end_rest.umt
printf 'umsim-trace 1\nkernel k gpu=0 stream=1048576\nend\nend-of-trace\n' >stream.umt
printf 'umsim-trace 1\nsync stream=4294967295\nend-of-trace\n' >sync_stream.umt
printf 'umsim-trace 1\nalloc A 1GiB managed\nkernel k gpu=0\n  r A len=1GiB count=4294967295\nend\nfree A\nend-of-trace\n' >forever.umt
printf 'umsim-trace 1\nalloc A 1GiB managed\nkernel k gpu=0\n  r A len=1GiB count=400000\nend\nfree A\nend-of-trace\n' >long.umt
printf 'umsim-trace 1\nalloc A 4KiB managed\ncpu r B len=4KiB\nend-of-trace\n' >unknown_alloc.umt
printf 'umsim-trace 1\nalloc A 4KiB managed\nfree A\n' >cut.umt  # complete but for the end record
printf 'umsim-trace 1\nalloc A 4KiB managed\nend-of-trace\nfree A\n' >after_end.umt
printf 'umsim-trace 1\nalloc A 4KiB managed\nfree A\nend-of-trace all\n' >end_fields.umt
# A comment line the text reader takes (under 1 MiB) but the writers refuse (over 1 MiB - 64 bytes).
{ printf 'umsim-trace 1\n# '; head -c 1048560 /dev/zero | tr '\0' x; printf '\nend-of-trace\n'; } >long_comment.umt
printf '\x89UMTB\r\n\x1a\x01\x00\x00\x00\x05\x00\x00\x00bogus' >bad.umtb
printf 'time,op,addr,size\n0,r,0x1000,4\n' >acc.csv
printf 'A 0x1000 4096\n' >allocs.txt
result() {  # result FILE TIME: a minimal umsim-result-1
  printf '{"schema": "umsim-result-1", "producer": "x", "trace": "t", "total": {"time_ns": %s}, "kernels": [], "phases": []}\n' "$2" >"$1"
}
result sim.json 100
result hw.json 120
result neg.json -5
result big.json 18446744073709551616
printf '{"schema": "umsim-result-1", "total": {}, "kernels": [{"name": "k", "start_ns": -1}]}\n' >neg_start.json
printf '{"schema": "umsim-result-1", "total": {}, "kernels": [{"name": "k", "gpu": "zero"}]}\n' >gpu_string.json
printf '{"schema": "umsim-result-1", "total": {"time_ns": 1.5}}\n' >fraction.json
printf '{"schema": "umsim-result-1"' >cut.json
printf 'previous result\n' >keep.csv
printf 'previous result\n' >keep.json
printf 'previous trace\n' >keep.umt
printf 'previous trace\n' >keep.umtb
ln good.umt hardlink.umt
ln -s good.umt symlink.umt
mkdir -p subdir

# The state every case must leave as it found: names, types, link targets, contents.
snapshot() { find . -mindepth 1 -printf '%p %y %l\n' | sort; find . -type f -print0 | sort -z | xargs -0 sha256sum; }
umsim() { "$umsim" "$@"; }
export -f umsim

# Each case: '=== NAME | STATUS | SHELL COMMAND' then the exact expected output
# (stdout and stderr together) up to the next '==='. RECORD=1 prints the cases
# with what the commands print now instead of checking.
run_case() {
  local name=$1 want_status=$2 command=$3 want=$4 before after got status
  cases=$((cases + 1))
  before=$(snapshot)
  got=$(bash -c "$command" 2>&1 </dev/null)
  status=$?
  after=$(snapshot)
  if [[ -n ${RECORD:-} ]]; then
    printf '=== %s | %s | %s\n%s\n' "$name" "$status" "$command" "$got"
    return
  fi
  [[ $status -eq $want_status ]] || { echo "FAIL $name: exit $status, expected $want_status: $got"; failures=$((failures + 1)); }
  [[ $got == "$want" ]] || { echo "FAIL $name: output differs (-expected +got)"; diff <(echo "$want") <(echo "$got"); failures=$((failures + 1)); }
  [[ $before == "$after" ]] || { echo "FAIL $name: files created, changed or removed"; diff <(echo "$before") <(echo "$after"); failures=$((failures + 1)); }
  [[ -c /dev/null && -c /dev/full ]] || { echo "FAIL $name: a device node was replaced"; exit 1; }
}

name="" status="" command="" expected="" have_case=""
while IFS= read -r line || [[ -n $line ]]; do
  if [[ $line == "=== "* ]]; then
    [[ -n $have_case ]] && run_case "$name" "$status" "$command" "$expected"
    IFS='|' read -r name status command <<<"${line#=== }"
    name=$(echo $name) status=$(echo $status) command=${command# }
    expected="" have_case=1 first=1
  elif [[ -n $have_case ]]; then
    if [[ -n $first ]]; then expected=$line first=""; else expected+=$'\n'$line; fi
  fi
done <"$cases_file"
[[ -n $have_case ]] && run_case "$name" "$status" "$command" "$expected"

[[ -n ${RECORD:-} ]] && exit 0
[[ $cases -ge 60 ]] || { echo "FAIL: only $cases cases (at least 60)"; failures=$((failures + 1)); }
if [[ $failures -ne 0 ]]; then
  echo "$failures failures in $cases cases"
  exit 1
fi
echo "$cases bad-input cases passed"
