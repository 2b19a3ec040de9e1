#!/usr/bin/env bash
# Proves the HIP backend's GPU sources build for NVIDIA (sm_90) with nvcc
# through the HIP-on-CUDA layer (hip_backend/hip_on_cuda.h). Skips, saying so,
# where no CUDA toolkit is installed (CI machines without /usr/local/cuda).
set -uo pipefail
nvcc=${NVCC:-/usr/local/cuda/bin/nvcc}
if [[ ! -x $nvcc ]]; then
  echo "SKIP: $nvcc not found; the NVIDIA build of the HIP backend is not checked on this machine"
  exit 0
fi
root=$(pwd)
tmp=${TEST_TMPDIR:-$(mktemp -d)}
set -e
cuda=$(dirname "$(dirname "$nvcc")")
"$nvcc" -x cu -arch=sm_90 -std=c++20 -O1 -I"$root" -c hip_backend/gpu/touch_kernels.cpp -o "$tmp/touch.o"
for f in hip_backend/gpu/replay_runtime.cpp hip_backend/gpu/um_counter_source.cpp hip_backend/gpu/calibrate.cpp; do
  g++ -std=c++20 -O0 -fsyntax-only -DUMSIM_HIP_ON_CUDA -DFMT_HEADER_ONLY -I"$root" -I"$cuda/include" "$f"
done
# The object embeds sm_90 machine code (the fatbin names its target).
grep -qa "sm_90" "$tmp/touch.o" || { echo "FAIL: no sm_90 code in the object"; exit 1; }
echo PASS
