#!/usr/bin/env bash
# End-to-end test of `umsim sweep` and tools/plot_sweep.py: deterministic output
# whatever the thread count, shards that add up to the whole sweep, the
# oversubscription arithmetic, and precise errors for bad input.
set -uo pipefail
umsim=$1
plot=$2
tmp=${TEST_TMPDIR:-$(mktemp -d)}
failures=0
# Debian's interpreter sees Debian's python3-matplotlib (a python3 earlier on PATH may not).
py=/usr/bin/python3
[[ -x $py ]] || py=python3
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# expect_error "<substring of stderr>" command...
expect_error() {
  local want=$1; shift
  if "$@" >"$tmp/out" 2>"$tmp/err"; then
    fail "expected failure: $*"
  elif ! grep -qF -- "$want" "$tmp/err"; then
    fail "error of '$*' lacks '$want'; got: $(cat "$tmp/err")"
  fi
}

"$umsim" trace gen random -p footprint=16MiB,iterations=2 -o "$tmp/random.umtb" >/dev/null || fail "gen random"
"$umsim" trace gen streaming -p footprint=8MiB -o "$tmp/stream.umt" >/dev/null || fail "gen streaming"
traces=("$tmp/random.umtb" "$tmp/stream.umt")
axes=(--prefetch none --prefetch tree --evict fifo --evict lru --gpu-mem 100% --gpu-mem 150% --gpu-mem 4MiB)

"$umsim" sweep "${traces[@]}" "${axes[@]}" -j 1 -q -o "$tmp/j1.jsonl" || fail "sweep -j 1"
"$umsim" sweep "${traces[@]}" "${axes[@]}" -j 2 -q -o "$tmp/j2.jsonl" || fail "sweep -j 2"
cmp -s "$tmp/j1.jsonl" "$tmp/j2.jsonl" || fail "output differs between 1 and 2 threads"
lines=$(wc -l <"$tmp/j1.jsonl")
[[ $lines -eq 24 ]] || fail "expected 2 traces x 2 x 2 x 3 = 24 lines, got $lines"

# Shards partition the sweep; merged by index they equal the whole.
"$umsim" sweep "${traces[@]}" "${axes[@]}" --shard 0/3 -q -o "$tmp/s0.jsonl" || fail "shard 0/3"
"$umsim" sweep "${traces[@]}" "${axes[@]}" --shard 1/3 -q -o "$tmp/s1.jsonl" || fail "shard 1/3"
"$umsim" sweep "${traces[@]}" "${axes[@]}" --shard 2/3 -q -o "$tmp/s2.jsonl" || fail "shard 2/3"
"$py" - "$tmp" <<'PY' || fail "shards do not merge into the whole sweep"
import json, sys
tmp = sys.argv[1]
whole = [json.loads(l) for l in open(f"{tmp}/j1.jsonl")]
parts = [json.loads(l) for k in range(3) for l in open(f"{tmp}/s{k}.jsonl")]
for r in whole + parts:
    del r["sweep"]["shard"]  # "K/3" in the shards, "0/1" in the whole sweep
assert sorted(parts, key=lambda r: r["index"]) == whole, "merged shards differ"
assert [r["index"] for r in whole] == list(range(24)), "indices not 0..23 in order"
# Oversubscription arithmetic: 150% of a 16 MiB footprint is 16/1.5 = 10.67 MiB -> 10 MiB (2 MiB chunks).
r = next(r for r in whole if r["trace"].endswith("random.umtb") and r["gpu_mem_spec"] == "150%")
assert r["managed_footprint_bytes"] == 16 << 20, r["managed_footprint_bytes"]
assert r["gpu_mem_bytes"] == 10 << 20, r["gpu_mem_bytes"]
fits = next(r for r in whole if r["trace"].endswith("random.umtb") and r["gpu_mem_spec"] == "100%")
assert fits["result"]["total"]["evictions"] == 0, "100% must not evict"
assert r["result"]["total"]["evictions"] > 0, "150% must evict"
assert r["result"]["config"]["options"]["gpu_memory_bytes"] == 10 << 20
PY

