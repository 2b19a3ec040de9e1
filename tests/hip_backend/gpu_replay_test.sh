#!/usr/bin/env bash
# Replays one small trace on a real GPU when the machine has one and a built
# umsim-hip (hip_backend/build_nvidia.sh or build_amd.sh); otherwise skips with
# a message. CI has no GPU: the GPU runs are made with hip_backend/device_run.sh.
set -uo pipefail
bin=""
for b in build-nvidia/umsim-hip build-amd/umsim-hip; do [[ -x $b ]] && bin=$b; done
if ! { command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; } && [[ ! -e /dev/kfd ]]; then
  echo "SKIP: no GPU on this machine (no working nvidia-smi, no /dev/kfd)"
  exit 0
fi
if [[ -z $bin ]]; then
  echo "SKIP: a GPU is present but umsim-hip is not built (run hip_backend/build_nvidia.sh or build_amd.sh)"
  exit 0
fi
tmp=${TEST_TMPDIR:-$(mktemp -d)}
"$bin" replay traces/validation/v05_prefetch_before_kernel.umt --json "$tmp/r.json" || { echo "FAIL: replay"; exit 1; }
python3 -c "
import json,sys; r=json.load(open('$tmp/r.json'))
assert r['producer']=='umsim-hip' and len(r['kernels'])==1 and r['kernels'][0]['counters']['time_ns']>0
" || { echo "FAIL: result"; exit 1; }
echo PASS
