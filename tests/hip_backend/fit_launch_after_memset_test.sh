#!/usr/bin/env bash
# hip_backend/fit_launch_after_memset.py on the committed calibration runs of
# session 40 (phase "kernel" less kernel "update": 181298, 296058, 318773 ns;
# median 296058, less the profile's sync return 6082), on a profile with
# another value, on one without the sync return, and its bad inputs.
set -uo pipefail
fit=$1 tune=$2 rescale=$3 profile=$4
shift 4
runs=("$@")
tmp=${TEST_TMPDIR:-$(mktemp -d)}
fail() { echo "FAIL: $*"; exit 1; }
mkdir -p "$tmp/bin"
cp "$fit" "$tune" "$rescale" "$tmp/bin/"  # the script imports tune_profile.py and host_rescale.py from its own folder
run() { python3 "$tmp/bin/fit_launch_after_memset.py" "$@"; }

sed 's/^launch_after_memset_cost = "[0-9]*ns"/launch_after_memset_cost = "1ns"/' "$profile" >"$tmp/in.toml"
grep -q '^launch_after_memset_cost = "1ns"' "$tmp/in.toml" || fail "the profile has no launch_after_memset_cost line"
run "$tmp/in.toml" "$tmp/out.toml" "${runs[@]}" >"$tmp/log" 2>&1 || { cat "$tmp/log"; fail "fit refused good runs"; }
grep -q '"value_ns": 289976' "$tmp/log" || fail "value: $(cat "$tmp/log")"
grep -q '^launch_after_memset_cost = "289976ns" *# host time before' "$tmp/out.toml" || fail "key not written with its comment"
diff <(grep -v '^launch_after_memset_cost' "$tmp/in.toml") <(grep -v '^launch_after_memset_cost' "$tmp/out.toml") \
  || fail "other lines changed"
# Without host.sync_return_cost the gap is the key.
grep -v '^sync_return_cost' "$tmp/in.toml" >"$tmp/nosync.toml"
run "$tmp/nosync.toml" "$tmp/out2.toml" "${runs[@]}" >"$tmp/log" 2>&1 || { cat "$tmp/log"; fail "fit refused a profile without the sync return"; }
grep -q '"value_ns": 296058' "$tmp/log" || fail "value without the sync return: $(cat "$tmp/log")"

# Bad inputs: each refused with a message naming the file, nothing written.
rm -f "$tmp/out.toml"
echo '{"phases": [], "kernels": []}' >"$tmp/other.json"
run "$tmp/in.toml" "$tmp/out.toml" "$tmp/other.json" >"$tmp/log" 2>&1 && fail "a run without the phase accepted"
grep -q "other.json: expected a phase 'kernel' and a kernel 'update'" "$tmp/log" || fail "message: $(cat "$tmp/log")"
echo 'not json' >"$tmp/bad.json"
run "$tmp/in.toml" "$tmp/out.toml" "$tmp/bad.json" >"$tmp/log" 2>&1 && fail "a broken run accepted"
grep -q "bad.json: not an umsim-hip replay result" "$tmp/log" || fail "message: $(cat "$tmp/log")"
grep -v '^launch_after_memset_cost' "$tmp/in.toml" >"$tmp/nokey.toml"
run "$tmp/nokey.toml" "$tmp/out.toml" "${runs[@]}" >"$tmp/log" 2>&1 && fail "a profile without the key accepted"
grep -q "no host.launch_after_memset_cost key in its \[host\] table" "$tmp/log" || fail "message: $(cat "$tmp/log")"
run "$tmp/in.toml" "$tmp/in.toml" "${runs[@]}" >"$tmp/log" 2>&1 && fail "OUT naming an input accepted"
grep -q "names an input" "$tmp/log" || fail "message: $(cat "$tmp/log")"
grep -q '"1ns"' "$tmp/in.toml" || fail "the input was changed"
[[ -e $tmp/out.toml ]] && fail "an output was written on error"
run "$tmp/in.toml" >"$tmp/log" 2>&1 && fail "no runs accepted"
grep -q "usage:" "$tmp/log" || fail "usage: $(cat "$tmp/log")"
echo PASS
