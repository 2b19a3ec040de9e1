#!/usr/bin/env bash
# hip_backend/install_call.py: a GPU-machine call's results.tgz filed where the
# repository keeps every call (a calibrated suite with probes, a diagnostic),
# and the archives and repositories it must refuse without writing anything.
set -uo pipefail
install=$1
tmp=${TEST_TMPDIR:-$(mktemp -d)}
fail() { echo "FAIL: $*"; exit 1; }
run() { python3 "$install" "$@"; }

# A call as hip_backend/device_run.sh packs it: calibrate suite probe diag on an H100.
make_call() {  # DIR GPU_NAME
  local r=$1/results
  mkdir -p "$r/logs" "$r/hw" "$r/hw_host" "$r/probe" "$r/raw" "$r/diag" "$r/host_modes" "$r/host_cpus"
  printf 'date=2026-12-06T09:56Z\nhost=vm\ngpu=%s\ncuda=13.0\n' "$2" >"$r/logs/machine.txt"
  for f in dev-nodes.txt probe.log lscpu.txt calibrate.log nvidia-smi.txt uvm-params.txt run.log build.log; do echo "$f" >"$r/logs/$f"; done
  for rep in 1 2 3; do
    echo "{\"rep\": $rep}" >"$r/hw/v01_sequential_first_touch.r$rep.json"
    echo "{\"host\": $rep}" >"$r/hw_host/v01_sequential_first_touch.r$rep.json"
    echo "{\"probe\": $rep}" >"$r/probe/host_fault_speed.r$rep.json"
    echo "{\"layout\": $rep}" >"$r/host_modes/fixed.$rep.json"
    echo "{\"cpus\": $rep}" >"$r/host_cpus/high.$rep.json"
    echo "{\"cal\": $rep}" >"$r/raw/cpu_faults.r$rep.json"
    echo "{\"diag\": $rep}" >"$r/diag/d1_case.r$rep.json"
    echo "kind,start_ns" >"$r/diag/d1_case.r$rep.csv"
  done
  echo '{"calibration": 1}' >"$r/raw/calibration.json"
  echo 'name = "before"' >"$r/raw/h200-pcie5.before.toml"
  echo 'name = "fitted"' >"$r/raw/h200-pcie5.toml"
}
make_repo() {  # DIR
  mkdir -p "$1/hip_backend/pending_diagnostics/case" "$1/profiles"
  echo "umsim-trace 1" >"$1/hip_backend/pending_diagnostics/case/d1_case.umt"
}

make_call "$tmp/call" "NVIDIA H100 80GB HBM3"
(cd "$tmp/call" && tar -czf ../call.tgz results) || fail "could not pack the test archive"
make_repo "$tmp/repo"

run >"$tmp/out" 2>&1 && fail "no arguments: exit 0"
grep -q "usage:" "$tmp/out" || fail "no usage line: $(cat "$tmp/out")"

# A diagnostic's runs need its name.
run --root "$tmp/repo" "$tmp/call.tgz" 108 >"$tmp/out" 2>&1 && fail "diag/ without --diag: exit 0"
grep -q "diag/): name it with --diag NAME" "$tmp/out" || fail "diag/ without --diag: $(cat "$tmp/out")"
[[ -z $(ls "$tmp/repo/hip_backend" | grep -v pending_diagnostics) ]] || fail "a refused call wrote something"

