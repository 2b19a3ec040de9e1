#!/usr/bin/env bash
# End-to-end test of the research workflow around `umsim sweep`: full resolved
# policy specs in every line, the journal of finished points and --resume
# (after an interrupted write and after a full disk), --keep-going, shards
# joined by `umsim sweep merge` (a missing or doubled shard is an error),
# experiment files, the umsim build in every line, and outputs that never
# destroy an input or a previous complete result.
set -uo pipefail
umsim=$(realpath "$1")
tmp=${TEST_TMPDIR:-$(mktemp -d)}
failures=0
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

"$umsim" trace gen random -p footprint=8MiB,iterations=2 -o "$tmp/random.umtb" >/dev/null || fail "gen random"
"$umsim" trace gen streaming -p footprint=8MiB -o "$tmp/stream.umt" >/dev/null || fail "gen streaming"
traces=("$tmp/random.umtb" "$tmp/stream.umt")
axes=(--prefetch tree --prefetch tree:threshold=25 --evict lru:granularity=4KiB --evict random --gpu-mem 150%
      --seed 1 --seed 2)
# 2 traces x 2 prefetch x (lru: 1 point, random: 2 seeds) = 12 points.
"$umsim" sweep "${traces[@]}" "${axes[@]}" -q -o "$tmp/whole.jsonl" || fail "whole sweep"
[[ ! -e "$tmp/whole.jsonl.partial" ]] || fail "a finished sweep left its journal"
"$py" - "$tmp/whole.jsonl" <<'PY' || fail "resolved specs, seeds or build info"
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
assert len(rows) == 12, len(rows)
assert [r["index"] for r in rows] == list(range(12))
# Full resolved specs: every parameter, sizes with units.
assert rows[0]["prefetch"] == "tree:threshold=51,min_faults=1,big_page=64KiB", rows[0]["prefetch"]
assert rows[3]["prefetch"] == "tree:threshold=25,min_faults=1,big_page=64KiB", rows[3]["prefetch"]
assert rows[0]["evict"] == "lru:granularity=4KiB", rows[0]["evict"]
assert rows[1]["evict"] == "random:seed=1,granularity=2MiB" and rows[1]["seed"] == 1, rows[1]
assert rows[2]["evict"] == "random:seed=2,granularity=2MiB" and rows[2]["seed"] == 2, rows[2]
assert "seed" not in rows[0]
labels = {(r["trace"], r["prefetch"], r["evict"]) for r in rows}
assert len(labels) == 12, "two points share a label"
s = rows[0]["sweep"]
assert s["points"] == 12 and s["shard"] == "0/1", s
assert s["experiment"]["prefetch"] == ["tree", "tree:threshold=25"] and s["experiment"]["seeds"] == [1, 2], s
assert s["umsim"]["version"] and s["umsim"]["commit"], s["umsim"]
assert all(r["sweep"] == s for r in rows)
PY

# --resume after an interrupted run: the journal holds 5 whole lines and half
# of a sixth; the resumed sweep runs the other 7 and equals the whole sweep.
head -n 5 "$tmp/whole.jsonl" >"$tmp/r.jsonl.partial"
sed -n 6p "$tmp/whole.jsonl" | head -c 300 >>"$tmp/r.jsonl.partial"
expect_error "r.jsonl.partial: the finished points of an interrupted sweep; --resume continues it" \
  "$umsim" sweep "${traces[@]}" "${axes[@]}" -q -o "$tmp/r.jsonl"
