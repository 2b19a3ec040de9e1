#!/usr/bin/env bash
# hip_backend/validate_calls.sh on two committed H200 calls (sessions 91 and 92)
# with two of the suite's traces: each call's row is what validate.sh gives that
# call with the profile its probe rescaled, the summary is the median of the
# rows, a call without probe runs is judged with the profile as it is; with
# --same-session each row is validate.sh's with the profile machine_profile.sh
# makes from the call's calibration fitted onto the profile; and its bad
# inputs, none of which leaves an OUT_DIR or touches an existing one.
set -uo pipefail
umsim=$1 fit_profile=$2 profile=$3 probe_trace=$4 call91=$5 call92=$6 cal91=$7
shift 7
tmp=${TEST_TMPDIR:-$(mktemp -d)}
fail() { echo "FAIL: $*"; exit 1; }
# The script runs its helpers from its repository root: give it a copy of them.
mkdir -p "$tmp/repo/hip_backend" "$tmp/repo/traces/probe" "$tmp/traces"
for f in "$@"; do
  case $f in
    *validation/*.umt) cp "$f" "$tmp/traces/" ;;
    *probe/*.umt) cp "$f" "$tmp/repo/traces/probe/" ;;
    *) cp "$f" "$tmp/repo/hip_backend/" ;;
  esac
done
cp "$probe_trace" "$tmp/repo/traces/probe/"
calls=$(dirname "$(realpath "$call91")") cals=$(dirname "$(realpath "$cal91")")
run() { UMSIM_BIN=$umsim UMSIM_FIT_BIN=$fit_profile bash "$tmp/repo/hip_backend/validate_calls.sh" "$@"; }
# check_row OUT SESSION SOURCE PROFILE: OUT/calls.md's row for SESSION is what
# validate.sh gives that call with PROFILE, its host part named SOURCE.
check_row() {
  local out=$1 s=$2 source=$3 used=$4 row n median within
  rm -rf "$tmp/v"
  UMSIM_BIN=$umsim bash "$tmp/repo/hip_backend/validate.sh" "$used" "$calls/session$s" "$tmp/v" "$tmp/traces" \
    >/dev/null 2>&1 || fail "validate.sh on session $s"
  row=$(grep "^| time |" "$tmp/v/error_table.md")  # | time | N | M% | W/N | worst |
  n=$(cut -d'|' -f3 <<<"$row" | tr -d ' ') median=$(cut -d'|' -f4 <<<"$row" | tr -d ' ') within=$(cut -d'|' -f5 <<<"$row" | tr -d ' ')
  grep -qF "| session$s | $source | $n | $median | ${within%/*} (" "$out/calls.md" ||
    fail "session $s: expected $n scopes, $median, ${within%/*} within 10%: $(cat "$out/calls.md")"
}

# Usage errors: exit 2 and the usage line.
run >"$tmp/out" 2>&1; [[ $? -eq 2 ]] || fail "no arguments: exit code not 2"
grep -qF "usage: hip_backend/validate_calls.sh [--jobs N] [--traces DIR] [--same-session CALIBRATIONS_DIR] PROFILE OUT_DIR RESULTS_DIR..." "$tmp/out" ||
  fail "no usage line: $(cat "$tmp/out")"
run "$profile" "$tmp/o" "$calls/session91" >"$tmp/out" 2>&1; [[ $? -eq 2 ]] || fail "one call: exit code not 2"
grep -q "at least two calls" "$tmp/out" || fail "one call not explained: $(cat "$tmp/out")"
run --jobs 0 "$profile" "$tmp/o" "$calls/session91" "$calls/session92" >"$tmp/out" 2>&1; [[ $? -eq 2 ]] || fail "--jobs 0 accepted"
grep -q "positive whole number" "$tmp/out" || fail "--jobs 0 not explained: $(cat "$tmp/out")"
run --frobnicate "$profile" "$tmp/o" "$calls/session91" "$calls/session92" >"$tmp/out" 2>&1; [[ $? -eq 2 ]] ||
  fail "an unknown option accepted"

# Bad inputs: exit 1, named, and no OUT_DIR left.
bad() {  # WHAT EXPECTED_TEXT ARGS...
  local what=$1 text=$2
  shift 2
  run "$@" >"$tmp/out" 2>&1 && fail "$what accepted"
  grep -qF -- "$text" "$tmp/out" || fail "$what not explained: $(cat "$tmp/out")"
  [[ ! -e $tmp/o ]] || fail "$what left an OUT_DIR"
  compgen -G "$tmp/o.partial-*" >/dev/null && fail "$what left a partial OUT_DIR"
  return 0
}
bad "a missing profile" "no profile $tmp/none.toml" "$tmp/none.toml" "$tmp/o" "$calls/session91" "$calls/session92"
bad "a missing call" "$tmp/no_call: no such directory" "$profile" "$tmp/o" "$calls/session91" "$tmp/no_call"
mkdir -p "$tmp/empty_call"
bad "a call without results" "empty_call: no suite results" "$profile" "$tmp/o" "$calls/session91" "$tmp/empty_call"
mkdir -p "$tmp/again/session91" && cp -L "$calls/session91"/v05*.json "$tmp/again/session91/"
bad "two calls of one name" "are both named session91" "$profile" "$tmp/o" "$calls/session91" "$tmp/again/session91"
bad "a missing traces folder" "--traces $tmp/no_traces: no such directory" --traces "$tmp/no_traces" "$profile" "$tmp/o" \
  "$calls/session91" "$calls/session92"
bad "an OUT_DIR in a missing folder" "does not exist" "$profile" "$tmp/o/deeper" "$calls/session91" "$calls/session92"
# A broken probe run: the call is named, nothing written.
cp -rL "$calls/session92" "$tmp/session92"  # -L: the runfiles are links to the committed files
rm -f "$tmp/session92/probe/host_fault_speed.r1.json"  # never write through a link
echo "not json" >"$tmp/session92/probe/host_fault_speed.r1.json"
bad "a broken probe run" "judging $tmp/session92 failed" --traces "$tmp/traces" "$profile" "$tmp/o" "$calls/session91" \
  "$tmp/session92"
# An existing OUT_DIR is refused and kept as it was.
echo "keep me" >"$tmp/kept"
run "$profile" "$tmp/kept" "$calls/session91" "$calls/session92" >"$tmp/out" 2>&1 && fail "an existing OUT_DIR accepted"
grep -q "exists: name an OUT_DIR that does not" "$tmp/out" || fail "existing OUT_DIR not explained: $(cat "$tmp/out")"
[[ $(cat "$tmp/kept") == "keep me" ]] || fail "the existing OUT_DIR was touched"

# A full run: two calls with their probes, and session 92's results without them.
mkdir -p "$tmp/noprobe/session92b" && cp -L "$calls/session92"/*.r[0-9]*.json "$tmp/noprobe/session92b/"
run --jobs 3 --traces "$tmp/traces" "$profile" "$tmp/o" "$calls/session91" "$calls/session92" "$tmp/noprobe/session92b" \
  >"$tmp/out" 2>&1 || { cat "$tmp/out"; fail "a full run failed"; }
for f in calls.md pooled.md session91/error_table.md session91/probe.toml session92/probe.toml session92b/profile.toml; do
  [[ -f $tmp/o/$f ]] || fail "no $f"
done
cmp -s "$profile" "$tmp/o/session92b/profile.toml" || fail "the call without probe runs was not judged with the profile"
grep -qF "| session92b | no probe runs: the profile as it is |" "$tmp/o/calls.md" || fail "no-probe row: $(cat "$tmp/o/calls.md")"
# Each row is validate.sh's own table for that call with the probe's profile.
for s in 91 92; do
  python3 "$tmp/repo/hip_backend/host_rescale.py" "$profile" "$umsim" "$probe_trace" "$tmp/p$s.toml" \
    "$calls/session$s"/probe/host_fault_speed.r*.json >/dev/null || fail "host_rescale.py on session $s"
  cmp -s "$tmp/p$s.toml" "$tmp/o/session$s/probe.toml" || fail "session $s: not the profile its probe gives"
  check_row "$tmp/o" "$s" "the call's probe (3 runs)" "$tmp/p$s.toml"
done
# Each call's own noise over all its traces (repeatability.py on the committed
# results: 8.7% / 3.0% and 11.1% / 4.0%).
grep "^| session91 |" "$tmp/o/calls.md" | grep -qF "| 8.7% | 3.0% |" || fail "session 91's noise: $(cat "$tmp/o/calls.md")"
grep "^| session92 |" "$tmp/o/calls.md" | grep -qF "| 11.1% | 4.0% |" || fail "session 92's noise: $(cat "$tmp/o/calls.md")"
grep -q "Pooled over 3 calls" "$tmp/o/pooled.md" || fail "pooled table: $(head -3 "$tmp/o/pooled.md")"
# Each call named as its folder in OUT_DIR, not by the temporary folder it was judged in.
grep -q "^| session92b | " "$tmp/o/pooled.md" || fail "pooled.md does not name session92b: $(cat "$tmp/o/pooled.md")"
grep -q "partial" "$tmp/o/pooled.md" && fail "pooled.md names the temporary folder: $(grep partial "$tmp/o/pooled.md")"
# The summary's median per call is the median of the rows' medians.
python3 - "$tmp/o/calls.md" "$tmp/out" <<'PY' || fail "summary against the rows: $(cat "$tmp/o/calls.md" "$tmp/out")"
import re, statistics, sys
rows = [float(m.group(1)) for line in open(sys.argv[1]) if (m := re.match(r"\| session\w+ \|[^|]*\| \d+ \| ([\d.]+)% \|", line))]
summary = re.search(r"\| as judged \| ([\d.]+)% \|", open(sys.argv[2]).read())
assert len(rows) == 3 and summary, (rows, summary)
assert abs(statistics.median(rows) - float(summary.group(1))) <= 0.05, (rows, summary.group(1))
PY
compgen -G "$tmp/o.partial-*" >/dev/null && fail "a partial OUT_DIR left beside the result"

# --same-session: a call without a calibration, or without probe runs, is refused.
rm -rf "$tmp/o"
mkdir -p "$tmp/cals_91"
cp -rL "$cals/session91" "$tmp/cals_91/"
bad "a call without a calibration" "--same-session: $tmp/cals_91/session92 holds no calibration" --same-session \
  "$tmp/cals_91" "$profile" "$tmp/o" "$calls/session91" "$calls/session92"
cp -rL "$cals/session92" "$tmp/cals_91/session92b"
bad "a --same-session call without probe runs" "--same-session: $tmp/noprobe/session92b has no host probe runs" \
  --same-session "$tmp/cals_91" "$profile" "$tmp/o" "$calls/session91" "$tmp/noprobe/session92b"
bad "a missing calibrations folder" "--same-session $tmp/no_cals: no such directory" --same-session "$tmp/no_cals" \
  "$profile" "$tmp/o" "$calls/session91" "$calls/session92"
# Each row: the calibration's runs fitted onto the profile, machine_profile.sh
# with the call's probe on it, then validate.sh.
run --same-session "$cals" --traces "$tmp/traces" "$profile" "$tmp/s" "$calls/session91" "$calls/session92" \
  >"$tmp/out" 2>&1 || { cat "$tmp/out"; fail "a --same-session run failed"; }
for s in 91 92; do
  rm -rf "$tmp/c$s" && cp -rL "$cals/session$s" "$tmp/c$s" && cp "$profile" "$tmp/c$s/calibrated.toml"
  "$fit_profile" "$tmp/c$s/calibration.json" "$tmp/c$s/calibrated.toml" >/dev/null || fail "fit_profile on session $s"
  UMSIM_BIN=$umsim UMSIM_BASE_PROFILE=$profile bash "$tmp/repo/hip_backend/machine_profile.sh" --probe \
    "$calls/session$s/probe" "$tmp/c$s" "$tmp/m$s.toml" >/dev/null 2>&1 || fail "machine_profile.sh on session $s"
  cmp -s "$tmp/m$s.toml" "$tmp/s/session$s/same.toml" || fail "session $s: not its machine profile"
  check_row "$tmp/s" "$s" "its own calibration (re-fitted) and probe (3 runs)" "$tmp/m$s.toml"
done
echo PASS
