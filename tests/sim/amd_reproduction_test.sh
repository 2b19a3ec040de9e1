#!/usr/bin/env bash
# Golden: the model's numbers for the published AMD measurements
# (traces/amd/reproduction.md, quoted in docs/validation.md) must not move
# unnoticed. After an intended model or profile change:
#   python3 traces/amd/reproduce.py bazel-bin/tools/umsim --write traces/amd/reproduction.md
# and review the diff (and the docs that quote it).
set -euo pipefail
umsim=$1
python3 traces/amd/reproduce.py "$umsim" --check traces/amd/reproduction.md
