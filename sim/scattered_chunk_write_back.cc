// Engine::write_back_scattered_chunk: a 2 MiB chunk replaced for a fault that
// was its block's only one (replace_block_chunk), holding more than the page it
// was taken for. Where faults are scattered it holds two or three pages far
// apart: write_back_chunk's page visit (the open run's bookkeeping, the page's
// own copies and mappings read) cost some 260 instructions a chunk. Where no
// page can have another copy (evicts_sole_copies), every resident page is
// written back and each record only written, as write_back_chunk's word path
// does for chunks of many pages; the runs are summed page by page, a page
// next to the previous one lengthening its run.
#include <algorithm>

#include "sim/chunk_write_back.h"
#include "sim/engine.h"
#include "sim/page_mask_iteration.h"
#include "sim/page_word_records.h"

namespace umsim::sim {

void Engine::write_back_scattered_chunk(int gpu, PhysicalChunk& c, Nanos& now) {
  Allocation& a = allocs_[c.alloc];
  if (c.resident == 0 || !evicts_sole_copies(a)) return write_back_chunk<true>(gpu, c, now);
  const auto gi = static_cast<std::size_t>(gpu);
  const std::uint64_t block = c.first_page / kPagesPerBlock;
  PageState* const block_pages = a.pages.data() + block * kPagesPerBlock;
  const auto host_mapping = static_cast<ProcessorMask>(kCpuBit | a.always_mapped);
  const Nanos* const run_ns = run_ns_d2h_.data();  // run_ns[0] is 0: the first page closes no run
  std::uint32_t pages = 0, open = 0, previous = kPagesPerBlock;  // the open run's pages, and its last
  Nanos busy = 0;
  take_pages(a.gpu_resident[gi][block], [&](std::uint32_t i) __attribute__((always_inline)) {
    set_run_records(block_pages + i, 1, kCpuBit, host_mapping, kPinned);
    ++pages;
    if (i == previous + 1) {
      ++open;
    } else {
      busy += run_ns[open];
      open = 1;
    }
    previous = i;
  });
  busy += run_ns[open];
  const Bytes written = Bytes{pages} * kPageSize;
  Counters& cnt = counters();
  now += profile_.eviction_chunk_ns;
  now = std::max(now, gpus_[gi].d2h.schedule(copy_client_, now, profile_.d2h.latency_ns + busy));
  cnt.bytes_d2h += written;
  ++cnt.evictions;
  cnt.bytes_evicted += written;
  c.resident = 0;
}

}  // namespace umsim::sim
