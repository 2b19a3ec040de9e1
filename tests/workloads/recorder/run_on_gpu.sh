#!/usr/bin/env bash
# Records um_probe on a GPU machine with the recorder built by
# hip_backend/recorder/build.sh (um_probe prebuilt there, else compiled here):
#   tests/workloads/recorder/run_on_gpu.sh BUILD_DIR OUT_DIR
set -uo pipefail
build=${1:-build-recorder}
out=${2:-/tmp/umsim-record}
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,memory.used,memory.total --format=csv,noheader
if [[ ! -x $build/um_probe ]]; then
  "${NVCC:-/usr/local/cuda/bin/nvcc}" -O2 -arch=sm_90 tests/workloads/recorder/um_probe.cu -o "$build/um_probe" || exit 1
fi
echo "--- plain run"
"$build/um_probe"
for probe in um_probe um_probe_shared; do
  [[ -x $build/$probe ]] || continue
  echo "--- recorded run: $probe"
  timeout 60 "$build/umsim-hip-record" -o "$out/$probe.umt" --log "$out/$probe.log" \
    --recorder "$build/libumsim_recorder.so" -- "$build/$probe"
  echo "status $?"
  echo "--- log records by kind"
  awk '{print $1}' "$out/$probe.log" | sort | uniq -c
  grep -v '^um ' "$out/$probe.log" | head -30
  echo "--- um records by kind/flags"
  awk '$1=="um"{print "kind",$2,"flags",$7,"src",$8}' "$out/$probe.log" | sort | uniq -c
done
echo "--- trace"
cat "$out/um_probe.umt"
