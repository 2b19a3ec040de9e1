#!/usr/bin/env bash
# hip_backend/device_run.sh without a GPU: where the build fails it replays with
# the prebuilt binary it is given (here a stub that writes the result files it
# is asked for). The suite step runs UMSIM_SUITE_REPS repetitions of every
# validation trace, each after a host probe of its own, and packs the results;
# a bad UMSIM_SUITE_REPS is refused before anything runs.
set -uo pipefail
script=$1
tmp=${TEST_TMPDIR:-$(mktemp -d)}
fail() { echo "FAIL: $*"; exit 1; }
# The script runs from its repository root: a copy with two suite traces, the
# probe traces it names and a build that fails (no nvcc here).
repo=$tmp/repo
mkdir -p "$repo/hip_backend" "$repo/traces/validation" "$repo/traces/probe"
cp "$script" "$repo/hip_backend/device_run.sh"
printf '#!/usr/bin/env bash\nexit 1\n' >"$repo/hip_backend/build_nvidia.sh"
chmod +x "$repo/hip_backend/build_nvidia.sh"
touch "$repo/traces/validation/a.umt" "$repo/traces/validation/b.umt" \
  "$repo/traces/probe/host_fault_speed.umt" "$repo/traces/probe/host_mode.umt"
# The stub umsim-hip: `replay TRACE --json PATH [--host-probe-json PATH]...`
# writes each PATH and logs its trace.
stub=$tmp/umsim-hip
cat >"$stub" <<STUB
#!/usr/bin/env bash
echo "\$*" >>"$tmp/calls.log"
while (( \$# )); do
  case \$1 in --json | --host-probe-json) echo '{}' >"\$2"; shift ;; esac
  shift
done
STUB
chmod +x "$stub"
run() { (cd "$tmp" && OUT=$tmp/out UMSIM_PREBUILT=$stub UMSIM_CUPTI_LIB=none bash "$repo/hip_backend/device_run.sh" "$@"); }

for bad in 0 100 abc -1 " 3" 3x; do
  rm -rf "$tmp/out" "$tmp/calls.log"
  UMSIM_SUITE_REPS=$bad run suite >"$tmp/log" 2>&1
  [[ $? -eq 2 ]] || fail "UMSIM_SUITE_REPS='$bad': exit code not 2"
  grep -qF "UMSIM_SUITE_REPS must be 1-99 (got '$bad')" "$tmp/log" || fail "UMSIM_SUITE_REPS='$bad' not explained: $(cat "$tmp/log")"
  [[ ! -e $tmp/out && ! -e $tmp/calls.log ]] || fail "UMSIM_SUITE_REPS='$bad': something ran"
done

check_suite() {  # REPS: every trace replayed REPS times, each repetition after a probe
  local reps=$1 name rep listing
  for name in a b; do
    for rep in $(seq 1 "$reps"); do
      [[ -f $tmp/out/results/hw/$name.r$rep.json && -f $tmp/out/results/hw_host/$name.r$rep.json ]] ||
        fail "$reps repetitions: no $name.r$rep results"
    done
    [[ ! -e $tmp/out/results/hw/$name.r$((reps + 1)).json ]] || fail "$reps repetitions: a repetition too many of $name"
  done
  [[ $(grep -c '^replay traces/validation/' "$tmp/calls.log") -eq $((2 * reps)) ]] || fail "$reps repetitions: replays $(cat "$tmp/calls.log")"
  [[ $(grep -c '^replay traces/probe/host_fault_speed.umt' "$tmp/calls.log") -eq $reps ]] || fail "$reps repetitions: host probes"
  [[ -f $tmp/out/results/probe/host_fault_speed.r$reps.json ]] || fail "$reps repetitions: probe r$reps missing"
  # Each repetition starts with its own probe.
  [[ $(grep -o '^replay traces/[a-z]*/[a-z_]*' "$tmp/calls.log" | head -3 | paste -sd' ') == \
    "replay traces/probe/host_fault_speed replay traces/validation/a replay traces/validation/b" ]] ||
    fail "$reps repetitions: order $(cat "$tmp/calls.log")"
  listing=$(tar -tzf "$tmp/out/results.tgz")
  grep -q "results/hw/b.r$reps.json" <<<"$listing" || fail "$reps repetitions: results.tgz lacks b.r$reps"
  grep -q "using prebuilt $stub" "$tmp/out/results/logs/run.log" || fail "the prebuilt binary not named in run.log"
}
for reps in "" 5 1; do
  rm -rf "$tmp/out" "$tmp/calls.log"
  UMSIM_SUITE_REPS=$reps run suite >"$tmp/log" 2>&1 || fail "suite with UMSIM_SUITE_REPS='$reps': $(cat "$tmp/log")"
  check_suite "${reps:-3}"
done
echo PASS
