// Explicit copies (hipMemcpy / hipMemcpyAsync), memsets and peer access per
// GPU pair: trace format version 2 (docs/model.md, "Explicit copies").
#include <cmath>

#include <fmt/format.h>

#include "sim/engine.h"

namespace umsim::sim {

using trace::AllocKind;
using trace::CopyKind;
using trace::Event;

namespace {

Nanos at_gbps(Bytes bytes, double gbps) {  // 1 GB/s = 1 byte/ns; rounded up
  if (bytes == 0 || gbps <= 0) return 0;
  const double ns = static_cast<double>(bytes) / gbps;
  const auto whole = static_cast<Nanos>(ns);
  return static_cast<double>(whole) < ns ? whole + 1 : whole;
}

}  // namespace

bool Engine::peers_enabled(int a, int b) const {
  return a == b || (peer_pairs_[static_cast<std::size_t>(a)] & (1u << b)) != 0;
}

void Engine::on_peer_enable(const Event& e) {
  const int a = checked_gpu(e.processor, "peer enable");
  const int b = checked_gpu(e.peer_gpu(), "peer enable");
  if (!profile_.peer_access)
    throw SimulationError(fmt::format(
        "peer enable gpu{} gpu{}: profile '{}' says its GPUs cannot access each other's memory (gpu.peer_access = "
        "false)",
        a, b, profile_.name));
  peer_pairs_[static_cast<std::size_t>(a)] |= static_cast<std::uint16_t>(1u << b);
  peer_pairs_[static_cast<std::size_t>(b)] |= static_cast<std::uint16_t>(1u << a);
  // Device memory on either GPU becomes mappable by the other.
  for (Allocation& x : allocs_)
    if (x.kind == AllocKind::kDevice && x.live && (x.home.gpu_index() == a || x.home.gpu_index() == b)) {
      const int other = x.home.gpu_index() == a ? b : a;
      x.always_mapped = static_cast<ProcessorMask>(x.always_mapped | processor_bit(Processor::gpu(other)));
      for (auto& st : x.pages) st.mapped = static_cast<ProcessorMask>(st.mapped | processor_bit(Processor::gpu(other)));
    }
}

Engine::CopySide Engine::copy_side(AllocSlot slot, const Event& range, int gpu, trace::StreamId stream, bool write) {
  Allocation& a = allocs_[slot];
  switch (a.kind) {
    case AllocKind::kDevice: return CopySide{a.home};
    case AllocKind::kPinned:
    case AllocKind::kMapped: return CopySide{Processor::cpu()};
    case AllocKind::kManaged:
    case AllocKind::kSystem: break;  // system memory migrates as managed memory does under HMM / XNACK
  }
  if (!vendor_.gpu_faults_migrate) return CopySide{Processor::cpu()};  // XNACK off: zero-copy host memory
  // The copy engine reaches managed memory through the GPU's page tables, and
  // the driver makes the range resident there first, as for a fault: pages held
  // elsewhere migrate, pages resident nowhere are populated there, ReadMostly
  // pages that are only read gain a read-only copy, written ones collapse to it.
  // Driver work per VA block as a prefetch's; the copies queue on the copy engines.
  const Processor dest = Processor::gpu(gpu);
  const ProcessorMask dbit = processor_bit(dest);
  const TransferScope transfer(*this, stream);
  Nanos& stream_done = stream_ready(stream);
  Nanos t = std::max(host_now_, stream_done);
  Nanos done = t;
  if (range.length == 0) return CopySide{dest};
  const std::uint64_t first = range.offset / kPageSize;
  const std::uint64_t last = (range.offset + range.length - 1) / kPageSize;
  for (std::uint64_t block = first / kPagesPerBlock; block <= last / kPagesPerBlock; ++block) {
    const std::uint64_t base = block * kPagesPerBlock;
    PageMask migrate, duplicate;
    for (std::uint64_t p = std::max(first, base); p < std::min(last + 1, base + kPagesPerBlock); ++p) {
      const PageState& st = a.pages[p];
      if ((st.copies & dbit) && (!write || st.copies == dbit)) continue;
      if (!write && (st.flags & kReadMostly) && vendor_.read_mostly_duplicates && st.copies) duplicate.set(p - base);
      else migrate.set(p - base);
    }
    if (migrate.none() && duplicate.none()) continue;
    t += profile_.prefetch_va_block_ns;
    Nanos end = t;
    if (migrate.any()) end = std::max(end, move_pages(slot, block, migrate, dest, false, t));
    if (duplicate.any()) end = std::max(end, move_pages(slot, block, duplicate, dest, true, t));
    note_in_flight(a.blocks[block], t, end, dbit);
    done = std::max(done, end);
  }
  stream_done = done;
  return CopySide{dest};
}

Nanos Engine::copy_time(Processor from, Processor to, Bytes bytes, bool pinned, PageableBufferCache::Hit cached) const {
  if (from.is_cpu() && to.is_cpu())
    throw SimulationError("a copy between two host memories has no GPU side");
  if (from.is_cpu() || to.is_cpu()) {
    const LinkProfile& link = from.is_cpu() ? profile_.h2d : profile_.d2h;
    const double gbps = pinned            ? profile_.pinned_copy_gbps
                        : from.is_cpu()   ? profile_.pageable_copy_gbps
                                          : profile_.pageable_d2h_copy_gbps();
    const Nanos staging = !pinned && to.is_cpu() ? profile_.pageable_to_host_call_ns : 0;
    // A pageable upload's cached bytes leave the host at the cache's speed;
    // those copied only once before pay a share of the memory's extra time.
    Nanos from_cache = 0;
    if (const Bytes hit = cached.cached + cached.warming; hit != 0) {
      const double cached_gbps = *profile_.pageable_cached_copy_gbps;
      from_cache = at_gbps(hit, cached_gbps);
      if (cached.warming != 0 && profile_.pageable_warming_share != 0) {
        const Nanos slow = at_gbps(cached.warming, gbps), fast = at_gbps(cached.warming, cached_gbps);
        if (slow > fast)
          from_cache += static_cast<Nanos>(std::llround(profile_.pageable_warming_share * static_cast<double>(slow - fast)));
      }
    }
    return link.latency_ns + staging + from_cache + at_gbps(bytes - cached.cached - cached.warming, gbps);
  }
  if (from == to) return 2 * at_gbps(bytes, profile_.gpu_access_gbps);  // each byte read and written
  if (!staged_through_host(from, to)) return profile_.peer.transfer_ns(bytes);
  // Without peer access the driver stages the copy through host memory.
  return profile_.d2h.transfer_ns(bytes) + profile_.h2d.transfer_ns(bytes);
}

void Engine::on_copy(const Event& e) {
  const int gpu = checked_gpu(e.processor, "copy");
  Allocation& a = checked_alloc(e, "copy");
  check_range(a, e);
  const CopyKind kind = e.copy_kind();
  if (e.length == 0) return;
  Processor from, to;
  bool pinned = true;
  if (kind == CopyKind::kBetweenAllocations) {
    Event source = e;
    source.name = e.copy_source();
    source.offset = e.copy_source_offset();
    Allocation& s = checked_alloc(source, "copy source");
    check_range(s, source);
    from = copy_side(slot_of(source.name), source, gpu, e.stream, false).location;
    to = copy_side(slot_of(e.name), e, gpu, e.stream, true).location;
  } else {
    const Processor here = copy_side(slot_of(e.name), e, gpu, e.stream, trace::copies_from_host(kind)).location;
    pinned = trace::host_is_pinned(kind);
    from = trace::copies_from_host(kind) ? Processor::cpu() : here;
    to = trace::copies_from_host(kind) ? here : Processor::cpu();
    if (here.is_cpu())
      throw SimulationError(fmt::format("copy between a host buffer and host allocation '{}'", names_->name(e.name)));
  }
  // A pageable copy reads or writes the start of the replay's one pageable
  // buffer: an upload finds part of it in the host's cache.
  PageableBufferCache::Hit cached;
  if (!pinned) {
    if (from.is_cpu() && profile_.pageable_cached_copy_gbps) cached = pageable_cache_.hit(e.length);
    pageable_cache_.copied(e.length);
  }
  Nanos& ready = stream_ready(e.stream);
  stream_gpu_[e.stream] = static_cast<std::int16_t>(gpu);
  ready = std::max(host_now_, ready) + profile_.copy_call_ns + copy_time(from, to, e.length, pinned, cached);
  if (!e.is_async()) host_now_ = ready;  // hipMemcpy returns when the copy is done
}

void Engine::on_memset(const Event& e) {
  const int gpu = checked_gpu(e.processor, "memset");
  Allocation& a = checked_alloc(e, "memset");
  check_range(a, e);
  if (e.length == 0) return;
  if (a.managed() && vendor_.gpu_faults_migrate) return memset_by_fill_kernel(e, gpu);
  const Processor where = copy_side(slot_of(e.name), e, gpu, e.stream, true).location;
  Nanos& ready = stream_ready(e.stream);
  stream_gpu_[e.stream] = static_cast<std::int16_t>(gpu);
  // The GPU writes every byte: locally at its memory bandwidth, else over the mapping.
  const Nanos write = where.is_cpu() ? at_gbps(e.length, profile_.remote_write_to_host_gbps())
                      : where.gpu_index() == gpu ? at_gbps(e.length, profile_.gpu_access_gbps)
                                                 : at_gbps(e.length, profile_.remote_gpu_to_peer_gbps);
  ready = std::max(host_now_, ready) + profile_.copy_call_ns + write;
  if (!e.is_async()) host_now_ = ready;
}

// hipMemset of managed memory launches the runtime's fill kernel, and its stores
// fault like any kernel's: on the H200 a memset of 256 MiB of fresh managed
// memory took 240-261 fault batches and 16-28 ms (docs/validation.md, c02),
// the speed of a faulting first-touch kernel, not of a copy engine. So it
// replays as a kernel writing the range (faults, batches, prefetch, eviction as
// for any kernel) whose counters go to the phase: the trace has no such kernel.
// Its stores sweep the range closer to address order than a trace kernel's
// (gpu.fill_lanes where the profile sets it: more, smaller fault batches): on
// the H200 a memset of fresh managed memory takes about 1.5x a first-touch
// kernel's time for the same range (docs/validation.md, "Session 66").
void Engine::memset_by_fill_kernel(const Event& e, int gpu) {
  swap_out();  // no stream's kernel is running: a memset is a host statement
  load_fault_batch(gpu);
  // Eviction policies number the trace's own accesses (the oracle reads them
  // from the trace): the fill kernel's touches are not among them.
  const std::uint64_t trace_accesses = access_seq_;
  begin_kernel("memset", gpu, e.stream, 0);
  if (profile_.gpu_fill_lanes != 0) kernel_.lanes = profile_.gpu_fill_lanes;
  Event fill = e;
  fill.kind = trace::EventKind::kGpuAccess;
  fill.op = static_cast<std::uint8_t>(trace::AccessType::kWrite);
  fill.count = 1;
  fill.stride = 0;
  gpu_access(fill);
  service_fault_batch();
  const Nanos end = kernel_end_time();
  kernel_finished(end);
  kernel_.open = false;
  access_seq_ = trace_accesses;
  update_plain_hits();
  Counters c = kernel_counters_;
  c.stall_ns = 0;  // a phase's stall is its kernels' stall; the hardware reports none for a memset
  phase_.result.counters += c;
  stream_ready(e.stream) = end;
  if (!e.is_async()) host_now_ = end;
  // On the H200 the next kernel's launch takes ~300 us of host time after a
  // managed memset (docs/validation.md, "Diagnostics in the same call").
  launch_after_memset_ = profile_.launch_after_memset_ns > 0;
  if (options_.check_invariants) check_invariants();
}

void Engine::read_modify_write(const Event& e) {
  // A load faults (or hits) first; the dependent store is issued only when the
  // load has returned, so the read faults are serviced before it, and the store
  // then upgrades the page for writing where the read left it read-only
  // (ReadMostly duplicates collapse: a second fault).
  Event part = e;
  part.op = static_cast<std::uint8_t>(trace::AccessType::kRead);
  if (e.kind == trace::EventKind::kGpuAccess) {
    gpu_access(part);
    service_fault_batch();
  } else {
    cpu_access(part);
  }
  part.op = static_cast<std::uint8_t>(trace::AccessType::kWrite);
  if (e.kind != trace::EventKind::kGpuAccess) return cpu_access(part);
  // The store's units in the GPU's own memory cost gpu.rmw_cost each beyond a
  // plain store's: it waits for its load, so fewer stores are in flight.
  const std::uint64_t units = kernel_.touched_units, remote = kernel_.remote_touched_units;
  gpu_access(part);
  kernel_.rmw_store_units += (kernel_.touched_units - units) - (kernel_.remote_touched_units - remote);
}

}  // namespace umsim::sim
