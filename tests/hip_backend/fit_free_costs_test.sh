#!/usr/bin/env bash
# hip_backend/fit_free_costs.py on a hand-made diagnostic whose frees cost
# exactly 10000 ns a call and 500 ns a VA block on the GPU (two managed frees of
# CPU-held memory: 20000; one of 8 MiB prefetched to the GPU, four blocks:
# 12000; a free of device memory, left out), on a profile with the keys and on
# one without them, and its bad inputs.
set -uo pipefail
script=$1 umsim=$2 profile=$3
tmp=${TEST_TMPDIR:-$(mktemp -d)}
fail() { echo "FAIL: $*"; exit 1; }
run() { python3 "$script" "$@"; }
refused() {  # what, expected message, args...
  local what=$1 expected=$2; shift 2
  if run "$@" >"$tmp/log" 2>&1; then fail "accepted $what"; fi
  grep -q -- "$expected" "$tmp/log" || fail "$what: expected '$expected', got: $(cat "$tmp/log")"
}

d=$tmp/diag
mkdir -p "$d/traces"
printf 'umsim-trace 1\nalloc A 4MiB managed\nalloc B 2MiB managed\ncpu w A len=4MiB\nphase end\nfree A\nfree B\nend-of-trace\n' >"$d/traces/a_cpu.umt"
printf 'umsim-trace 1\nalloc A 8MiB managed\ncpu w A len=8MiB\nprefetch A len=8MiB to=gpu0 stream=1\nsync all\nphase end\nfree A\nend-of-trace\n' >"$d/traces/b_gpu.umt"
printf 'umsim-trace 1\nalloc D 2MiB device on=gpu0\nphase end\nfree D\nend-of-trace\n' >"$d/traces/c_device.umt"
printf 'umsim-trace 1\nalloc A 2MiB managed\nphase work\ncpu w A len=2MiB\nfree A\nend-of-trace\n' >"$d/traces/d_not_only_frees.umt"
python3 - "$d" <<'PY'
import json, sys
for name, t in (("a_cpu", 20000), ("b_gpu", 12000), ("c_device", 4000), ("d_not_only_frees", 99999)):
    for rep, delta in ((1, 0), (2, 300), (3, -300)):  # the median is t
        json.dump({"phases": [{"name": "main", "counters": {"time_ns": 1}},
                              {"name": "end", "counters": {"time_ns": t + delta}}]},
                  open(f"{sys.argv[1]}/{name}.r{rep}.json", "w"))
PY

cp "$profile" "$tmp/in.toml"
run "$tmp/in.toml" "$umsim" "$tmp/out.toml" "$d" >"$tmp/log" 2>&1 || { cat "$tmp/log"; fail "refused a good diagnostic"; }
grep -q '"free_call_cost_ns": 10000' "$tmp/log" || fail "call cost: $(cat "$tmp/log")"
grep -q '"free_gpu_block_cost_ns": 500' "$tmp/log" || fail "block cost: $(cat "$tmp/log")"
grep -q '"gpu_blocks": 4' "$tmp/log" || fail "b_gpu's blocks: $(cat "$tmp/log")"
grep -q 'c_device\|d_not_only' "$tmp/log" && fail "a device-only or mixed phase was used: $(cat "$tmp/log")"
grep -q '^free_call_cost = "10000ns" *# freeing managed memory' "$tmp/out.toml" || fail "call key not written with its comment"
grep -q '^free_gpu_block_cost = "500ns"' "$tmp/out.toml" || fail "block key not written"
diff <(grep -v '^free_' "$tmp/in.toml") <(grep -v '^free_' "$tmp/out.toml") || fail "other lines changed"
# A profile without the keys gets them in its [host] table.
grep -v '^free_' "$profile" >"$tmp/nokeys.toml"
run "$tmp/nokeys.toml" "$umsim" "$tmp/out2.toml" "$d" >"$tmp/log" 2>&1 || { cat "$tmp/log"; fail "refused a profile without the keys"; }
python3 - "$tmp/out2.toml" <<'PY' || fail "keys not added to [host]"
import sys, tomllib
host = tomllib.load(open(sys.argv[1], "rb"))["host"]
assert host["free_call_cost"] == "10000ns" and host["free_gpu_block_cost"] == "500ns", host
PY

# Bad inputs: each refused with a message naming what is wrong, nothing written.
rm -f "$tmp/out.toml"
mkdir -p "$tmp/empty"
refused "a folder without traces/" "not a diagnostic folder" "$tmp/in.toml" "$umsim" "$tmp/out.toml" "$tmp/empty"
mkdir -p "$tmp/one/traces"; cp "$d/traces/b_gpu.umt" "$tmp/one/traces/"; cp "$d"/b_gpu.r*.json "$tmp/one/"
refused "a single trace" "1 diagnostic trace(s) end in a phase of managed frees" "$tmp/in.toml" "$umsim" "$tmp/out.toml" "$tmp/one"
cp -r "$d" "$tmp/broken"; echo 'not json' >"$tmp/broken/a_cpu.r2.json"
refused "a broken replay" "a_cpu.r2.json: not a replay result with phase times" "$tmp/in.toml" "$umsim" "$tmp/out.toml" "$tmp/broken"
cp -r "$d" "$tmp/badtrace"; printf 'umsim-trace 1\nphase end\nfree X\nend-of-trace\n' >"$tmp/badtrace/traces/e_bad.umt"
cp "$d/a_cpu.r1.json" "$tmp/badtrace/e_bad.r1.json"
refused "a trace the simulator refuses" "e_bad.umt: the simulator refused it" "$tmp/in.toml" "$umsim" "$tmp/out.toml" "$tmp/badtrace"
printf 'x = 1\n' >"$tmp/nohost.toml"
refused "a profile without [host]" "no \[host\] table" "$tmp/nohost.toml" "$umsim" "$tmp/out.toml" "$d"
refused "OUT naming an input" "names an input" "$tmp/in.toml" "$umsim" "$tmp/in.toml" "$d"
cmp -s "$tmp/in.toml" "$profile" || fail "the input was changed"
[[ -e $tmp/out.toml ]] && fail "an output was written on error"
refused "no folders" "usage:" "$tmp/in.toml" "$umsim" "$tmp/out.toml"
echo PASS
