// A kernel that does not fault beside kernels that do
// (gpu.resident_kernels_wait_for_faults; docs/model.md, "resident kernels wait
// for faulting ones"). Measured on the H200 (session 47) and two H100s
// (sessions 120, 121: hip_backend/results/h100-hbm3/diag_resident_beside_faults)
// with a kernel reading resident pages, then computing, launched right after
// a kernel faulting 64 MiB in:
// - beside a kernel that *writes* the pages it faults, the reads get through
//   only as that kernel's faults end: 2 MiB of reads then 2 ms of compute end
//   1.4-1.7 ms after the writer, 32 MiB then 2 ms exactly 2.0 ms after it (r2,
//   r6, c2, c4). Stores do not stall the warps that issue them, so a writing
//   kernel keeps faulting pages as fast as they are serviced;
// - beside a kernel that only *reads* them, the reads and the compute run, but
//   the kernel ends no earlier than that kernel's last fault: it ends with the
//   faulting kernel (r3, c3; resident readers likewise, d1, d3), or after its
//   last fault where the faulting kernel goes on with resident reads (r8);
// - a kernel whose reads are done before the first fault (r7, v19) or that
//   makes none (r5, d5, d6) is not held: only its compute slows
//   (compute_beside_faults.cc).
// Kernels that fault themselves share their GPU's fault batches instead
// (sim/stream_scheduler.cc).
#include <algorithm>

#include "sim/engine.h"

namespace umsim::sim {

using trace::Event;

// Whether the open kernel's access `e` (at `cursor`) waits: the kernel has not
// faulted, a kernel that has faulted on writes is running beside it on its
// GPU, and every page the access covers is resident there. An access with
// pages elsewhere faults (its first lane step touches pages across its range,
// as its warps would), so its kernel shares the fault batches instead: a
// kernel reading pages another is faulting in faults on them too. Any access
// beside a faulting kernel holds the kernel's end until that kernel's faults
// are done (finish_kernel).
bool Engine::resident_access_waits(StreamActor& a, const Event& e, RangeCursor& cursor) const {
  const GpuState& gpu = gpus_[static_cast<std::size_t>(kernel_.gpu)];
  if (!profile_.gpu_resident_kernels_wait_for_faults || kernel_counters_.gpu_faults != 0 || gpu.faulting_kernels == 0)
    return false;
  a.ends_after_faults = true;
  if (gpu.write_faulting_kernels == 0) return false;
  if (!cursor.started()) cursor.hits_only = range_resident(allocs_[slot_of(e.name)], e);
  return cursor.hits_only;
}

// The open kernel's accesses are done and it would end at `end`: whether it
// must wait for faulting kernels beside it that still have accesses to
// replay, else `end` no earlier than the last fault service of those already
// done.
bool Engine::end_waits_for_faults(StreamActor& a, Nanos& end) const {
  if (!a.ends_after_faults || kernel_counters_.gpu_faults != 0) return false;
  const GpuState& gpu = gpus_[static_cast<std::size_t>(kernel_.gpu)];
  if (gpu.faulting_kernels != 0) return true;
  a.end_not_before = gpu.faults_ended_at;
  end = std::max(end, a.end_not_before);
  return false;
}

// Every page of [e.offset, e.offset + e.length) has a copy on the open
// kernel's GPU (memory that does not migrate counts as resident).
bool Engine::range_resident(const Allocation& a, const Event& e) const {
  if (!a.managed()) return true;
  const std::vector<PageMask>& resident = a.gpu_resident[static_cast<std::size_t>(kernel_.gpu)];
  const std::uint64_t last = (e.offset + e.length - 1) / kPageSize;
  for (std::uint64_t p = e.offset / kPageSize; p <= last;) {
    const std::uint64_t block = p / kPagesPerBlock;
    const std::uint64_t end = std::min(last + 1, (block + 1) * kPagesPerBlock);
    PageMask need;
    need.set();
    need >>= kPagesPerBlock - (end - p);
    need <<= p - block * kPagesPerBlock;
    if ((resident[block] & need) != need) return false;
    p = end;
  }
  return true;
}

// Called as the open kernel yields to another stream: from then on the
// kernels beside it see whether it has faulted, and on writes.
void Engine::note_faulting(StreamActor& a) {
  if (a.computing || kernel_counters_.gpu_faults == 0) return;
  GpuState& gpu = gpus_[static_cast<std::size_t>(kernel_.gpu)];
  if (!a.counted_faulting) {
    a.counted_faulting = true;
    ++gpu.faulting_kernels;
  }
  if (!a.counted_write_faulting && kernel_.write_faulted) {
    a.counted_write_faulting = true;
    ++gpu.write_faulting_kernels;
  }
}

// The open kernel's accesses are done (its last batch serviced): once no
// kernel faulting on writes is left on its GPU, the kernels whose accesses it
// held go on; once no faulting kernel is left, the kernels whose ends it held
// may end, at the end of the GPU's last fault service.
void Engine::faulting_accesses_done(StreamActor& a) {
  if (!a.counted_faulting) return;
  GpuState& gpu = gpus_[static_cast<std::size_t>(kernel_.gpu)];
  const bool writers_left = !a.counted_write_faulting || --gpu.write_faulting_kernels != 0;
  a.counted_faulting = a.counted_write_faulting = false;
  const bool faulting_left = --gpu.faulting_kernels != 0;
  if (writers_left && faulting_left) return;
  const Nanos t = gpu.fault_engine_free;
  if (!faulting_left) gpu.faults_ended_at = t;
  for (StreamActor& h : actors_) {
    if (!h.held || h.kernel.gpu != kernel_.gpu) continue;
    if (!h.computing) {
      h.held = false;
      h.kernel.now = std::max(h.kernel.now, t);
    } else if (!faulting_left) {
      h.held = false;
      h.end_not_before = t;
      h.ends_at = std::max(h.ends_at, t);
    }
  }
}

}  // namespace umsim::sim
