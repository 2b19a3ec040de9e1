#!/usr/bin/env bash
# Builds umsim-hip for AMD GPUs with Debian's hipcc (ROCm 5.2).
#   hip_backend/build_amd.sh [OUTPUT]           (default: build-amd/umsim-hip)
# UMSIM_OFFLOAD_ARCH overrides the targets (default gfx90a,gfx908: MI200, MI100).
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-build-amd/umsim-hip}
hipcc=${HIPCC:-$(command -v hipcc || true)}
[[ -n $hipcc ]] || { echo "build_amd.sh: hipcc not found (apt-get install hipcc libamdhip64-dev)" >&2; exit 1; }
obj=$(dirname "$out")/obj
mkdir -p "$obj"
cxxflags=(-std=c++20 -O2 -I.)

source hip_backend/host_sources.sh
# Only the touch kernel has device code; the rest of hip_backend/gpu/ is host code
# against ROCm's runtime API, compiled by the plain C++ compiler.
kernel_sources=(hip_backend/gpu/touch_kernels.cpp)
runtime_sources=()
for f in hip_backend/gpu/*.cpp; do [[ $f == "${kernel_sources[0]}" ]] || runtime_sources+=("$f"); done

objs=()
pids=()
for src in "${host_sources[@]}"; do
  o="$obj/$(echo "$src" | tr / _).o"
  objs+=("$o")
  ${CXX:-g++} "${cxxflags[@]}" -c "$src" -o "$o" & pids+=($!)
done
for src in "${runtime_sources[@]}"; do
  o="$obj/$(echo "$src" | tr / _).o"
  objs+=("$o")
  ${CXX:-g++} "${cxxflags[@]}" -D__HIP_PLATFORM_AMD__ -c "$src" -o "$o" & pids+=($!)
done
for src in "${kernel_sources[@]}"; do
  o="$obj/$(echo "$src" | tr / _).o"
  objs+=("$o")
  "$hipcc" --offload-arch="${UMSIM_OFFLOAD_ARCH:-gfx90a,gfx908}" "${cxxflags[@]}" -c "$src" -o "$o" & pids+=($!)
done
status=0
for p in "${pids[@]}"; do wait "$p" 2>/dev/null || status=1; done
((status == 0)) || { echo "build_amd.sh: compilation failed" >&2; exit 1; }
"$hipcc" --offload-arch="${UMSIM_OFFLOAD_ARCH:-gfx90a,gfx908}" -o "$out" "${objs[@]}" -lzstd -lfmt -ldl
echo "built $out"
