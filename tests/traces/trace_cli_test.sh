#!/usr/bin/env bash
# End-to-end tests of `umsim trace convert|stat|check` on the example traces and
# on the bad inputs in tests/traces/bad (each with its expected message).
set -uo pipefail

umsim="$1"
examples_dir=traces/examples
bad_dir=tests/traces/bad
golden=tests/traces/golden/cpu_gpu_cpu.canonical.umt
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
failures=0

fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}

# 1. Round trip text -> binary -> text through the CLI is identical to the canonical text.
for f in "$examples_dir"/*.umt; do
  name=$(basename "$f" .umt)
  "$umsim" trace convert "$f" "$tmp/$name.umtb" >/dev/null || fail "convert $f to binary"
  "$umsim" trace convert "$tmp/$name.umtb" "$tmp/$name.back.umt" >/dev/null || fail "convert $name.umtb to text"
  expected="$f"
  [[ $name == cpu_gpu_cpu ]] && expected="$golden"
  cmp -s "$expected" "$tmp/$name.back.umt" || fail "round trip of $f differs: $(diff "$expected" "$tmp/$name.back.umt")"
  # The binary really is binary, and --to overrides the extension.
  head -c 4 "$tmp/$name.umtb" | grep -q UMT || fail "$name.umtb lacks the binary magic"
  "$umsim" trace convert --to binary "$f" "$tmp/$name.bin.umt" >/dev/null || fail "convert --to binary"
  cmp -s "$tmp/$name.umtb" "$tmp/$name.bin.umt" || fail "--to binary output differs from .umtb output"
  # 2. Every example checks clean (exit 0) in both encodings.
  "$umsim" trace check "$f" >"$tmp/check.out" || fail "check $f: $(cat "$tmp/check.out")"
  grep -q ", 0 errors, 0 warnings$" "$tmp/check.out" || fail "check $f reported problems: $(cat "$tmp/check.out")"
  "$umsim" trace check "$tmp/$name.umtb" >/dev/null || fail "check $name.umtb"
done

# 3. stat: text and JSON, identical for both encodings and across runs.
"$umsim" trace stat --json - "$examples_dir/multi_gpu.umt" >"$tmp/s1.json" || fail "stat --json"
"$umsim" trace stat --json - "$examples_dir/multi_gpu.umt" >"$tmp/s2.json" || fail "stat --json (2)"
cmp -s "$tmp/s1.json" "$tmp/s2.json" || fail "stat --json is not deterministic"
# Positions (source, allocated_at) differ by encoding: file:line versus file:byte N.
drop_positions() { sed 's|"source": ".*"|"source": "X"|; s|"allocated_at": ".*"|"allocated_at": "X"|'; }
"$umsim" trace stat --json - "$tmp/multi_gpu.umtb" | drop_positions >"$tmp/s3.json"
drop_positions <"$tmp/s1.json" >"$tmp/s1x.json"
cmp -s "$tmp/s1x.json" "$tmp/s3.json" || fail "stat differs between the text and binary encodings"
grep -q '"gpus": 2' "$tmp/s1.json" || fail "stat --json: expected 2 GPUs in multi_gpu"
"$umsim" trace stat "$examples_dir/cpu_gpu_cpu.umt" >"$tmp/stat.txt" || fail "stat (text)"
grep -q "^footprint: peak 128MiB live (128MiB managed)" "$tmp/stat.txt" || fail "stat text: footprint line: $(cat "$tmp/stat.txt")"

# Goldens (hand-checked: footprint, pages touched, page touches, per-allocation pages).
"$umsim" trace stat "$examples_dir/multi_gpu.umt" | cmp -s - tests/traces/golden/multi_gpu.stat.txt ||
  fail "stat multi_gpu differs from its golden: $("$umsim" trace stat "$examples_dir/multi_gpu.umt" | diff tests/traces/golden/multi_gpu.stat.txt -)"
"$umsim" trace stat --json - "$examples_dir/training_step.umt" | cmp -s - tests/traces/golden/training_step.stat.json ||
  fail "stat --json training_step differs from its golden"

# 4. Bad inputs: non-zero exit and the precise message.
count=0
declare -A seen=()
while IFS='|' read -r file kind message; do
  [[ -z $file || $file == \#* ]] && continue
  count=$((count + 1))
  (cd "$bad_dir" && "$OLDPWD/$umsim" trace check "$file") >"$tmp/bad.out" 2>&1
  rc=$?
  [[ $rc -ne 0 ]] || fail "check $file: exit status 0 for a bad input"
  grep -qF -- "$message" "$tmp/bad.out" || fail "check $file: expected '$message', got: $(cat "$tmp/bad.out")"
  # Converting an undecodable input fails and leaves no output behind (semantic problems convert fine).
  if [[ $kind == decode && -z ${seen[$file]:-} ]]; then
    "$umsim" trace convert "$bad_dir/$file" "$tmp/bad_out.umtb" >/dev/null 2>&1 && fail "convert $file succeeded"
    [[ ! -e $tmp/bad_out.umtb ]] || fail "convert $file left a partial output"
  fi
  seen[$file]=1
done <"$bad_dir/expected.txt"
[[ ${#seen[@]} -ge 15 ]] || fail "only ${#seen[@]} bad inputs"

# 5. Usage errors.
"$umsim" trace convert "$examples_dir/cpu_gpu_cpu.umt" "$examples_dir/cpu_gpu_cpu.umt" >/dev/null 2>&1 &&
  fail "convert onto its own input succeeded"
"$umsim" trace check "$tmp/does_not_exist.umt" >"$tmp/missing.out" 2>&1 && fail "check of a missing file succeeded"
grep -q "does_not_exist.umt: cannot open: No such file or directory" "$tmp/missing.out" || fail "missing file message: $(cat "$tmp/missing.out")"
"$umsim" trace convert --to yaml "$examples_dir/cpu_gpu_cpu.umt" "$tmp/x" >/dev/null 2>&1 && fail "--to yaml accepted"
"$umsim" trace --help | grep -q convert || fail "trace --help does not list convert"

if [[ $failures -ne 0 ]]; then
  echo "$failures failures" >&2
  exit 1
fi
echo "all trace CLI checks passed (${#seen[@]} bad inputs, $count expected messages)"
