#!/usr/bin/env bash
# Proves the HIP backend's GPU sources build for AMD with Debian's hipcc
# (--offload-arch=gfx90a,gfx908): the touch kernel for the GPU, the runtime
# against ROCm's API. Compile only (no GPU is needed). Also checks that
# build_amd.sh refuses, before compiling anything, a target this hipcc cannot
# build (gfx942 with Debian's ROCm 5.2 clang).
set -uo pipefail
hipcc=$(command -v hipcc || true)
if [[ -z $hipcc ]]; then
  echo "FAIL: hipcc not found (./bazelw installs hipcc and libamdhip64-dev when its targets include this test, e.g. //...; or set UMSIM_WITH_HIP=1)"
  exit 1
fi
tmp=${TEST_TMPDIR:-$(mktemp -d)}
root=$(pwd)
set -e
"$hipcc" --offload-arch=gfx90a,gfx908 -std=c++20 -O1 -I"$root" -c hip_backend/gpu/touch_kernels.cpp -o "$tmp/touch.o"
for f in hip_backend/gpu/replay_runtime.cpp hip_backend/gpu/um_counter_source.cpp; do
  g++ -std=c++20 -O0 -fsyntax-only -D__HIP_PLATFORM_AMD__ -I"$root" "$f"
done
# The AMD binary has both device code objects.
grep -qa gfx90a "$tmp/touch.o" && grep -qa gfx908 "$tmp/touch.o" || { echo "FAIL: offload targets missing"; exit 1; }
printf '#include <hip/hip_runtime.h>\n__global__ void probe(int* p) { *p = 1; }\n' > "$tmp/probe.hip"
if ! "$hipcc" --offload-arch=gfx942 -c "$tmp/probe.hip" -o "$tmp/probe.o" >/dev/null 2>&1; then
  set +e
  out=$(UMSIM_OFFLOAD_ARCH=gfx90a,gfx942 bash hip_backend/build_amd.sh "$tmp/build/umsim-hip" 2>&1)
  rc=$?
  set -e
  [[ $rc -ne 0 ]] || { echo "FAIL: build_amd.sh accepted gfx942 that $hipcc cannot build"; exit 1; }
  grep -q "cannot build for 'gfx942'" <<< "$out" || { echo "FAIL: unclear message: $out"; exit 1; }
  [[ ! -e $tmp/build/umsim-hip ]] || { echo "FAIL: an output was written"; exit 1; }
fi
echo PASS
