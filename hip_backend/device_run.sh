#!/usr/bin/env bash
# Everything one GPU-machine call does, so device time is spent in few, full calls:
#   hip_backend/device_run.sh [calibrate] [probe] [suite] [suite2] [diag] [host_modes] [host_cpus] [smoke]
# Builds umsim-hip with build_nvidia.sh (falling back to a prebuilt binary in
# $UMSIM_PREBUILT), records the machine, runs the calibration (updating
# profiles/h200-pcie5.toml; traces/probe/launch_after_memset.umt for the memset's
# launch cost; traces/probe/cpu_faults.umt for the CPU's fault path;
# traces/probe/prefetch_host.umt for the host's side of prefetch calls;
# traces/probe/advice_costs.umt for the host time of advice calls), the host
# probe (traces/probe/host_fault_speed.umt,
# results in probe/; hip_backend/host_rescale.py) and replays the validation
# suite three times, each repetition after a host probe of its own, since a
# machine's fault servicing can change within a call; every replay's process
# then measures its own host speed with traces/probe/host_mode.umt (results in
# hw_host/, hw2_host/; hip_backend/per_process_sims.sh) (suite2: the two-GPU
# suite, on a two-GPU machine; diag: every trace of the folder
# $UMSIM_DIAG_TRACES three times, for a diagnostic's own fit, results in diag/,
# with every UM counter record in diag/NAME.rN.csv; host_modes: the per-process
# host probe, traces/probe/host_mode.umt, in 32 processes, alternately with the
# address space's randomisation off, results in host_modes/: whether a
# process's memory layout sets its host speed, docs/validation.md; host_cpus:
# the same probe in 32 processes alternately bound to the lower and the upper
# half of the CPUs, results in host_cpus/, the CPU layout in logs/lscpu.txt:
# whether the CPUs a process runs on set it).
# UMSIM_SUITE_REPS: the suite's repetitions (default 3; the validation compares
# with their median, so more of them measure the hardware's typical time more
# closely: hip_backend/repeatability.py).
# Results go to $OUT (or /tmp/umsim-device), packed into results.tgz.
set -uo pipefail
suite_reps=${UMSIM_SUITE_REPS:-3}
[[ $suite_reps =~ ^[1-9][0-9]?$ ]] || { echo "device_run.sh: UMSIM_SUITE_REPS must be 1-99 (got '$suite_reps')" >&2; exit 2; }
cd "$(dirname "$0")/.."
out=${OUT:-/tmp/umsim-device}
res=$out/results
mkdir -p "$res/logs" "$res/hw" "$res/raw"
log() { echo "[$(date -u +%T)] $*" | tee -a "$res/logs/run.log"; }
probes=0
host_probe() {
  probes=$((probes + 1))
  mkdir -p "$res/probe"
  timeout 60 "$bin" replay traces/probe/host_fault_speed.umt --json "$res/probe/host_fault_speed.r$probes.json" \
    >>"$res/logs/probe_runs.log" 2>&1
  log "host probe $probes exit $?"
}
# host_mode_pairs STEP GROUP_A "WRAPPER_A" GROUP_B "WRAPPER_B": traces/probe/host_mode.umt
# in 32 processes, alternately run under each group's wrapper command (words put
# before the binary; "" for none), results in STEP/GROUP.N.json.
host_mode_pairs() {
  local step=$1 i
  mkdir -p "$res/$step"
  for i in $(seq 1 16); do
    # shellcheck disable=SC2086  # each wrapper is split into its words on purpose
    timeout 60 $3 "$bin" replay traces/probe/host_mode.umt --json "$res/$step/$2.$i.json" >>"$res/logs/$step.log" 2>&1
    log "$step $2 $i exit $?"
    # shellcheck disable=SC2086
    timeout 60 $5 "$bin" replay traces/probe/host_mode.umt --json "$res/$step/$4.$i.json" >>"$res/logs/$step.log" 2>&1
    log "$step $4 $i exit $?"
  done
}

