#!/usr/bin/env bash
# Builds umsim-hip for AMD GPUs with Debian's hipcc (ROCm 5.2).
#   hip_backend/build_amd.sh [OUTPUT]           (default: build-amd/umsim-hip)
# UMSIM_OFFLOAD_ARCH overrides the targets (default gfx90a,gfx908: MI200, MI100).
set -euo pipefail
cd "$(dirname "$0")/.."
source hip_backend/build_common.sh
name=build_amd.sh
out=${1:-build-amd/umsim-hip}
hipcc=${HIPCC:-$(command -v hipcc || true)}
[[ -n $hipcc ]] || { echo "build_amd.sh: hipcc not found (apt-get install hipcc libamdhip64-dev)" >&2; exit 1; }
obj=$(dirname "$out")/obj
arch=--offload-arch="${UMSIM_OFFLOAD_ARCH:-gfx90a,gfx908}"
cxxflags=(-std=c++20 -O2 -I.)
runtime_flags=(-D__HIP_PLATFORM_AMD__)
kernel_cmd=("$hipcc" "$arch")
compile_all
"$hipcc" "$arch" -o "$out" "${objs[@]}" -lzstd -lfmt -ldl
echo "built $out"