[[ ! -e "$tmp/r.jsonl" ]] || fail "a refused sweep created its output"
"$umsim" sweep "${traces[@]}" "${axes[@]}" --resume -o "$tmp/r.jsonl" 2>"$tmp/err" || fail "resume: $(cat "$tmp/err")"
grep -qF "12 of 12 combinations (shard 0/1, 5 resumed)" "$tmp/err" || fail "resume summary: $(cat "$tmp/err")"
cmp -s "$tmp/whole.jsonl" "$tmp/r.jsonl" || fail "resumed sweep differs from the whole sweep"
[[ ! -e "$tmp/r.jsonl.partial" ]] || fail "resume left the journal"
# Resuming a complete output runs nothing and changes nothing.
"$umsim" sweep "${traces[@]}" "${axes[@]}" --resume -o "$tmp/r.jsonl" 2>"$tmp/err" || fail "resume complete"
grep -qF "12 resumed" "$tmp/err" || fail "resume of a complete output: $(cat "$tmp/err")"
cmp -s "$tmp/whole.jsonl" "$tmp/r.jsonl" || fail "resuming a complete output changed it"
# A journal of another sweep is refused.
head -n 2 "$tmp/whole.jsonl" >"$tmp/o.jsonl.partial"
expect_error "o.jsonl.partial:1: written by a different sweep" \
  "$umsim" sweep "${traces[@]}" --evict fifo --resume -q -o "$tmp/o.jsonl"
expect_error "--resume needs -o" "$umsim" sweep "${traces[@]}" --resume -q

# A full disk (a file size limit here) while journaling: the sweep fails, the
# journal holds whole lines only, the previous output is untouched, and
# --resume finishes the sweep.
cp "$tmp/whole.jsonl" "$tmp/full.jsonl"
line_kib=$(( $(head -n 1 "$tmp/whole.jsonl" | wc -c) * 5 / 2 / 1024 + 1 ))
(trap '' XFSZ; ulimit -f "$line_kib"; exec "$umsim" sweep "${traces[@]}" "${axes[@]}" -j 1 -q -o "$tmp/full.jsonl") \
  2>"$tmp/err" && fail "sweep under a file size limit succeeded"
grep -qF "full.jsonl.partial: cannot append: File too large" "$tmp/err" || fail "full disk error: $(cat "$tmp/err")"
cmp -s "$tmp/whole.jsonl" "$tmp/full.jsonl" || fail "a failed sweep changed the previous output"
[[ $(tail -c 1 "$tmp/full.jsonl.partial" | od -An -c | tr -d ' ') == '\n' ]] || fail "journal ends in a partial line"
n=$(wc -l <"$tmp/full.jsonl.partial")
[[ $n -ge 1 && $n -lt 12 ]] || fail "expected some whole lines in the journal, got $n"
"$umsim" sweep "${traces[@]}" "${axes[@]}" --resume -q -o "$tmp/full.jsonl" || fail "resume after a full disk"
cmp -s "$tmp/whole.jsonl" "$tmp/full.jsonl" || fail "sweep resumed after a full disk differs"

# A failing point: without --keep-going the sweep stops, leaves no output and
# no empty journal, and a previous output is untouched.
cp "$tmp/whole.jsonl" "$tmp/keep.jsonl"
expect_error "unknown evict policy 'nosuch'" "$umsim" sweep "${traces[@]}" --evict nosuch -q -o "$tmp/keep.jsonl"
cmp -s "$tmp/whole.jsonl" "$tmp/keep.jsonl" || fail "a failed sweep changed the previous output"
[[ ! -e "$tmp/keep.jsonl.partial" ]] || fail "a sweep that finished nothing left a journal"
expect_error "unknown evict policy" "$umsim" sweep "${traces[@]}" --evict nosuch -q -o "$tmp/new.jsonl"
[[ ! -e "$tmp/new.jsonl" ]] || fail "a failed sweep created its output"
# With --keep-going the failed points are recorded with their errors (exit status 1).
"$umsim" sweep "${traces[@]}" --evict fifo --evict nosuch --keep-going -q -o "$tmp/kg.jsonl" 2>"$tmp/err" &&
  fail "--keep-going with failed points exited 0"
grep -qF "2 of 4 points failed" "$tmp/err" || fail "--keep-going summary: $(cat "$tmp/err")"
"$py" - "$tmp/kg.jsonl" <<'PY' || fail "--keep-going lines"
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
assert [r["index"] for r in rows] == [0, 1, 2, 3]
assert "result" in rows[0] and "error" not in rows[0]
assert "unknown evict policy 'nosuch'" in rows[1]["error"] and "result" not in rows[1], rows[1]
PY

