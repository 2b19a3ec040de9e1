#!/usr/bin/env bash
# End-to-end test of `umsim replay`, `umsim profiles` and `umsim demo`.
set -uo pipefail
umsim="$1"
examples="$2"
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
expect_ok() { "$@" >"$tmp/out" 2>"$tmp/err" || { fail "exit $? from: $*"; cat "$tmp/err"; }; }
expect_error() {  # expect_error "message fragment" command...
  local want="$1"; shift
  if "$@" >"$tmp/out" 2>"$tmp/err"; then fail "expected failure: $*"; return; fi
  grep -qF -- "$want" "$tmp/err" || { fail "missing '$want' in error of: $*"; cat "$tmp/err"; }
}

# replay: summary table, JSON with resolved config, CSV series; byte-identical reruns.
expect_ok "$umsim" replay "$examples/training_step.umt" --json "$tmp/a.json" --events "$tmp/a.csv" --check-invariants
grep -q "^total " "$tmp/out" || fail "no total row in the summary"
grep -q '"schema": "umsim-result-1"' "$tmp/a.json" || fail "no schema in JSON"
grep -q '"profile_source"' "$tmp/a.json" || fail "no resolved profile in JSON"
grep -q '"prefetch": {' "$tmp/a.json" || fail "no resolved policies in JSON"
head -1 "$tmp/a.csv" | grep -q "^kind,name,gpu,start_ns,end_ns,time_ns" || fail "bad CSV header"
grep -q "^kernel," "$tmp/a.csv" || fail "no kernel rows in CSV"
expect_ok "$umsim" replay "$examples/training_step.umt" --json "$tmp/b.json" --events "$tmp/b.csv" --check-invariants -q
cmp -s "$tmp/a.json" "$tmp/b.json" || fail "JSON differs between two runs"
cmp -s "$tmp/a.csv" "$tmp/b.csv" || fail "CSV differs between two runs"
[[ -s "$tmp/out" ]] && fail "--quiet printed something"

# Options change the outcome as they should.
expect_ok "$umsim" replay "$examples/training_step.umt" --gpu-mem 64MiB --evict lru --prefetch none --json "$tmp/c.json"
grep -q '"gpu_memory_bytes": 67108864' "$tmp/c.json" || fail "--gpu-mem not in the resolved config"
grep -q '"name": "lru"' "$tmp/c.json" || fail "--evict lru not in the resolved config"
expect_ok "$umsim" replay "$examples/multi_gpu.umt" --gpus 2 --vendor amd-xnack-on
expect_ok "$umsim" replay "$examples/cpu_gpu_cpu.umt" --vendor amd-xnack-off
expect_ok "$umsim" replay "$examples/alloc_kinds.umt" --profile profiles/h200-pcie5.toml
# --sync-at-phases (the HIP backend's phase semantics): a marker holds the host
# until the streams are done, so the CPU's writes after it no longer overlap the
# kernel launched before it, and the replay runs longer.
printf 'umsim-trace 1\nalloc A 4MiB managed\nalloc B 64MiB managed\nkernel k gpu=0 stream=1 compute=5ms\n  r A len=4MiB\nend\nphase after\ncpu w B len=64MiB\nend-of-trace\n' >"$tmp/marker.umt"
expect_ok "$umsim" replay "$tmp/marker.umt" --json "$tmp/label.json"
expect_ok "$umsim" replay "$tmp/marker.umt" --sync-at-phases --json "$tmp/synced.json"
grep -q '"sync_at_phases": true' "$tmp/synced.json" || fail "--sync-at-phases not in the resolved config"
grep -q '"sync_at_phases"' "$tmp/label.json" && fail "sync_at_phases in the config without the flag"
total_ns() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["total"]["time_ns"])' "$1"; }
(( $(total_ns "$tmp/synced.json") > $(total_ns "$tmp/label.json") )) ||
  fail "--sync-at-phases did not hold the host at the marker"
# --streams-created-at-first-use (results recorded before session 103): with
# the H200 profile a memset on stream 0 then a kernel on stream 1 holds stream
# 1's creation (host.stream_create_cost, 262615 ns) in the kernel's phase.
printf 'umsim-trace 2\nalloc A 64MiB managed\nphase memset\nmemset A len=64MiB gpu=0\nphase kernel\nkernel k gpu=0 stream=1\n  w A len=64MiB\nend\nsync all\nend-of-trace\n' >"$tmp/streams.umt"
expect_ok "$umsim" replay "$tmp/streams.umt" --profile profiles/h200-pcie5.toml --sync-at-phases --json "$tmp/made.json"
expect_ok "$umsim" replay "$tmp/streams.umt" --profile profiles/h200-pcie5.toml --sync-at-phases \
  --streams-created-at-first-use --json "$tmp/lazy.json"
