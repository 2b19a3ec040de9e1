#!/bin/bash
# End-to-end: `umsim policies` lists every policy with parameters and defaults,
# and rejects an unknown kind with the list of kinds.
set -u
UMSIM="$1"
TRACE="$2"  # a small example trace
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

json="$("$UMSIM" policies --json - --kind prefetch)" || fail "--json exited $?"
grep -q '"name": "tree"' <<<"$json" || fail "JSON lacks tree"
grep -q '"default": "51"' <<<"$json" || fail "JSON lacks the threshold default"

err="$("$UMSIM" policies --kind nope 2>&1)"
status=$?
[ "$status" -eq 1 ] || fail "unknown kind exited $status, expected 1"
grep -q "unknown policy kind 'nope' (known: prefetch, evict, migrate, thrashing, vendor)" <<<"$err" ||
  fail "unexpected message: $err"

# Policy specs on `umsim replay`: resolved once, listed in the summary; mistakes list what exists.
out="$("$UMSIM" replay "$TRACE" --vendor nvidia --evict lru:granularity=64KiB --gpu-mem 96MiB 2>&1)" ||
  fail "replay with policies exited $?: $out"
grep -q "prefetch tree, evict lru, migrate driver, thrashing driver" <<<"$out" || fail "unexpected summary: $out"
err="$("$UMSIM" replay "$TRACE" --prefetch tree:thresh=3 2>&1)"
status=$?
[ "$status" -eq 1 ] || fail "bad parameter exited $status, expected 1"
grep -q "unknown parameter 'thresh' (parameters: threshold, min_faults, big_page)" <<<"$err" || fail "message: $err"
# The known names come from the listing itself, so registering a policy never breaks this test.
known=$("$UMSIM" policies --kind evict | sed -n 's/^  \([^ ][^ ]*\) .*/\1/p' | paste -sd, - | sed 's/,/, /g')
grep -q "belady, clock, fifo, lfu, lru, random, tree-preevict" <<<"$known" || fail "evict listing: $known"
err="$("$UMSIM" replay "$TRACE" --evict lru2 2>&1)"
[ "$err" = "umsim: unknown evict policy 'lru2' (known: $known)" ] || fail "message: $err"
err="$("$UMSIM" replay "$TRACE" --vendor intel 2>&1)"
grep -q "intel" <<<"$err" && grep -q "nvidia, amd-xnack-on, amd-xnack-off" <<<"$err" || fail "message: $err"
echo PASS
