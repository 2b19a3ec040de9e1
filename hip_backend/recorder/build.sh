#!/usr/bin/env bash
# Builds the recorder outside Bazel (it needs the CUDA headers and CUPTI):
#   hip_backend/recorder/build.sh [OUTDIR]     (default: build-recorder/)
# produces OUTDIR/libumsim_recorder.so (the LD_PRELOAD library) and
# OUTDIR/umsim-hip-record (the launcher + log-to-trace converter).
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${1:-build-recorder}
cuda=${CUDA_HOME:-/usr/local/cuda}
[[ -f $cuda/include/cupti.h ]] || { echo "build.sh: $cuda/include/cupti.h not found (set CUDA_HOME)" >&2; exit 1; }
cupti_lib=$cuda/lib64
[[ -e $cupti_lib/libcupti.so ]] || cupti_lib=$cuda/extras/CUPTI/lib64
mkdir -p "$out"
cxx=${CXX:-g++}
$cxx -std=c++20 -O2 -fPIC -shared -I"$cuda/include" -I"$cuda/extras/CUPTI/include" \
  hip_backend/recorder/recorder_preload.cc -o "$out/libumsim_recorder.so" \
  -L"$cupti_lib" -L"$cuda/lib64/stubs" -lcupti -lcuda -Wl,-rpath,"$cupti_lib"
$cxx -std=c++20 -O2 -I. -DFMT_HEADER_ONLY \
  hip_backend/recorder/umsim_hip_record.cc hip_backend/recorder/record_main.cc hip_backend/recorder/record_log.cc \
  hip_backend/recorder/record_to_trace.cc traces/generators/trace_emitter.cc traces/generators/page_touch_set.cc \
  traces/*.cc -o "$out/umsim-hip-record" -lzstd -static-libstdc++ -static-libgcc
echo "built $out/libumsim_recorder.so $out/umsim-hip-record"