# The machine, for the profile's [calibrated_on] table and the validation notes.
{
  echo "date=$(date -u +%Y-%m-%dT%H:%MZ)"
  echo "host=$(hostname)"
  echo "cpu_model=$(awk -F': ' '/model name/{print $2; exit}' /proc/cpuinfo)"
  echo "kernel=$(uname -r)"
  echo "driver=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader 2>/dev/null | head -1)"
  echo "gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)"
  echo "cuda=$( (nvcc --version 2>/dev/null || /usr/local/cuda/bin/nvcc --version 2>/dev/null) | awk '/release/{print $5}' | tr -d ,)"
} >"$res/logs/machine.txt"
nvidia-smi >"$res/logs/nvidia-smi.txt" 2>&1
nvidia-smi -q -d MEMORY,CLOCK >>"$res/logs/nvidia-smi.txt" 2>&1
cat /sys/module/nvidia_uvm/parameters/* >"$res/logs/uvm-params.txt" 2>&1 || true
(cd /sys/module/nvidia_uvm/parameters 2>/dev/null && grep -H . * >"$res/logs/uvm-params.txt" 2>&1) || true

bin=build-nvidia/umsim-hip
if UMSIM_DEPS=${UMSIM_DEPS:-.devcarry/deps} hip_backend/build_nvidia.sh "$bin" >"$res/logs/build.log" 2>&1; then
  log "built with nvcc here"
elif [[ -n ${UMSIM_PREBUILT:-} && -x $UMSIM_PREBUILT ]]; then
  log "build failed (see build.log); using prebuilt $UMSIM_PREBUILT"
  bin=$UMSIM_PREBUILT
else
  log "build failed and no prebuilt binary"; tar -C "$out" -czf "$out/results.tgz" results; exit 1
fi

# CUPTI's unified-memory counters read the UVM driver's tools interface,
# /dev/nvidia-uvm-tools. Where a container or VM exposes /dev/nvidia-uvm but not
# the tools node, create it as nvidia-modprobe does (same major, minor 1).
ls -l /dev/nvidia* >"$res/logs/dev-nodes.txt" 2>&1
if [[ ${UMSIM_CREATE_UVM_TOOLS:-0} == 1 && -c /dev/nvidia-uvm && ! -e /dev/nvidia-uvm-tools ]]; then
  major=$(awk '$2=="nvidia-uvm"{print $1}' /proc/devices)
  [[ -n $major ]] && mknod -m 666 /dev/nvidia-uvm-tools c "$major" 1 && log "created /dev/nvidia-uvm-tools ($major,1)"
fi

# Probe each CUPTI in its own process (unless UMSIM_CUPTI_LIB names one); keep the
# first whose counters work. Every CUPTI on the machine, the toolkit's
# (libcupti.so.13) first, profilers' own copies last.
if [[ -z ${UMSIM_CUPTI_LIB:-} ]]; then
  cuptis=$(find / \( -path /proc -o -path /sys \) -prune -o -name 'libcupti.so*' -print 2>/dev/null |
    awk '{s=5} /\.so\.13/{s=1} /cuda/{s-=0} /nsight/{s=9} {print s" "$0}' | sort -n | cut -d" " -f2- | paste -sd:)
  log "CUPTI candidates: $cuptis"
  IFS=: read -ra libs <<<"$cuptis"
  for lib in "${libs[@]}"; do
    if UMSIM_DEBUG=1 UMSIM_CUPTI_LIB=$lib timeout 60 "$bin" probe >>"$res/logs/probe.log" 2>&1; then
      export UMSIM_CUPTI_LIB=$lib
      break
    fi
    echo "probe $lib: exit $?" >>"$res/logs/probe.log"
  done
fi
[[ -n ${UMSIM_CUPTI_LIB:-} ]] || export UMSIM_NO_COUNTERS=1
log "CUPTI: ${UMSIM_CUPTI_LIB:-none working}"

# probe_runs NAME: traces/probe/NAME.umt replayed in three processes, results
# raw/NAME.r1-3.json (a calibration's fit reads them).
probe_runs() {
  for rep in 1 2 3; do
    timeout 60 "$bin" replay "traces/probe/$1.umt" --json "$res/raw/$1.r$rep.json" >>"$res/logs/calibrate.log" 2>&1
  done
  log "$1 runs done"
}
# fit_in_place SCRIPT NAME: hip_backend/SCRIPT fits the calibrated profile's
# keys from NAME's runs; the profile is replaced only where the fit succeeds.
fit_in_place() {
  python3 "hip_backend/$1" "profiles/$profile.toml" "profiles/$profile.toml.fit" "$res/raw/$2".r*.json \
    >>"$res/logs/calibrate.log" 2>&1 && mv "profiles/$profile.toml.fit" "profiles/$profile.toml"
  log "$1 exit $?"
}

for step in "$@"; do
  case $step in
    smoke)
      log "smoke replay"
      "$bin" replay traces/validation/v05_prefetch_before_kernel.umt --json "$res/hw/smoke.json" 2>&1 | tee -a "$res/logs/run.log"
      ;;
    calibrate)
      # With two GPUs the calibration adds the peer runs, whose keys only the
      # two-GPU profile has.
      profile=h200-pcie5
      (($(nvidia-smi -L | grep -c '^GPU') >= 2)) && profile=h200x2-nvlink
      log "calibrate ($profile)"
      cp "profiles/$profile.toml" "$res/raw/$profile.before.toml"
      timeout 300 "$bin" calibrate --out "profiles/$profile.toml" --raw "$res/raw/calibration.json" \
        >"$res/logs/calibrate.log" 2>&1
      log "calibrate exit $?"
      # The host time of the first kernel after a managed memset
      # (hip_backend/fit_launch_after_memset.py).
      probe_runs launch_after_memset
      fit_in_place fit_launch_after_memset.py launch_after_memset
      # The CPU's fault path on GPU-held pages, whole pages and one word per
      # page (hip_backend/fit_cpu_faults.py; recorded with the calibration).
      probe_runs cpu_faults
      # The host's side of prefetch calls: queued behind a kernel, and held by
      # a move to the CPU (hip_backend/fit_prefetch_host.py; recorded the same way).
      probe_runs prefetch_host
      # The host time of memory-advice calls, each alone in its phase
      # (hip_backend/fit_advice.py).
      probe_runs advice_costs
      fit_in_place fit_advice.py advice_costs
      cp "profiles/$profile.toml" "$res/raw/$profile.toml"
      ;;
    probe)
      host_probe
      ;;
    suite | suite2)
      # Each replay runs two passes (times without UM counters, counters with them).
      # suite2: the two-GPU traces, on a machine with two GPUs (results in hw2/).
      dir=traces/validation hw=hw
      [[ $step == suite2 ]] && dir=traces/validation_2gpu hw=hw2
      mkdir -p "$res/$hw" "$res/${hw}_host"
      [[ $step == suite2 ]] && nvidia-smi topo -m >"$res/logs/topology.txt" 2>&1
      for rep in $(seq 1 "$suite_reps"); do
        host_probe
        for t in "$dir"/*.umt; do
          name=$(basename "$t" .umt)
          # Each replay's process measures its own host speed afterwards (host_mode.umt).
          timeout 60 "$bin" replay "$t" --json "$res/$hw/$name.r$rep.json" --host-probe traces/probe/host_mode.umt \
            --host-probe-json "$res/${hw}_host/$name.r$rep.json" >>"$res/logs/$step.log" 2>&1
          log "replay $name rep $rep exit $?"
        done
      done
      ;;
    host_modes)
      # The host's speed is set per process (docs/validation.md). With the
      # randomisation of the address space off (setarch -R) every process gets
      # the same layout: if the layout sets the speed, those processes agree.
      host_mode_pairs host_modes random "" fixed "setarch $(uname -m) -R"
      ;;
    host_cpus)
      # The same question for the CPUs: a process bound to one half of them
      # (taskset) runs its first touch and its fault handling there. If the CPUs
      # set the speed, the processes of one half agree.
      lscpu >"$res/logs/lscpu.txt" 2>&1
      half=$(( $(nproc) / 2 ))
      if (( half < 1 )); then
        log "host_cpus: $(nproc) CPU, nothing to split: skipped"
      else
        host_mode_pairs host_cpus low "taskset -c 0-$((half - 1))" high "taskset -c $half-$((2 * half - 1))"
      fi
      ;;
    diag)
      # A diagnostic's traces (a folder kept beside its results), three processes each,
      # every UM counter record kept (--um-records) for the fault service's structure.
      dir=${UMSIM_DIAG_TRACES:?diag needs UMSIM_DIAG_TRACES, a folder of traces}
      mkdir -p "$res/diag"
      for rep in 1 2 3; do
        for t in "$dir"/*.umt; do
          name=$(basename "$t" .umt)
          timeout 60 "$bin" replay "$t" --json "$res/diag/$name.r$rep.json" --um-records "$res/diag/$name.r$rep.csv" \
            >>"$res/logs/diag.log" 2>&1
          log "diag $name rep $rep exit $?"
        done
      done
      ;;
  esac
done
tar -C "$out" -czf "$out/results.tgz" results
log "done"
