# Shared by build_nvidia.sh and build_amd.sh (sourced from the repository root):
# the sources of umsim-hip and their parallel compilation. The caller sets
#   name          its own name, for messages
#   obj           the folder for object files
#   cxxflags      flags for every compilation (array)
#   runtime_flags extra flags for the runtime sources, e.g. the HIP platform (array)
#   kernel_cmd    the device compiler and its flags, for the touch kernel (array)
# and calls compile_all, which fills `objs` or exits on the first failure.

# Host-side sources (no device code).
host_sources=(traces/*.cc io/*.cc sim/result.cc hip_backend/plan.cc hip_backend/safety.cc hip_backend/um_counters.cc
              hip_backend/hip_result.cc hip_backend/xnack_state.cc hip_backend/calibration_fit.cc hip_backend/compute_overlap_fit.cc hip_backend/calibration_traces.cc
              hip_backend/recorder/record_main.cc hip_backend/recorder/record_log.cc
              hip_backend/recorder/record_to_trace.cc
              traces/generators/trace_emitter.cc traces/generators/page_touch_set.cc)
# Only the touch kernel has device code; the rest of hip_backend/gpu/ is host code
# against the runtime API (HIP, or CUDA through hip_on_cuda.h).
kernel_sources=(hip_backend/gpu/touch_kernels.cpp)

compile_all() {
  local runtime_sources=() pids=() src o p status=0
  for src in hip_backend/gpu/*.cpp; do [[ $src == "${kernel_sources[0]}" ]] || runtime_sources+=("$src"); done
  mkdir -p "$obj"
  objs=()
  for src in "${host_sources[@]}" "${runtime_sources[@]}" "${kernel_sources[@]}"; do
    o="$obj/$(echo "$src" | tr / _).o"
    objs+=("$o")
    case $src in
      "${kernel_sources[0]}") "${kernel_cmd[@]}" "${cxxflags[@]}" -c "$src" -o "$o" & ;;
      hip_backend/gpu/*) ${CXX:-g++} "${cxxflags[@]}" "${runtime_flags[@]}" -c "$src" -o "$o" & ;;
      *) ${CXX:-g++} "${cxxflags[@]}" -c "$src" -o "$o" & ;;
    esac
    pids+=($!)
  done
  for p in "${pids[@]}"; do wait "$p" || status=1; done
  ((status == 0)) || { echo "$name: compilation failed" >&2; exit 1; }
}
