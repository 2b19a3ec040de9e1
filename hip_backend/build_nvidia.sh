#!/usr/bin/env bash
# Builds umsim-hip for NVIDIA GPUs with nvcc (sm_90) through hip_on_cuda.h.
# Bazel is not needed: this is the build used on GPU machines.
#   hip_backend/build_nvidia.sh [OUTPUT]        (default: build-nvidia/umsim-hip)
# Header-only dependencies (nlohmann-json, fmt) and zstd come from the system or
# from $UMSIM_DEPS (a folder with include/ and lib/), e.g. when carried to a
# machine without the Debian packages. CUPTI is loaded at run time (dlopen).
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-build-nvidia/umsim-hip}
nvcc=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
[[ -x $nvcc ]] || { echo "build_nvidia.sh: nvcc not found (set NVCC)" >&2; exit 1; }
cuda_home=$(dirname "$(dirname "$nvcc")")
obj=$(dirname "$out")/obj
mkdir -p "$obj"

inc=(-I. -I"$cuda_home/include")
libs=()
if [[ -n ${UMSIM_DEPS:-} ]]; then
  inc+=(-I"$UMSIM_DEPS/include")
  [[ -f $UMSIM_DEPS/lib/libzstd.a ]] && libs+=("$UMSIM_DEPS/lib/libzstd.a")
fi
((${#libs[@]})) || libs+=(-lzstd)
cxxflags=(-std=c++20 -O2 -DFMT_HEADER_ONLY "${inc[@]}")

source hip_backend/host_sources.sh
# Only files with device code go through nvcc; the rest of hip_backend/gpu/ is
# host code against the HIP-on-CUDA layer (-DUMSIM_HIP_ON_CUDA).
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
  ${CXX:-g++} "${cxxflags[@]}" -DUMSIM_HIP_ON_CUDA -c "$src" -o "$o" & pids+=($!)
done
for src in "${kernel_sources[@]}"; do
  o="$obj/$(echo "$src" | tr / _).o"
  objs+=("$o")
  "$nvcc" -x cu -arch=sm_90 "${cxxflags[@]}" -c "$src" -o "$o" & pids+=($!)
done
status=0
for p in "${pids[@]}"; do wait "$p" || status=1; done
((status == 0)) || { echo "build_nvidia.sh: compilation failed" >&2; exit 1; }
"$nvcc" -arch=sm_90 -o "$out" "${objs[@]}" "${libs[@]}" -ldl -Xcompiler -static-libstdc++ -Xcompiler -static-libgcc
echo "built $out"
