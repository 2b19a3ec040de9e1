// Explicit prefetch (asynchronous, on a stream) and memory advice.
#include <algorithm>

#include <fmt/format.h>

#include "sim/engine.h"

namespace umsim::sim {

using trace::Advice;
using trace::Event;

namespace {
// Calls f(block, base, lo, hi) for every VA block the event's range covers:
// base is the block's first page, [lo, hi) the range's pages in it.
template <class F>
void for_each_range_block(const Event& e, F&& f) {
  const std::uint64_t first = e.offset / kPageSize;
  const std::uint64_t last = (e.offset + e.length - 1) / kPageSize;
  for (std::uint64_t block = first / kPagesPerBlock; block <= last / kPagesPerBlock; ++block) {
    const std::uint64_t base = block * kPagesPerBlock;
    f(block, base, std::max(first, base), std::min(last + 1, base + kPagesPerBlock));
  }
}

// Pages of the event's range a prefetch to the CPU moves there (held elsewhere only).
std::uint64_t pages_bound_for_cpu(const Allocation& a, const Event& e) {
  std::uint64_t n = 0;
  const std::uint64_t last = (e.offset + e.length - 1) / kPageSize;
  for (std::uint64_t p = e.offset / kPageSize; p <= last; ++p) n += a.pages[p].copies && !(a.pages[p].copies & kCpuBit);
  return n;
}
}  // namespace

// The driver's prefetch path after a pause: cold after cold_call_after without
// a prefetch (or the replay's first), warming after idle_call_after.
Nanos Engine::prefetch_wake_up(Nanos call) const {
  if (prefetch_path_cold(call)) return profile_.prefetch_cold_call_ns;
  const Nanos idle = call - std::min(call, *last_prefetch_done_);
  return idle >= profile_.prefetch_idle_after_ns ? profile_.prefetch_idle_call_ns : 0;
}

// On H100s (sessions 101 and 102, diag_prefetch_first_size / _first_work) the
// process's first prefetch to a GPU held the host to about its migration's end
// at every size, also after a kernel that read device memory only or a prefetch
// to the CPU, and returned early after a kernel's faults.
bool Engine::first_managed_work_on_a_gpu() const {
  return !prefetched_to_gpu_ && std::none_of(gpus_.begin(), gpus_.end(), [](const GpuState& g) { return g.serviced_faults; });
}

bool Engine::prefetch_path_cold(Nanos call) const {
  return !last_prefetch_done_ || call - std::min(call, *last_prefetch_done_) >= profile_.prefetch_cold_after_ns;
}

// prefetch.first_on_gpu_cost for a prefetch to a GPU that holds none of the
// allocation's pages and was never its prefetch's destination. The blocks are
// scanned once per allocation and GPU at most: the first prefetch there marks it.
// Toward the CPU the warming is the process's, not the range's (on the H200
// a second allocation's first prefetch to the CPU costs only its new VA
// block): first_on_cpu_cost on the replay's first, next_on_cpu_cost on its second.
Nanos Engine::first_prefetch_on(Allocation& a, Processor dest) {
  if (dest.is_cpu()) {
    if (prefetches_to_cpu_ >= 2) return 0;
    return ++prefetches_to_cpu_ == 1 ? profile_.prefetch_first_on_cpu_ns : profile_.prefetch_next_on_cpu_ns;
  }
  if (profile_.prefetch_first_on_gpu_ns == 0) return 0;
  const ProcessorMask dbit = processor_bit(dest);
  if (a.prefetch_seen_on & dbit) return 0;
  a.prefetch_seen_on |= dbit;
  for (const PageMask& held : a.gpu_resident[static_cast<std::size_t>(dest.gpu_index())])
    if (held.any()) return 0;
  return profile_.prefetch_first_on_gpu_ns;
}

// A VA block a prefetch moves to the CPU: the driver allocates and maps host
// pages for a block the CPU holds none of; one where it holds some costs
// prefetch.to_cpu_held_va_block_cost (on the H200 a 64 KiB prefetch into such
// a block took 13 us less, diag_d2h_small).
Nanos Engine::to_cpu_block_ns(const Allocation& a, std::uint64_t block) const {
  const Nanos fresh = profile_.prefetch_to_cpu_block_ns();
  const Nanos held = profile_.prefetch_to_cpu_held_block_ns();
  if (held == fresh) return fresh;
  const std::uint64_t first = block * kPagesPerBlock;
  for (std::uint64_t p = first; p < first + a.pages_in_block(block); ++p)
    if (a.pages[p].copies & kCpuBit) return held;
  return fresh;
}

void Engine::on_prefetch(const Event& e) {
  Allocation& a = checked_alloc(e, "prefetch");
  const AllocSlot slot = slot_of(e.name);
  check_range(a, e);
  const Processor dest = e.processor;
  if (dest.is_none()) throw SimulationError("prefetch without a destination");
  if (dest.is_gpu()) checked_gpu(dest, "prefetch");
  Nanos& stream_done = stream_ready(e.stream);
  if (dest.is_gpu()) stream_gpu_[e.stream] = static_cast<std::int16_t>(dest.gpu_index());
  prefetch_call_return_[e.stream] = 0;  // no early return: the call ends with its work
  if (!a.managed() || e.length == 0) return;  // only managed memory migrates
  const TransferScope transfer(*this, e.stream);
  if (vendor_.single_memory_pool) return prefetch_in_place(a, slot, e, dest, stream_done);
  const ProcessorMask dbit = processor_bit(dest);
  const Nanos call = std::max(host_now_, stream_done);
  const bool first_on_a_gpu = dest.is_gpu() && first_managed_work_on_a_gpu();
  if (dest.is_gpu()) prefetched_to_gpu_ = true;
  Nanos t = call + profile_.prefetch_call_ns + prefetch_wake_up(call) + first_prefetch_on(a, dest);
  if (dest.is_cpu() && profile_.prefetch_to_cpu_page_ns) t += pages_bound_for_cpu(a, e) * *profile_.prefetch_to_cpu_page_ns;
  Nanos done = t;
  const Nanos blocks_start = t;
  std::uint64_t blocks_moved = 0;
  Bytes moved = 0;
  for_each_range_block(e, [&](std::uint64_t block, std::uint64_t base, std::uint64_t lo, std::uint64_t hi) {
    PageMask migrate, duplicate;
    bool from_peers_only = dest.is_gpu();  // every page comes from another GPU's copy
    bool revokes = false;  // some page's sole holder still has write permission (see below)
    for (std::uint64_t p = lo; p < hi; ++p) {
      const PageState& st = a.pages[p];
      if (st.copies & dbit) continue;
      if (!st.copies && !vendor_.prefetch_whole_range) continue;
      if ((st.flags & kReadMostly) && vendor_.read_mostly_duplicates && st.copies) {
        duplicate.set(p - base);
        revokes |= !sole_writer(st).is_none();
      } else {
        migrate.set(p - base);
      }
      if (!st.copies || !copy_source(st.copies, dest).is_gpu()) from_peers_only = false;
    }
    if (migrate.none() && duplicate.none()) return;
    ++blocks_moved;
    // Driver work per block; the copies queue on the copy engines. Read
    // duplication's block cost is mostly revoking the sole holder's write
    // permission: a block whose duplicated pages were already read-only
    // everywhere (duplicated before, or the CPU's, revoked by the ReadMostly
    // advice) costs a plain block (session 51's diagnostic: 128 MiB
    // duplicated right after the advice in 2.7 ms, after a CPU write 14 ms).
    t += from_peers_only   ? profile_.prefetch_peer_block_ns()
         : revokes         ? profile_.prefetch_duplicate_block_ns()
         : dest.is_cpu()   ? to_cpu_block_ns(a, block)
                           : profile_.prefetch_va_block_ns;
    Nanos end = t;
    if (revokes) notify_revocations(slot, block, duplicate, dest, t);
    if (migrate.any()) end = std::max(end, move_pages(slot, block, migrate, dest, false, t, &moved));
    if (duplicate.any()) end = std::max(end, move_pages(slot, block, duplicate, dest, true, t, &moved));
    note_in_flight(a.blocks[block], t, end, dbit);
    done = std::max(done, end);
  });
  counters().bytes_prefetched += moved;
  stream_done = done;
  last_prefetch_done_ = std::max(last_prefetch_done_.value_or(0), done);
  if (dest.is_gpu() && !first_on_a_gpu && profile_.prefetch_host_va_block_ns)
    prefetch_call_return_[e.stream] = std::min(done, blocks_start + blocks_moved * *profile_.prefetch_host_va_block_ns);
}

// The host's side of a prefetch call: the driver migrates in the calling
// thread when the stream has nothing pending, so the call returns when its
// migration ends, or to a GPU once its host work per block is done
// (prefetch.host_va_block_cost: the copies go on behind it) unless it is the
// process's first managed-memory work on a GPU; on a stream with work pending
// it is queued behind it and returns at once, for the runtime's queueing cost
// (docs/model.md, "Prefetch calls on the host"). The stream's own timing is
// on_prefetch's either way.
void Engine::prefetch_call(const Event& e) {
  const bool held = stream_looks_idle(e.stream);
  if (timeline_) {
    issue_stream_work(e);
    // The migration runs now, on the timeline as a host statement sees it.
    if (held) run_streams(true);
  } else {
    on_prefetch(e);
  }
  if (held) {
    const Nanos early = prefetch_call_return_[e.stream];
    host_now_ = std::max(host_now_, early ? early : stream_ready(e.stream));
    // Without the host's per-block time the call ends with its migration, which
    // the runtime sees only at the next sync or kernel; with it, a call that
    // held to its end (the process's first) leaves an idle stream the next call holds.
    if (!profile_.prefetch_host_va_block_ns) stream_after_held_prefetch_[e.stream] = 1;
  } else {
    host_now_ += *profile_.prefetch_queued_call_ns;
  }
}

void Engine::end_held_prefetch(trace::StreamId s) {
  stream_ready(s);  // sizes the per-stream state
  stream_after_held_prefetch_[s] = 0;
}

// Idle: nothing pending but event records, which take no time (v13 records
// one after each prefetch, and its next call on the stream is held).
bool Engine::stream_looks_idle(trace::StreamId s) {
  if (stream_ready(s) > host_now_ || stream_after_held_prefetch_[s]) return false;
  if (s >= actor_index_.size() || actor_index_[s] == kNoSlot) return true;
  const auto& queue = actors_[actor_index_[s]].queue;
  return std::all_of(queue.begin(), queue.end(), [](const StreamWork& w) { return w.kind == StreamWorkKind::kRecord; });
}

// One physical memory (APU): the driver's best prefetch location is that memory,
// so a prefetch populates the range's untouched pages there and maps the range
// on the destination GPU, per VA block, without copying anything.
void Engine::prefetch_in_place(Allocation& a, AllocSlot slot, const Event& e, Processor dest, Nanos& stream_done) {
  const ProcessorMask dbit = processor_bit(dest);
  Nanos t = std::max(host_now_, stream_done);
  Nanos done = t;
  for_each_range_block(e, [&](std::uint64_t block, std::uint64_t base, std::uint64_t lo, std::uint64_t hi) {
    PageMask pages;
    for (std::uint64_t p = lo; p < hi; ++p)
      if (!a.pages[p].copies || !(a.pages[p].mapped & dbit)) pages.set(p - base);
    if (pages.none()) return;
    t += profile_.prefetch_va_block_ns;
    const Nanos end = move_pages(slot, block, pages, Processor::cpu(), false, t);
    for (std::size_t i = pages._Find_first(); i < kPagesPerBlock; i = pages._Find_next(i))
      a.pages[base + i].mapped |= dbit;
    note_in_flight(a.blocks[block], t, end, dbit);
    done = std::max(done, end);
  });
  stream_done = done;
}

void Engine::on_advise(const Event& e) {
  Allocation& a = checked_alloc(e, "advise");
  check_range(a, e);
  const Advice advice = e.advice();
  const bool takes_target = advice == Advice::kSetPreferredLocation || advice == Advice::kSetAccessedBy ||
                            advice == Advice::kUnsetAccessedBy;
  if (takes_target) {
    if (e.processor.is_none()) throw SimulationError(fmt::format("advise {} needs a processor", trace::to_string(advice)));
    if (e.processor.is_gpu()) checked_gpu(e.processor, "advise");
  }
  if (!a.managed() || e.length == 0) return;  // advice applies to managed memory only
  const std::uint64_t first = e.offset / kPageSize;
  const std::uint64_t last = (e.offset + e.length - 1) / kPageSize;
  const ProcessorMask tbit = takes_target ? processor_bit(e.processor) : 0;
  // Pages whose state the call changes, each costing the driver's work on the host (advise_*).
  std::uint64_t revoked = 0, mapped = 0, preferred = 0;
  for (std::uint64_t p = first; p <= last; ++p) {
    PageState& st = a.pages[p];
    const ProcessorMask prior_remote = static_cast<ProcessorMask>(st.mapped & ~st.copies);
    const ProcessorMask prior_mapped = st.mapped;
    if (advice == Advice::kSetReadMostly && !(st.flags & kReadMostly) && st.copies == kCpuBit) {
      ++revoked;
      st.flags |= kCpuReadOnly;
    }
    if (advice == Advice::kSetPreferredLocation && st.copies && st.preferred != e.processor.code) ++preferred;
    switch (advice) {
      case Advice::kSetReadMostly:
        st.flags |= kReadMostly;
        a.read_mostly_advised = true;
        break;
      case Advice::kUnsetReadMostly:
        st.flags &= static_cast<std::uint8_t>(~kReadMostly);
        if (popcount16(st.copies) > 1) {  // collapse duplicates, keeping the preferred or the CPU copy
          ProcessorMask keep = kCpuBit;
          if (st.preferred >= 0 && (st.copies & (1u << st.preferred))) keep = static_cast<ProcessorMask>(1u << st.preferred);
          else if (!(st.copies & kCpuBit)) keep = processor_bit(first_processor(st.copies));
          for (ProcessorMask o = static_cast<ProcessorMask>(st.copies & ~keep); o; o &= static_cast<ProcessorMask>(o - 1))
            drop_copy(a, p, first_processor(o));
        }
        break;
      case Advice::kSetPreferredLocation:
        st.preferred = static_cast<std::int8_t>(e.processor.code);
        break;
      case Advice::kUnsetPreferredLocation:
        st.preferred = -1;
        break;
      case Advice::kSetAccessedBy:
        st.accessed_by |= tbit;
        a.accessed_by_advised = true;
        break;
      case Advice::kUnsetAccessedBy:
        st.accessed_by &= static_cast<ProcessorMask>(~tbit);
        break;
    }
    // Mappings follow the advice at once (AccessedBy maps resident pages eagerly).
    const ProcessorMask kept =
        advice == Advice::kUnsetAccessedBy ? static_cast<ProcessorMask>(prior_remote & ~tbit) : prior_remote;
    st.mapped = st.copies ? static_cast<ProcessorMask>(mappings_for(a, st) | kept) : 0;
    if (advice == Advice::kSetAccessedBy && (st.mapped & tbit) && !(prior_mapped & tbit)) ++mapped;
  }
  // The call returns when the driver has changed the range (cudaMemAdvise is synchronous).
  host_now_ += profile_.advise_call_ns + revoked * profile_.advise_read_mostly_page_ns +
               mapped * profile_.advise_accessed_by_page_ns + preferred * profile_.advise_preferred_page_ns;
}

}  // namespace umsim::sim
