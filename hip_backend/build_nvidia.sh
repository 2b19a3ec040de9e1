#!/usr/bin/env bash
# Builds umsim-hip for NVIDIA GPUs with nvcc (sm_90) through hip_on_cuda.h.
# Bazel is not needed: this is the build used on GPU machines.
#   hip_backend/build_nvidia.sh [OUTPUT]        (default: build-nvidia/umsim-hip)
# Header-only dependencies (nlohmann-json, fmt) and zstd come from the system or
# from $UMSIM_DEPS (a folder with include/ and lib/), e.g. when carried to a
# machine without the Debian packages. CUPTI is loaded at run time (dlopen).
set -euo pipefail
cd "$(dirname "$0")/.."
source hip_backend/build_common.sh
name=build_nvidia.sh
out=${1:-build-nvidia/umsim-hip}
nvcc=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
[[ -x $nvcc ]] || { echo "build_nvidia.sh: nvcc not found (set NVCC)" >&2; exit 1; }
cuda_home=$(dirname "$(dirname "$nvcc")")
obj=$(dirname "$out")/obj

inc=(-I. -I"$cuda_home/include")
libs=()
if [[ -n ${UMSIM_DEPS:-} ]]; then
  inc+=(-I"$UMSIM_DEPS/include")
  [[ -f $UMSIM_DEPS/lib/libzstd.a ]] && libs+=("$UMSIM_DEPS/lib/libzstd.a")
fi
((${#libs[@]})) || libs+=(-lzstd)
cxxflags=(-std=c++20 -O2 -DFMT_HEADER_ONLY "${inc[@]}")
runtime_flags=(-DUMSIM_HIP_ON_CUDA)
kernel_cmd=("$nvcc" -x cu -arch=sm_90)
compile_all
"$nvcc" -arch=sm_90 -o "$out" "${objs[@]}" "${libs[@]}" -ldl -Xcompiler -static-libstdc++ -Xcompiler -static-libgcc
echo "built $out"
