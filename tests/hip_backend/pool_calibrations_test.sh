#!/usr/bin/env bash
# hip_backend/pool_calibrations.py: pooled keys at the median of hand-made
# calibrations whose values are known, every other key and comment kept; and
# its bad inputs.
set -uo pipefail
script=$1 rescale=$2 tune=$3 profile=$4
tmp=${TEST_TMPDIR:-$(mktemp -d)}
fail() { echo "FAIL: $*"; exit 1; }
mkdir -p "$tmp/bin"
cp "$script" "$rescale" "$tune" "$tmp/bin/"  # pool_calibrations.py imports both from its own folder
run() { python3 "$tmp/bin/pool_calibrations.py" "$@"; }
value() { grep -E "^$2 *=" <(sed -n "/^\[$1\]/,/^\[/p" "$3") | head -1 | sed 's/#.*//; s/^[^=]*= *//; s/ *$//'; }

run >"$tmp/out" 2>&1 && fail "no arguments: exit 0"
grep -q "usage: pool_calibrations.py" "$tmp/out" || fail "no usage line: $(cat "$tmp/out")"

# Three calibrations: the committed profile with launch_cost 5000 / 7000 / 6000 ns,
# gpu.access_cost (and remote.access_cost) 0.3 / 0.1 / 0.2 ns, pageable_copy_gbps
# 7.5 / 9.0 / 6.0 and gpu.access_gbps 4900 / 5000 / 5101: medians 6000 ns, 0.2 ns,
# 7.5 and 5000. remote.access_cost is not pooled: fit_remote_requests.py fits it
# with remote.request_cost, and a calibration's own fit has no request cost.
i=0
for v in "5000 0.300 7.5 4900" "7000 0.100 9.0 5000" "6000 0.200 6.0 5101"; do
  set -- $v; i=$((i + 1)); mkdir -p "$tmp/c$i"
  sed -e "s/^launch_cost = \"[0-9]*ns\"/launch_cost = \"$1ns\"/" \
      -e "/^\[gpu\]/,/^\[/s/^access_cost = \"[0-9.]*ns\"/access_cost = \"$2ns\"/" \
      -e "/^\[remote\]/,/^\[/s/^access_cost = \"[0-9.]*ns\"/access_cost = \"$2ns\"/" \
      -e "s/^pageable_copy_gbps = [0-9.]*/pageable_copy_gbps = $3/" \
      -e "s/^access_gbps = [0-9]*/access_gbps = $4/" "$profile" >"$tmp/c$i/calibrated.toml"
done
# remote.gpu_to_host_gbps comes from each calibration's whole reads of host
# memory ("remote" runs, time less the launch overhead), not its calibrated.toml:
# 50 / 52 / 51.25 GB/s at the median of each one's three runs, pooled 51.25.
i=0
for rates in "50 50.5 49" "52 53 51.75" "51.25 51.25 40"; do
  i=$((i + 1))
  python3 -c '
import json, sys
bytes_ = 268435456
runs = [{"memory": m, "bytes": bytes_, "time_ns": bytes_ / float(r) + 4000}
        for m, r in zip(("pinned", "mapped", "accessed_by"), sys.argv[2:])]
json.dump({"launch_overhead_ns": 4000, "remote": runs}, open(sys.argv[1], "w"))' "$tmp/c$i/calibration.json" $rates
done
run "$profile" "$tmp/p.toml" "$tmp"/c[123] >"$tmp/out" 2>&1 || { cat "$tmp/out"; fail "three calibrations refused"; }
[[ $(value gpu launch_cost "$tmp/p.toml") == '"6000ns"' ]] || fail "launch_cost: $(value gpu launch_cost "$tmp/p.toml")"
[[ $(value gpu access_cost "$tmp/p.toml") == '"0.200ns"' ]] || fail "gpu.access_cost: $(value gpu access_cost "$tmp/p.toml")"
[[ $(value remote access_cost "$tmp/p.toml") == $(value remote access_cost "$profile") ]] ||
  fail "remote.access_cost pooled: $(value remote access_cost "$tmp/p.toml")"
[[ $(value host pageable_copy_gbps "$tmp/p.toml") == 7.5 ]] || fail "pageable_copy_gbps: $(value host pageable_copy_gbps "$tmp/p.toml")"
[[ $(value gpu access_gbps "$tmp/p.toml") == 5000 ]] || fail "access_gbps: $(value gpu access_gbps "$tmp/p.toml")"
[[ $(value remote gpu_to_host_gbps "$tmp/p.toml") == 51.25 ]] ||
  fail "remote.gpu_to_host_gbps: $(value remote gpu_to_host_gbps "$tmp/p.toml")"