grep -q '"created_before_the_timing": 0' "$tmp/lazy.json" || fail "--streams-created-at-first-use not in the resolved config"
phase_ns() { python3 -c 'import json,sys; print([p for p in json.load(open(sys.argv[1]))["phases"] if p["name"] == "kernel"][0]["counters"]["time_ns"])' "$1"; }
(( $(phase_ns "$tmp/lazy.json") - $(phase_ns "$tmp/made.json") == 262615 )) ||
  fail "--streams-created-at-first-use: the kernel's phase did not hold the stream's creation"

# Bad input: clear messages, non-zero exit.
expect_error "has 1 GPU(s)" "$umsim" replay "$examples/multi_gpu.umt"
expect_error "unknown profile 'nope'" "$umsim" replay "$examples/training_step.umt" --profile nope
expect_error "unknown prefetch policy 'bogus'" "$umsim" replay "$examples/training_step.umt" --prefetch bogus
expect_error "unknown vendor 'intel'" "$umsim" replay "$examples/training_step.umt" --vendor intel
expect_error "--gpu-mem" "$umsim" replay "$examples/training_step.umt" --gpu-mem 12XB
expect_error "cannot open" "$umsim" replay "$tmp/missing.umt"
printf 'umsim-trace 1\nalloc w 4GiB device on=gpu0\n' >"$tmp/dev.umt"
expect_error "dev.umt:2: device allocation 'w' needs 4GiB on gpu0, but gpu0 has 2MiB" "$umsim" replay "$tmp/dev.umt" --gpu-mem 2MiB
printf 'name = "x"\n' >"$tmp/bad.toml"
expect_error "bad.toml: missing key 'description'" "$umsim" replay "$examples/training_step.umt" --profile "$tmp/bad.toml"

# profiles: the listing and a file argument.
expect_ok "$umsim" profiles
grep -q "^h200-pcie5 " "$tmp/out" || fail "h200-pcie5 not listed"
expect_ok "$umsim" profiles --json - h200-pcie5
grep -q '"batch_size": 256' "$tmp/out" || fail "profiles --json lacks batch_size"
printf 'bogus = 1\n' >"$tmp/bad2.toml"
expect_error "bad2.toml:1: unknown key 'bogus'" "$umsim" profiles "$tmp/bad2.toml"

# demo: all scenarios, and the prefetch hint removes every fault.
expect_ok "$umsim" demo --size 256MiB
for s in "no prefetcher" "driver prefetcher" "prefetch hint" "oversubscribed" "zero-copy"; do
  grep -q "$s" "$tmp/out" || fail "demo lacks scenario '$s'"
done
grep "prefetch hint before kernels" "$tmp/out" | grep -Eq " 0 +0 " || fail "prefetch hint scenario still faults"
expect_error "--size" "$umsim" demo --size 1MiB
# demo's training section: every hint variant and both oversubscription levels under FIFO and LRU;
# the prefetch hint removes faults, oversubscription evicts and a fitting loop does not.
expect_ok "$umsim" demo --size 64MiB
for s in "no hints" "prefetch batch" "AccessedBy gpu0" "ReadMostly" "125% oversubscribed, driver FIFO" \
         "125% oversubscribed, LRU" "150% oversubscribed, driver FIFO" "150% oversubscribed, LRU"; do
  grep -q "$s" "$tmp/out" || fail "demo lacks training case '$s'"
done
faults() { grep "^$1" "$tmp/out" | awk '{for (i = 1; i <= NF; ++i) if ($i ~ /^[0-9]+$/) { print $i; exit }}'; }
evicted() { grep "^$1" "$tmp/out" | awk '{print $(NF-1)}'; }
(( $(faults "prefetch batch") < $(faults "no hints") )) || fail "training prefetch hint does not reduce faults"
[[ $(evicted "no hints") == 0 ]] || fail "fitting training loop evicts"
(( $(evicted "150% oversubscribed, driver FIFO") > 0 )) || fail "150% oversubscribed training loop does not evict"
expect_ok "$umsim" demo --size 64MiB --json -
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert len(d) == 13, len(d)" "$tmp/out" \
  || fail "demo --json - should hold 5 + 8 scenarios"

