#!/bin/bash
# End-to-end: `umsim policies` lists every policy with parameters and defaults,
# and rejects an unknown kind with the list of kinds.
set -u
UMSIM="$1"
fail() { echo "FAIL: $*"; exit 1; }

out="$("$UMSIM" policies)" || fail "umsim policies exited $?"
for name in tree sequential stride amd-window fifo lru lfu clock belady tree-preevict access-counter zero-copy; do
  grep -q "^  $name " <<<"$out" || fail "policy '$name' missing from the listing"
done
grep -Eq "threshold +int +default 51 " <<<"$out" || fail "tree threshold default not listed"
grep -Eq "lapse +duration +default 500us " <<<"$out" || fail "thrashing lapse default not listed"
grep -q -- "--prefetch tree --evict fifo --migrate driver --thrashing driver" <<<"$out" || fail "nvidia preset missing"

evict="$("$UMSIM" policies --kind evict)" || fail "--kind evict exited $?"
grep -q "^  lru " <<<"$evict" || fail "--kind evict lacks lru"
grep -q "^  tree " <<<"$evict" && fail "--kind evict lists the tree prefetcher"

json="$("$UMSIM" policies --json --kind prefetch)" || fail "--json exited $?"
grep -q '"name": "tree"' <<<"$json" || fail "JSON lacks tree"
grep -q '"default": "51"' <<<"$json" || fail "JSON lacks the threshold default"

err="$("$UMSIM" policies --kind nope 2>&1)"
status=$?
[ "$status" -eq 1 ] || fail "unknown kind exited $status, expected 1"
grep -q "unknown policy kind 'nope' (known: prefetch, evict, migrate, thrashing, vendor)" <<<"$err" ||
  fail "unexpected message: $err"
echo PASS
