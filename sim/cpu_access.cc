// CPU accesses run on the host thread: resident pages cost the profile's
// per-page access time; a page held only elsewhere takes a CPU fault that
// migrates it back (or duplicates it, for read-mostly pages).
#include <fmt/format.h>

#include "sim/engine.h"

namespace umsim::sim {

using trace::AccessType;
using trace::Event;

namespace {
constexpr Bytes kCpuLineBytes = 64;
}  // namespace

void Engine::cpu_access(const Event& e) {
  Allocation& a = checked_alloc(e, "CPU access");
  const AllocSlot slot = slot_of(e.name);
  check_range(a, e);
  if (e.length == 0) return;
  const std::uint64_t count = e.count ? e.count : 1;
  // The lines it touches take the host cache's room from a pageable copy's buffer.
  if (profile_.pageable_cache_bytes != 0)
    pageable_cache_.other_traffic(trace::touched_units_per_pass(e, kCpuLineBytes) * kCpuLineBytes * count);
  if (a.kind == trace::AllocKind::kDevice && !vendor_.single_memory_pool)
    throw SimulationError(fmt::format("CPU access to device allocation '{}' (device memory is not CPU-accessible)", a.name));
  const AccessType type = e.access();
  const bool write = type != AccessType::kRead;
  Counters& c = counters();
  if (a.kind == trace::AllocKind::kDevice) {  // an APU's hipMalloc memory: the same HBM, coherent, no fault
    for (std::uint64_t pass = 0; pass < count; ++pass)
      trace::for_each_page_once(e, [&](std::uint64_t p) {
        ++c.accesses;
        host_now_ += profile_.cpu_touch_ns(write, trace::touched_units(trace::page_touch(e, p), kCpuLineBytes));
      });
    return;
  }
  const bool faulted_differ = profile_.cpu_faulted_pages_differ();
  auto visit = [&](std::uint64_t p) {
    // A touch costs by the cache lines it covers (a word per page is not a page).
    const std::uint64_t lines = trace::touched_units(trace::page_touch(e, p), kCpuLineBytes);
    // A page the CPU's own fault just migrated in is read from the host's cache.
    auto touch_ns = [&] {
      return faulted_differ && cpu_faulted_.contains(slot, p) ? profile_.cpu_faulted_touch_ns(write, lines)
                                                              : profile_.cpu_touch_ns(write, lines);
    };
    PageState& st = a.pages[p];
    ++c.accesses;
    if ((st.copies & kCpuBit) && (!write || st.copies == kCpuBit)) {
      if (write) st.flags = static_cast<std::uint8_t>((st.flags | kDirty) & ~kCpuReadOnly);
      host_now_ += touch_ns();
      return;
    }
    if (st.copies == 0) {  // first touch populates the page on the CPU
      st.copies = kCpuBit;
      st.mapped = mappings_for(a, st);
      a.mark_populated(p);
      if (write) st.flags |= kDirty;
      host_now_ += profile_.cpu_first_touch_ns + profile_.cpu_touch_ns(write, lines);
      return;
    }
    cpu_fault(slot, a, p, type);
    if (write) st.flags = static_cast<std::uint8_t>((st.flags | kDirty) & ~kCpuReadOnly);
    host_now_ += touch_ns();
  };
  for (std::uint64_t pass = 0; pass < count; ++pass) trace::for_each_page_once(e, visit);
}

void Engine::cpu_fault(AllocSlot slot, Allocation& a, std::uint64_t page, AccessType type) {
  const TransferScope host(*this, CopyClient::kHost);  // the host's copies, not a GPU's fault service
  Counters& c = counters();
  ++c.cpu_faults;
  const std::uint64_t block = page / kPagesPerBlock;
  const std::uint64_t base = block * kPagesPerBlock;
  BlockState& bs = a.blocks[block];
  if (thrashing_) {
    PageMask faulted;
    faulted.set(page - base);
    thrashing_hint(slot, block, faulted, Processor::cpu(), host_now_);
  }
  if (bs.throttle_until > host_now_) host_now_ = bs.throttle_until;  // thrashing throttle: the CPU sleeps
  PageState& st = a.pages[page];
  const Processor cpu = Processor::cpu();
  // A write to a page the CPU still holds (read-duplicated elsewhere) only
  // collapses the other copies: its own cost, nothing to copy.
  host_now_ += type == AccessType::kRead   ? profile_.cpu_read_fault_cost()
               : (st.copies & kCpuBit)     ? profile_.cpu_collapse_fault_cost()
                                           : profile_.cpu_fault_ns;
  if (st.copies & kCpuBit) {  // a write to a read-duplicated page collapses the other copies
    for (ProcessorMask o = static_cast<ProcessorMask>(st.copies & ~kCpuBit); o; o &= static_cast<ProcessorMask>(o - 1))
      drop_copy(a, page, first_processor(o));
    st.mapped = mappings_for(a, st);
    return;
  }
  if ((st.flags & kPinned) && bs.pin_until <= host_now_) st.flags &= static_cast<std::uint8_t>(~kPinned);
  const MigrationDecision d = decide(slot, page, st, cpu, type, bs, host_now_);
  PageMask migrate, duplicate;
  const std::uint32_t i = static_cast<std::uint32_t>(page - base);
  // The CPU cannot map GPU memory: every decision ends with a copy on the CPU.
  if (d.placement == Placement::kDuplicate && type == AccessType::kRead) {  // duplicates are read-only
    if (!(st.flags & kReadMostly)) st.flags |= kPolicyDuplicate;
    duplicate.set(i);
  } else {
    migrate.set(i);
  }
  // AMD SVM migrates the whole 2 MiB window back.
  if (vendor_.cpu_fault_window_pages > 1) {
    const std::uint32_t n = a.pages_in_block(block);
    for (std::uint32_t j = 0; j < n; ++j)
      if (a.pages[base + j].copies && !(a.pages[base + j].copies & kCpuBit)) migrate.set(j);
  }
  const PageMask faulted = migrate | duplicate;
  const Processor from = first_processor(st.copies);
  if (bs.last_destination == cpu.code) bs.fault_migrations += 1;
  else bs.fault_migrations = 1, bs.last_destination = cpu.code;
  PageMask policy_pages;
  if (prefetch_) {
    add_policy_prefetch(slot, block, cpu, faulted, migrate, duplicate, host_now_);
    policy_pages = (migrate | duplicate) & ~faulted;
  }
  Bytes prefetched = 0;
  for (std::size_t j = policy_pages._Find_first(); j < kPagesPerBlock; j = policy_pages._Find_next(j))
    if (a.pages[base + j].copies) prefetched += kPageSize;
  if (profile_.cpu_faulted_pages_differ()) cpu_faulted_.note(slot, block, migrate | duplicate);
  Nanos t = host_now_;
  if (duplicate.any()) notify_revocations(slot, block, duplicate, cpu, host_now_);
  if (migrate.any()) t = std::max(t, move_pages(slot, block, migrate, cpu, false, host_now_));
  if (duplicate.any()) t = std::max(t, move_pages(slot, block, duplicate, cpu, true, host_now_));
  host_now_ = t;
  c.bytes_prefetched += prefetched;
  notify_thrashing(slot, block, faulted, from, cpu, MigrationCause::kFault, cpu, host_now_);
  notify_thrashing(slot, block, policy_pages, from, cpu, MigrationCause::kPrefetchPolicy, cpu, host_now_);
}

}  // namespace umsim::sim
