// A kernel's compute beside another kernel's faults (gpu.compute_beside_faults;
// docs/model.md, "Compute beside faults"). On the H200 a kernel that only
// computes runs about 1.5x longer while its GPU services another kernel's
// demand faults, whether that kernel was launched before it or after it
// (hip_backend/results/h200-pcie5/diag_concurrent_kernels, d5 and d6). The
// model runs a kernel's compute, which follows its accesses, at the profile's
// rate during each span in which its GPU's fault servicer is busy, and at full
// speed between spans. A kernel whose accesses are done ends only when the
// replay has passed its end: until then another stream's kernel may still
// fault beside its compute (sim/stream_scheduler.cc, finish_kernel).
#include <cmath>

#include "sim/engine.h"

namespace umsim::sim {

bool Engine::compute_may_slow(const StreamActor& a) const {
  if (profile_.gpu_compute_beside_faults >= 1 || kernel_.compute == 0) return false;
  return queued_work_ > a.queue.size();  // another stream has work not replayed yet
}

void Engine::begin_computing(StreamActor& a, Nanos end) {
  a.computing = true;
  a.ends_at = end;
  GpuState& gpu = gpus_[static_cast<std::size_t>(kernel_.gpu)];
  if (gpu.kernels_computing++ != 0) return;  // spans already kept
  gpu.fault_spans.clear();
  // Another kernel's batch being serviced: the kernel's own batches ended by
  // its clock, so one ending later is not its own.
  if (gpu.fault_engine_free > kernel_.now) gpu.fault_spans.push_back({gpu.fault_busy_from, gpu.fault_engine_free});
}

void Engine::end_computing(GpuState& gpu) {
  if (--gpu.kernels_computing == 0) gpu.fault_spans.clear();
}

Nanos Engine::compute_end_beside_faults(const GpuState& gpu, Nanos from, Nanos compute) const {
  const double rate = profile_.gpu_compute_beside_faults;
  if (rate >= 1 || compute == 0) return from + compute;
  Nanos t = from;
  double left = static_cast<double>(compute);  // full-speed nanoseconds of compute still to run
  for (const TimeSpan& span : gpu.fault_spans) {
    if (span.end <= t) continue;
    if (span.start > t) {  // full speed until the span
      const double before = static_cast<double>(span.start - t);
      if (left <= before) break;
      left -= before;
      t = span.start;
    }
    const double slowed = rate * static_cast<double>(span.end - t);
    if (slowed >= left) return t + static_cast<Nanos>(std::ceil(left / rate));
    left -= slowed;
    t = span.end;
  }
  return t + static_cast<Nanos>(std::llround(left));
}

}  // namespace umsim::sim