expect_error "--shard: expected K/N with 0 <= K < N" "$umsim" sweep "${traces[@]}" --shard 3/3
expect_error "--gpu-mem: expected a positive percentage like 150%, got '0%'" "$umsim" sweep "${traces[@]}" --gpu-mem 0%
expect_error "unknown unit 'GB'" "$umsim" sweep "${traces[@]}" --gpu-mem 16GB
expect_error "unknown evict policy 'nosuch' (known:" "$umsim" sweep "${traces[@]}" --evict nosuch -q
expect_error "missing.umt" "$umsim" sweep "$tmp/missing.umt"

# Plotting reads the JSON fields; a bad metric or a non-sweep file is an error.
if "$py" -c "import matplotlib" 2>/dev/null; then
  "$py" "$plot" "$tmp/j1.jsonl" -o "$tmp/sweep.png" >/dev/null || fail "plot_sweep.py"
  [[ -s "$tmp/sweep.png" ]] || fail "no plot written"
  expect_error "unknown metric 'speed'" "$py" "$plot" "$tmp/j1.jsonl" -o "$tmp/x.png" --metric speed
  echo '{"a": 1}' >"$tmp/bad.jsonl"
  expect_error "bad.jsonl:1: missing field 'trace'" "$py" "$plot" "$tmp/bad.jsonl" -o "$tmp/x.png"
  # Full specs name the lines: two tree configurations are two lines, never one.
  "$umsim" sweep "$tmp/random.umtb" --prefetch tree --prefetch tree:threshold=25 --evict fifo --evict nosuch \
    --gpu-mem 100% --gpu-mem 150% --keep-going -q -o "$tmp/specs.jsonl" 2>/dev/null
  "$py" "$plot" "$tmp/specs.jsonl" -o "$tmp/specs.png" >"$tmp/out" || fail "plot of specs"
  grep -qF "(2 policy lines, 4 points, 4 failed points left out)" "$tmp/out" || fail "plot summary: $(cat "$tmp/out")"
  # Equal labels with different configurations (two sweeps under different profiles' memory) are an error.
  "$py" - "$tmp/specs.jsonl" "$tmp/conflict.jsonl" <<'PY' || fail "making a conflicting line"
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if "error" not in l]
twin = json.loads(json.dumps(rows[0]))
twin["result"]["config"]["profile"] = "changed"
with open(sys.argv[2], "w") as f:
    for r in rows + [twin]:
        f.write(json.dumps(r) + "\n")
PY
  expect_error "conflict.jsonl:5: same label as $tmp/conflict.jsonl:1" "$py" "$plot" "$tmp/conflict.jsonl" -o "$tmp/x.png"
  [[ ! -e "$tmp/x.png" ]] || fail "a refused plot was written"
  # Another python3 first on PATH (here one that cannot see Debian's modules) still plots, with the system
  # Python; with no interpreter that has matplotlib, one line names the missing module.
  mkdir -p "$tmp/bin"
  printf '#!/bin/sh\nexec /usr/bin/python3 -S "$@"\n' >"$tmp/bin/python3" && chmod +x "$tmp/bin/python3"
  PATH="$tmp/bin:$PATH" python3 "$plot" "$tmp/j1.jsonl" -o "$tmp/path.png" >/dev/null 2>"$tmp/err" ||
    fail "plot with another python3 first on PATH: $(cat "$tmp/err")"
  UMSIM_PLOT_SWEEP_REEXEC=1 PATH="$tmp/bin:$PATH" python3 "$plot" "$tmp/j1.jsonl" -o "$tmp/path.png" \
    >/dev/null 2>"$tmp/err" && fail "plot without matplotlib succeeded"
  [[ $(wc -l <"$tmp/err") -eq 1 ]] && grep -qF "plot_sweep.py: missing Python module 'matplotlib'" "$tmp/err" ||
    fail "missing module message: $(cat "$tmp/err")"
else
  echo "SKIP plot checks: python3-matplotlib is not installed (./bazelw installs it)"
fi

[[ $failures -eq 0 ]] && echo "PASS" || { echo "$failures failure(s)"; exit 1; }