grep -qF "remote.gpu_to_host_gbps: $(value remote gpu_to_host_gbps "$profile") -> 51.25 (median of 3; 50-52)" "$tmp/out" ||
  fail "gpu_to_host_gbps report: $(cat "$tmp/out")"
grep -qF "gpu.launch_cost: $(value gpu launch_cost "$profile") -> \"6000ns\" (median of 3; 5000-7000)" "$tmp/out" ||
  fail "report: $(cat "$tmp/out")"
# Keys not pooled, and every comment, stay as they were.
diff <(grep -v -E '^(launch_cost|access_cost|pageable_copy_gbps|access_gbps|gpu_to_host_gbps) ' "$profile") \
     <(grep -v -E '^(launch_cost|access_cost|pageable_copy_gbps|access_gbps|gpu_to_host_gbps) ' "$tmp/p.toml") >/dev/null ||
  fail "a key not pooled or a comment changed"
grep -q '^launch_cost = "6000ns" *# per kernel' "$tmp/p.toml" || fail "launch_cost lost its comment"

# --keys pools only the keys named.
run --keys gpu.launch_cost "$profile" "$tmp/k.toml" "$tmp"/c[123] >"$tmp/out" 2>&1 || fail "--keys refused"
[[ $(grep -c . "$tmp/out") -eq 1 ]] || fail "--keys: more than one key pooled: $(cat "$tmp/out")"
[[ $(value gpu access_cost "$tmp/k.toml") == $(value gpu access_cost "$profile") ]] || fail "--keys: another key moved"

# Bad inputs: a clear message, exit 1, and no output written.
expect_error() {  # MESSAGE ARGS...
  local message=$1; shift
  rm -f "$tmp/bad.toml"
  run "$@" >"$tmp/out" 2>&1 && fail "accepted: $*"
  grep -qF -- "$message" "$tmp/out" || fail "for $*: expected '$message', got: $(cat "$tmp/out")"
  [[ ! -e $tmp/bad.toml ]] || fail "an output was written for $*"
}
expect_error "usage:" "$profile" "$tmp/bad.toml"
expect_error "no such file" "$profile" "$tmp/bad.toml" "$tmp/none"
mkdir -p "$tmp/broken" "$tmp/lacking"
echo "[gpu" >"$tmp/broken/calibrated.toml"
expect_error "not valid TOML" "$profile" "$tmp/bad.toml" "$tmp/c1" "$tmp/broken"
grep -v '^launch_cost' "$profile" >"$tmp/lacking/calibrated.toml"
cp "$tmp/c1/calibration.json" "$tmp/lacking/"
expect_error "lacking/calibrated.toml: no key gpu.launch_cost" "$profile" "$tmp/bad.toml" "$tmp/c1" "$tmp/lacking"
# A calibration without its runs, or with no whole reads of host memory, for remote.gpu_to_host_gbps.
mkdir -p "$tmp/no_runs" "$tmp/no_remote"
cp "$tmp/c1/calibrated.toml" "$tmp/no_runs/"
expect_error "no_runs/calibration.json: no whole reads of host memory" "$profile" "$tmp/bad.toml" "$tmp/c1" "$tmp/no_runs"
cp "$tmp/c1/calibrated.toml" "$tmp/no_remote/"
echo '{"launch_overhead_ns": 4000, "remote": []}' >"$tmp/no_remote/calibration.json"
expect_error "no_remote/calibration.json: 'remote' holds no runs" "$profile" "$tmp/bad.toml" "$tmp/c1" "$tmp/no_remote"
expect_error "no key gpu.nonsense to pool" --keys gpu.nonsense "$profile" "$tmp/bad.toml" "$tmp/c1"
expect_error "--keys needs" --keys "" "$profile" "$tmp/bad.toml" "$tmp/c1"
expect_error "must end in .toml" "$profile" "$tmp/bad.txt" "$tmp/c1"
# An output naming an input is refused, and the input is untouched.
cp "$tmp/c1/calibrated.toml" "$tmp/keep.toml"
run "$profile" "$tmp/c1/calibrated.toml" "$tmp/c1" >"$tmp/out" 2>&1 && fail "an output naming an input was accepted"
grep -q "refused" "$tmp/out" || fail "no refusal message: $(cat "$tmp/out")"
cmp -s "$tmp/keep.toml" "$tmp/c1/calibrated.toml" || fail "the input was changed"
echo PASS