# --json names a file in every command ('-': standard output instead of the text).
expect_ok "$umsim" profiles --json "$tmp/profiles.json" h200-pcie5
grep -q "^h200-pcie5 " "$tmp/out" || fail "profiles --json FILE should still print the table"
grep -q '"batch_size": 256' "$tmp/profiles.json" || fail "profiles --json FILE lacks batch_size"
expect_ok "$umsim" policies --json "$tmp/policies.json" --kind evict
grep -q '"name": "lru"' "$tmp/policies.json" || fail "policies --json FILE lacks lru"
expect_ok "$umsim" trace stat --json "$tmp/stat.json" "$examples/training_step.umt"
grep -q '"footprint"' "$tmp/stat.json" || fail "trace stat --json FILE lacks the footprint"
expect_ok "$umsim" replay "$examples/training_step.umt" --json - -q
grep -q '"schema": "umsim-result-1"' "$tmp/out" || fail "replay --json - should print the result"
grep -q "^total " "$tmp/out" && fail "replay --json - should print only JSON"
cp "$examples/training_step.umt" "$tmp/input.umt"
expect_error "refusing to write the output over the input" "$umsim" replay "$tmp/input.umt" --json "$tmp/input.umt"
cmp -s "$examples/training_step.umt" "$tmp/input.umt" || fail "replay --json over its input changed the input"

# Usage errors exit 2 (not CLI11's own codes) and name what is wrong; other errors exit 1.
expect_status() {  # expect_status STATUS "exact first line of stderr" command...
  local want=$1 line=$2; shift 2
  "$@" >"$tmp/out" 2>"$tmp/err"
  local got=$?
  [[ $got == "$want" ]] || fail "exit $got (expected $want) from: $*"
  [[ $(head -1 "$tmp/err") == "$line" ]] || fail "first error line of '$*': $(head -1 "$tmp/err") (expected: $line)"
}
expect_status 2 "umsim: unknown command 'nope' (commands: demo, trace, replay, sweep, report, profiles, compare, policies)" "$umsim" nope
expect_status 2 "umsim: unknown command 'trace nope' (commands: convert, stat, check, gen, import)" "$umsim" trace nope
expect_status 2 "A subcommand is required" "$umsim"
expect_status 2 "The following argument was not expected: --bogus" "$umsim" replay "$examples/training_step.umt" --bogus
expect_status 2 "trace is required" "$umsim" replay
expect_status 2 "--gpus: Value 99 not in range 1 to 15" "$umsim" replay "$examples/training_step.umt" --gpus 99
expect_status 1 "umsim: --gpu-mem: expected a positive percentage like 150%, got '0%'" \
  "$umsim" replay "$examples/training_step.umt" --gpu-mem 0%
expect_status 0 "" "$umsim" --help

# --gpu-mem percentages resolve as in `umsim sweep`: 3 MiB + 5 MiB allocations take
# 2 + 3 chunks of 2 MiB, so 100% is 10 MiB (never evicts) and 200% is 2.5 -> 3 chunks.
printf 'umsim-trace 1\nalloc a 3MiB managed\nalloc b 5MiB managed\nkernel k gpu=0 compute=1us\n  w a len=3MiB\n  w b len=5MiB\nend\nkernel k2 gpu=0 compute=1us\n  r a len=3MiB\n  r b len=5MiB\nend\nsync all\n' >"$tmp/odd.umt"
expect_ok "$umsim" replay "$tmp/odd.umt" --gpu-mem 100% --json "$tmp/full.json"
python3 -c "import json,sys; r=json.load(open(sys.argv[1])); assert r['config']['options']['gpu_memory_bytes'] == 10 << 20, r['config']['options']; assert r['total']['evictions'] == 0, r['total']" "$tmp/full.json" \
  || fail "--gpu-mem 100% should be 10 MiB and never evict"
expect_ok "$umsim" replay "$tmp/odd.umt" --gpu-mem 200% --json "$tmp/half.json"
python3 -c "import json,sys; r=json.load(open(sys.argv[1])); assert r['config']['options']['gpu_memory_bytes'] == 6 << 20, r['config']['options']; assert r['total']['evictions'] > 0, r['total']" "$tmp/half.json" \
  || fail "--gpu-mem 200% should be 6 MiB and evict"

if ((failures)); then echo "$failures failure(s)"; exit 1; fi
echo "all CLI checks passed"
