# Shared by the fit scripts' tests (fit_*_test.sh), sourced after their
# arguments are read: a scratch folder, the script under test copied beside
# the modules it imports, and the check every bad input gets.
tmp=${TEST_TMPDIR:-$(mktemp -d)}
fail() { echo "FAIL: $*"; exit 1; }

# fit_setup SCRIPT [MODULE...]: copies them into $tmp/bin (a fit script
# imports its modules from its own folder); `run ARGS...` then runs the copy.
fit_setup() {
  mkdir -p "$tmp/bin"
  cp "$@" "$tmp/bin/"
  fit_script="$tmp/bin/$(basename "$1")"
}
run() { python3 "$fit_script" "$@"; }

# refused WHAT PATTERN ARGS...: the script run with ARGS exits non-zero and
# says PATTERN (a grep pattern); WHAT names the bad input in the failure.
refused() {
  local what=$1 pattern=$2
  shift 2
  run "$@" >"$tmp/log" 2>&1 && fail "$what accepted"
  grep -q -- "$pattern" "$tmp/log" || fail "message for $what: $(cat "$tmp/log")"
}
