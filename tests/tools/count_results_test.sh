#!/usr/bin/env bash
# tools/ci/count_results.py: test cases counted from Bazel's XML, cached results
# included, a crashed or unreported target counted as a failure, exit status.
set -uo pipefail
script=$1
tmp=${TEST_TMPDIR:-$(mktemp -d)}
logs=$tmp/testlogs
mkdir -p "$logs/pkg/a" "$logs/pkg/b" "$logs/pkg/stale"
cat >"$logs/pkg/a/test.xml" <<'XML'
<testsuites><testsuite><testcase name="x"/><testcase name="y"><failure message="boom"/></testcase></testsuite></testsuites>
XML
cat >"$logs/pkg/b/test.xml" <<'XML'
<testsuites><testsuite><testcase name="z"/><testcase name="w"/></testsuite></testsuites>
XML
cat >"$logs/pkg/stale/test.xml" <<'XML'
<testsuites><testsuite><testcase name="old"><failure/></testcase></testsuite></testsuites>
XML
cat >"$tmp/log" <<'LOG'
//pkg:a                                  FAILED in 0.3s
//pkg:b                         (cached) PASSED in 0.1s
//pkg:c                                  NO STATUS
LOG
out=$(python3 "$script" "$logs" "$tmp/log"); status=$?
# a: 1 passed + 1 failed; b (cached): 2 passed; c: no XML, not passed -> 1 failed; stale: not in this run.
[[ $out == "3 passed, 2 failed" ]] || { echo "FAIL: got '$out'"; exit 1; }
[[ $status -ne 0 ]] || { echo "FAIL: exit status 0 with failures"; exit 1; }
printf '//pkg:b   PASSED in 0.1s\n' >"$tmp/log2"
out=$(python3 "$script" "$logs" "$tmp/log2"); status=$?
[[ $out == "2 passed, 0 failed" && $status -eq 0 ]] || { echo "FAIL: got '$out' status $status"; exit 1; }
: >"$tmp/empty"
out=$(python3 "$script" "$tmp/none" "$tmp/empty"); status=$?
[[ $out == "0 passed, 1 failed" && $status -ne 0 ]] || { echo "FAIL: a run with no tests must fail, got '$out'"; exit 1; }
# Several runs (.ci/run: the sanitized run, then the plain one) give one line for all of them.
out=$(python3 "$script" "$logs" "$tmp/log" "$logs" "$tmp/log2"); status=$?
[[ $out == "5 passed, 2 failed" && $status -ne 0 ]] || { echo "FAIL: two runs, got '$out' status $status"; exit 1; }
out=$(python3 "$script" "$logs" "$tmp/log2" "$tmp/none" "$tmp/empty"); status=$?
[[ $out == "2 passed, 1 failed" && $status -ne 0 ]] || { echo "FAIL: a second run that built nothing must fail, got '$out'"; exit 1; }
out=$(python3 "$script" "$logs" "$tmp/log2" "$logs" "$tmp/log2"); status=$?
[[ $out == "4 passed, 0 failed" && $status -eq 0 ]] || { echo "FAIL: two passing runs, got '$out' status $status"; exit 1; }
echo PASS
