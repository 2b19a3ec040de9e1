// A kernel that does not fault beside one that does
// (gpu.resident_kernels_wait_for_faults; docs/model.md, "Streams on one
// timeline"). On the H200 a kernel whose pages are all resident, running
// beside a kernel that demand-faults on the same GPU, gets its accesses
// through only as that kernel's faults end: resident readers end with the
// faulting kernel whichever was launched first (diag_concurrent_kernels d1,
// d3), and a kernel that reads 2 MiB of resident pages before 2 ms or 8 ms of
// compute ends 1.2-1.9 ms or 7.0-7.5 ms after a kernel writing 64 MiB of
// CPU-held pages (diag_compute_beside_faults c2, c4), as if its reads waited
// for nearly all of those faults. Kernels that fault themselves share their
// GPU's fault batches instead (sim/stream_scheduler.cc). So a kernel that has
// not faulted makes no access while another kernel on its GPU that has faulted
// still has accesses to replay; it goes on when the last such kernel's
// accesses are done, at the end of that GPU's last fault service.
#include <algorithm>

#include "sim/engine.h"

namespace umsim::sim {

using trace::Event;

// Whether the open kernel's access `e` (at `cursor`) waits: the kernel has not
// faulted, a kernel that has is running beside it on its GPU, and every page
// the access covers is resident there. An access with pages elsewhere faults
// (its first lane step touches pages across its range, as its warps would), so
// its kernel shares the fault batches instead: a kernel reading pages another
// is faulting in faults on them too.
bool Engine::held_by_faulting_kernel(const Event& e, RangeCursor& cursor) const {
  if (!profile_.gpu_resident_kernels_wait_for_faults || kernel_counters_.gpu_faults != 0 ||
      gpus_[static_cast<std::size_t>(kernel_.gpu)].faulting_kernels == 0)
    return false;
  if (!cursor.started()) cursor.hits_only = range_resident(allocs_[slot_of(e.name)], e);
  return cursor.hits_only;
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
// kernels beside it see whether it has faulted.
void Engine::note_faulting(StreamActor& a) {
  if (a.counted_faulting || a.computing || kernel_counters_.gpu_faults == 0) return;
  a.counted_faulting = true;
  ++gpus_[static_cast<std::size_t>(kernel_.gpu)].faulting_kernels;
}

// The open kernel's accesses are done (its last batch serviced): the kernels
// it held go on once no faulting kernel is left on its GPU.
void Engine::faulting_accesses_done(StreamActor& a) {
  if (!a.counted_faulting) return;
  a.counted_faulting = false;
  GpuState& gpu = gpus_[static_cast<std::size_t>(kernel_.gpu)];
  if (--gpu.faulting_kernels != 0) return;
  for (StreamActor& h : actors_)
    if (h.held && h.kernel.gpu == kernel_.gpu) {
      h.held = false;
      h.kernel.now = std::max(h.kernel.now, gpu.fault_engine_free);
    }
}

}  // namespace umsim::sim
