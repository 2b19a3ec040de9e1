#!/usr/bin/env bash
# Writes the two-GPU profile: profiles/derive_h200x2.py's derivation (the
# calibrated single-GPU profile with two GPUs and the two-GPU calibration's
# GPU-to-GPU fit), then its host part (the GPU- and CPU-fault servicing keys)
# re-measured from that same calibration's host-bound runs
# (hip_backend/calibration_as_probe.py, hip_backend/host_rescale.py): the
# two-GPU machine's host, which services faults at about half the single-GPU
# calibration's cost (docs/validation.md, "Two GPUs on one timeline").
#   profiles/derive_h200x2.sh UMSIM_BINARY [OUT.toml]   (default profiles/h200x2-nvlink.toml)
# OUT is written through a temporary file and renamed (by host_rescale.py).
set -euo pipefail
[[ $# -ge 1 && $# -le 2 ]] || { echo "usage: profiles/derive_h200x2.sh UMSIM_BINARY [OUT.toml]" >&2; exit 2; }
umsim=$(realpath "$1")
out=$(realpath -m "${2:-profiles/h200x2-nvlink.toml}")
[[ -x $umsim ]] || { echo "derive_h200x2.sh: $1 is not an executable umsim binary" >&2; exit 1; }
cd "$(dirname "$0")/.."
raw=profiles/raw/h200x2-nvlink
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 profiles/derive_h200x2.py profiles/h200-pcie5.toml "$raw/fit_values.txt" >"$tmp/derived.toml"
python3 hip_backend/calibration_as_probe.py "$raw/calibration.json" "$tmp" >/dev/null
python3 hip_backend/host_rescale.py \
  --source "the two-GPU machine's calibration: its host-bound runs (hip_backend/calibration_as_probe.py on $raw/calibration.json)" \
  "$tmp/derived.toml" "$umsim" "$tmp/probe.umt" "$out" "$tmp/probe.json" >/dev/null
