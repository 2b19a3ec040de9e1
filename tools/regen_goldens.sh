#!/bin/bash
# Regenerates the policy goldens (tests/policies/golden/small.json) after an
# intended change to a policy or to the model. Review the diff before committing:
#   tools/regen_goldens.sh && git diff tests/policies/golden/
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
./bazelw build //tests/policies:golden_test
# The test reads its inputs relative to the runfiles root, as under `bazel test`.
cd bazel-bin/tests/policies/golden_test.runfiles/umsim
UMSIM_UPDATE_GOLDEN="$root/tests/policies/golden/small.json" \
  ./tests/policies/golden_test --gtest_filter='Golden.EveryPolicyCombinationMatchesTheStoredTotals'
echo "updated tests/policies/golden/small.json; review with: git diff tests/policies/golden/"
