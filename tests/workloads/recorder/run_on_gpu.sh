#!/usr/bin/env bash
# Records um_probe on a GPU machine with the recorder built by
# hip_backend/recorder/build.sh (um_probe prebuilt there, else compiled here):
#   tests/workloads/recorder/run_on_gpu.sh BUILD_DIR OUT_DIR
set -uo pipefail
build=${1:-build-recorder}
out=${2:-/tmp/umsim-record}
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,memory.used,memory.total --format=csv,noheader
ls -l /dev/nvidia*
# CUPTI's unified-memory counters need the UVM tools node; with UMSIM_CREATE_UVM_TOOLS=1
# create it where the machine exposes /dev/nvidia-uvm only (as nvidia-modprobe does).
if [[ ${UMSIM_CREATE_UVM_TOOLS:-0} == 1 && -c /dev/nvidia-uvm && ! -e /dev/nvidia-uvm-tools ]]; then
  major=$(awk '$2=="nvidia-uvm"{print $1}' /proc/devices)
  [[ -n $major ]] && mknod -m 666 /dev/nvidia-uvm-tools c "$major" 1 && echo "created /dev/nvidia-uvm-tools"
fi
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