# An output naming an input is refused before anything is opened.
cp "$tmp/random.umtb" "$tmp/keep.umtb"
expect_error "refusing to write the output over the input" "$umsim" sweep "$tmp/keep.umtb" -q -o "$tmp/keep.umtb"
cmp -s "$tmp/random.umtb" "$tmp/keep.umtb" || fail "the input trace was changed"

# Shards joined by `umsim sweep merge` equal the whole sweep; a missing or
# doubled shard is an error.
for k in 0 1 2 3; do
  "$umsim" sweep "${traces[@]}" "${axes[@]}" --shard $k/4 -q -o "$tmp/s$k.jsonl" || fail "shard $k/4"
done
"$umsim" sweep merge "$tmp"/s{0,1,2,3}.jsonl -q -o "$tmp/merged.jsonl" || fail "merge"
cmp -s "$tmp/whole.jsonl" "$tmp/merged.jsonl" || fail "merged shards differ from the whole sweep"
expect_error "3 of 12 points missing (shard 0/4): index 0, 4, 8" \
  "$umsim" sweep merge "$tmp"/s{1,2,3}.jsonl -q -o "$tmp/m.jsonl"
[[ ! -e "$tmp/m.jsonl" ]] || fail "a failed merge created its output"
expect_error "s1.jsonl:1: point 1 is also in" "$umsim" sweep merge "$tmp"/s{0,1,1,2,3}.jsonl -q
expect_error "from a different sweep" "$umsim" sweep merge "$tmp/s0.jsonl" "$tmp/kg.jsonl" -q
expect_error "refusing to write the output over the input" "$umsim" sweep merge "$tmp"/s{0,1,2,3}.jsonl -o "$tmp/s0.jsonl"
head -c 100 "$tmp/s1.jsonl" >"$tmp/cut.jsonl"
expect_error "cut.jsonl:1: incomplete last line" "$umsim" sweep merge "$tmp/s0.jsonl" "$tmp/cut.jsonl" -q

# An experiment file: the same sweep as the command line, byte for byte
# (relative trace paths are relative to the file).
cat >"$tmp/exp.toml" <<'TOML'
traces = ["random.umtb", "stream.umt"]
prefetch = ["tree", "tree:threshold=25"]
evict = ["lru:granularity=4KiB", "random"]
gpu_mem = "150%"
seeds = [1, 2]
TOML
(cd / && "$umsim" sweep --config "$tmp/exp.toml" -q -o "$tmp/exp.jsonl") || fail "sweep --config"
cmp -s "$tmp/whole.jsonl" "$tmp/exp.jsonl" || fail "experiment file sweep differs from the command line's"
# A command-line axis replaces the file's.
"$umsim" sweep --config "$tmp/exp.toml" --evict fifo -q -o "$tmp/exp2.jsonl" || fail "--config with --evict"
[[ $(wc -l <"$tmp/exp2.jsonl") -eq 4 ]] || fail "--evict did not replace the file's evict axis"
printf 'traces = ["random.umtb"]\nevicts = ["lru"]\n' >"$tmp/bad.toml"
expect_error "bad.toml:2: unknown key 'evicts' (known: traces, vendors" "$umsim" sweep --config "$tmp/bad.toml"
printf 'traces = ["random.umtb"]\nseeds = ["one"]\n' >"$tmp/bad.toml"
expect_error "bad.toml:2: 'seeds' takes integers" "$umsim" sweep --config "$tmp/bad.toml"
printf 'traces = ["random.umtb"\n' >"$tmp/bad.toml"
expect_error "bad.toml:" "$umsim" sweep --config "$tmp/bad.toml"
expect_error "sweep: no traces" "$umsim" sweep -q

# The build is named by --version too.
"$umsim" --version | grep -qE "^umsim 0\.1 \(commit [0-9a-f]{7,}|^umsim 0\.1 \(commit unknown" ||
  fail "--version: $("$umsim" --version)"

[[ $failures -eq 0 ]] && echo "PASS" || { echo "$failures failure(s)"; exit 1; }