run --root "$tmp/repo" --diag case "$tmp/call.tgz" 108 >"$tmp/out" 2>&1 || { cat "$tmp/out"; fail "the call was refused"; }
R=$tmp/repo/hip_backend/results/h100-hbm3
P=$tmp/repo/profiles/raw/h100-hbm3/later/session108
[[ $(cat "$tmp/out") == "hip_backend/results/h100-hbm3/session108
profiles/raw/h100-hbm3/later/session108
hip_backend/results/h100-hbm3/diag_case" ]] || fail "report: $(cat "$tmp/out")"
for rep in 1 2 3; do
  grep -q "\"rep\": $rep" "$R/session108/v01_sequential_first_touch.r$rep.json" || fail "suite run $rep"
  grep -q "\"host\": $rep" "$R/session108/host/v01_sequential_first_touch.r$rep.json" || fail "host run $rep"
  grep -q "\"probe\": $rep" "$R/session108/probe/host_fault_speed.r$rep.json" || fail "probe run $rep"
  grep -q "\"layout\": $rep" "$R/session108/host_modes/fixed.$rep.json" || fail "host-mode run $rep"
  grep -q "\"cpus\": $rep" "$R/session108/host_cpus/high.$rep.json" || fail "host-cpus run $rep"
  grep -q "\"cal\": $rep" "$P/cpu_faults.r$rep.json" || fail "calibration run $rep"
  grep -q "\"diag\": $rep" "$R/diag_case/d1_case.r$rep.json" || fail "diagnostic run $rep"
  [[ -f $R/diag_case/d1_case.r$rep.csv ]] || fail "diagnostic records $rep"
done
for f in machine.txt dev-nodes.txt probe.log; do [[ -f $R/session108/$f ]] || fail "session108/$f"; done
for f in calibration.json calibrate.log nvidia-smi.txt uvm-params.txt machine.txt; do [[ -f $P/$f ]] || fail "calibration's $f"; done
grep -q 'name = "fitted"' "$P/calibrated.toml" || fail "calibrated.toml is not the fitted profile"
[[ ! -e $P/h200-pcie5.before.toml && ! -e $P/h200-pcie5.toml ]] || fail "the profile before the fit was filed"
[[ ! -e $R/session108/run.log && ! -e $R/session108/build.log ]] || fail "build and run logs filed beside the results"
[[ -f $R/diag_case/machine.txt && -f $R/diag_case/traces/d1_case.umt ]] || fail "diagnostic's machine or traces"
[[ ! -e $tmp/repo/hip_backend/pending_diagnostics/case ]] || fail "the pending traces stayed"
[[ -z $(find "$tmp/repo" -name '*.installing') ]] || fail "a temporary folder was left"

# Filed once: the same call again is refused, and what was filed is untouched.
cp -r "$tmp/repo" "$tmp/before"
make_repo "$tmp/repo"
run --root "$tmp/repo" --diag case "$tmp/call.tgz" 108 >"$tmp/out" 2>&1 && fail "filing a call twice: exit 0"
grep -q "session108 exists already: nothing written" "$tmp/out" || fail "filing twice: $(cat "$tmp/out")"
rm -r "$tmp/repo/hip_backend/pending_diagnostics/case"
diff -r "$tmp/before" "$tmp/repo" >/dev/null || fail "a refused call changed the repository"

# Another session number files beside it; the GPU's family can be named for an unknown GPU.
make_call "$tmp/other" "NVIDIA B200"
rm -r "$tmp/other/results/diag"
(cd "$tmp/other" && tar -czf ../other.tgz results)
run --root "$tmp/repo" "$tmp/other.tgz" 109 >"$tmp/out" 2>&1 && fail "unknown GPU: exit 0"
grep -q "no profile family for GPU 'NVIDIA B200'.*--gpu DIR" "$tmp/out" || fail "unknown GPU: $(cat "$tmp/out")"
run --root "$tmp/repo" --gpu b200-sxm "$tmp/other.tgz" 109 >"$tmp/out" 2>&1 || { cat "$tmp/out"; fail "--gpu refused"; }
[[ -f $tmp/repo/hip_backend/results/b200-sxm/session109/probe/host_fault_speed.r1.json ]] || fail "--gpu folder"

# Bad archives and arguments: each a clear error, nothing written.
expect_refused() {  # PATTERN ARGS...
  local pattern=$1; shift
  cp -r "$tmp/repo" "$tmp/snapshot"
  run --root "$tmp/repo" "$@" >"$tmp/out" 2>&1 && fail "$* accepted"
  grep -q -- "$pattern" "$tmp/out" || fail "$*: expected '$pattern', got: $(cat "$tmp/out")"
  diff -r "$tmp/snapshot" "$tmp/repo" >/dev/null || fail "$*: the repository changed"
  rm -r "$tmp/snapshot"
}
echo "not an archive" >"$tmp/text.tgz"
expect_refused "text.tgz: not a readable results archive" "$tmp/text.tgz" 110
expect_refused "missing.tgz: not a readable results archive" "$tmp/missing.tgz" 110
mkdir -p "$tmp/empty/results/logs" && (cd "$tmp/empty" && tar -czf ../nomachine.tgz results)
expect_refused "no results/logs/machine.txt" "$tmp/nomachine.tgz" 110
make_call "$tmp/nogpu" "" && rm -r "$tmp/nogpu/results/diag" && (cd "$tmp/nogpu" && tar -czf ../nogpu.tgz results)
expect_refused "machine.txt line 3: \`gpu=\` is empty" "$tmp/nogpu.tgz" 110
make_call "$tmp/two" "NVIDIA H200" && mkdir -p "$tmp/two/results/hw2" && echo '{}' >"$tmp/two/results/hw2/m1.r1.json"
(cd "$tmp/two" && tar -czf ../two.tgz results)
expect_refused "a two-GPU call (hw2/)" "$tmp/two.tgz" 110
make_call "$tmp/twofit" "NVIDIA H200" && rm -r "$tmp/twofit/results/diag" && echo 'x' >"$tmp/twofit/results/raw/other.toml"
(cd "$tmp/twofit" && tar -czf ../twofit.tgz results)
expect_refused "expected one fitted profile" "$tmp/twofit.tgz" 110
mkdir -p "$tmp/evil" && echo x >"$tmp/evil/x" && tar -czf "$tmp/evil.tgz" -C "$tmp/evil" --transform 's,^,../,' x
expect_refused "is not a plain file or folder inside the archive" "$tmp/evil.tgz" 110
expect_refused "SESSION must be a number" "$tmp/call.tgz" 1x0
expect_refused "--diag case: no folder" --diag case "$tmp/call.tgz" 111
expect_refused "no diagnostic runs" --gpu b200-sxm --diag case "$tmp/other.tgz" 111
expect_refused "--diag must name a folder" --diag ../x "$tmp/call.tgz" 111
python3 "$install" --root "$tmp/nowhere" "$tmp/call.tgz" 111 >"$tmp/out" 2>&1 && fail "a root without hip_backend/ accepted"
grep -q "not the repository" "$tmp/out" || fail "bad root: $(cat "$tmp/out")"
echo "install_call_test: ok"
