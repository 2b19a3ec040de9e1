# Host-side sources (no device code) that both GPU builds compile, sourced by
# build_nvidia.sh and build_amd.sh from the repository root.
host_sources=(traces/*.cc sim/result.cc hip_backend/plan.cc hip_backend/safety.cc hip_backend/um_counters.cc
              hip_backend/hip_result.cc hip_backend/calibration_fit.cc
              hip_backend/recorder/record_main.cc hip_backend/recorder/record_log.cc
              hip_backend/recorder/record_to_trace.cc
              traces/generators/trace_emitter.cc traces/generators/page_touch_set.cc)
