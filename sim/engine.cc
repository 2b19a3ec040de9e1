// Engine set-up, event dispatch, streams and events, scopes and results.
// The page-level work lives in gpu_access.cc, fault_service.cc, migration.cc,
// hints.cc and cpu_access.cc.
#include <bit>
#include "sim/engine.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "sim/event_series.h"
#include "sim/fifo_eviction.h"
#include "sim/future_oracle.h"
#include "traces/checked_math.h"
#include "traces/trace_error.h"
#include "traces/units.h"

namespace umsim::sim {

using trace::Event;
using trace::EventKind;

namespace {
constexpr std::size_t kReadBatch = 4096;
constexpr std::size_t kMaxStreams = 1u << 20;  // `umsim trace check` applies the same limit
constexpr std::uint64_t kProgressEvery = 1u << 18;
}  // namespace

Engine::Engine(EngineOptions options, EnginePolicies policies)
    : options_(std::move(options)),
      profile_(options_.profile),
      vendor_(options_.vendor),
      policies_(std::move(policies)) {
  if (!policies_.eviction) {
    policies_.eviction = std::make_unique<FifoByAllocationEviction>();
    policies_.resolved["evict"] = {{"name", "builtin-fifo"}, {"params", nlohmann::ordered_json::object()}};
  }
  for (const char* kind : {"prefetch", "migrate", "thrashing"})
    if (!policies_.resolved.contains(kind))
      policies_.resolved[kind] = {{"name", "builtin-none"}, {"params", nlohmann::ordered_json::object()}};
  // A policy that never prefetches is not consulted: no request is built per fault.
  prefetch_ = policies_.prefetch && !policies_.prefetch->never_prefetches() ? policies_.prefetch.get() : nullptr;
  eviction_ = policies_.eviction.get();
  migration_ = policies_.migration.get();
  decide_callbacks_ = migration_ && !migration_->keeps_driver_default();
  // Nor is a thrashing policy that never responds: the same result as none.
  thrashing_ =
      policies_.thrashing && !policies_.thrashing->never_responds() ? policies_.thrashing.get() : nullptr;
  eviction_access_callbacks_ = eviction_->wants_access_callbacks();
  prefetch_beyond_budget_ = prefetch_ ? std::min(prefetch_->beyond_block_budget(), kMaxPrefetchBlocksBeyond) : 0;
  remote_access_callbacks_ = migration_ && migration_->wants_remote_access_callbacks();
  short_path_ = short_path_applies();
  quiet_pages_ = quiet_pages_apply();
  quiet_repeats_ignored_ = thrashing_ && thrashing_->ignores_quiet_repeats();

  gpu_memory_ = options_.gpu_memory ? options_.gpu_memory : profile_.gpu_memory;
  pageable_cache_ = PageableBufferCache(profile_.pageable_cache_bytes);
  access_unit_shift_ = static_cast<unsigned>(std::countr_zero(profile_.gpu_access_unit));
  chunk_bytes_ = eviction_->granularity();
  if (chunk_bytes_ < kPageSize || chunk_bytes_ > kBlockSize || (chunk_bytes_ & (chunk_bytes_ - 1)))
    throw SimulationError(fmt::format("eviction policy granularity {} is not a power of two from 4KiB to 2MiB",
                                      chunk_bytes_));
  if (gpu_memory_ < kBlockSize)
    throw SimulationError(fmt::format("GPU memory {} is smaller than one 2MiB VA block",
                                      trace::format_bytes(gpu_memory_)));
  pages_per_chunk_ = static_cast<std::uint32_t>(chunk_bytes_ / kPageSize);
  chunk_shift_ = static_cast<std::uint32_t>(__builtin_ctz(pages_per_chunk_));
  batch_limit_ = std::min(profile_.fault_batch_size, profile_.fault_concurrency);
  // Chunk slots are 32-bit (kNoSlot reserved); the records behind them are made as chunks are used.
  if (gpu_memory_ / chunk_bytes_ >= kNoSlot)
    throw SimulationError(fmt::format(
        "GPU memory {} is {} chunks of {}, more than the {} chunks per GPU the model addresses "
        "(use less memory or a larger eviction granularity)",
        trace::format_bytes(gpu_memory_), gpu_memory_ / chunk_bytes_, trace::format_bytes(chunk_bytes_), kNoSlot - 1));
  const auto chunks = static_cast<std::uint32_t>(gpu_memory_ / chunk_bytes_);
  gpus_.reserve(static_cast<std::size_t>(profile_.gpus));
  for (int g = 0; g < profile_.gpus; ++g) gpus_.emplace_back(chunks, profile_, &link_slowdowns_);
  for (GpuState& gpu : gpus_) gpu.serviced_faults = options_.warm_fault_service;
  fault_buffer_.reserve(batch_limit_);
  parked_faults_.resize(gpus_.size());
  timeline_ = !options_.issue_order && !eviction_->needs_future();  // the oracle numbers accesses in trace order
  auto table = [](const LinkProfile& link) {
    std::vector<Nanos> t(kPagesPerBlock + 1, 0);
    for (std::uint32_t k = 1; k <= kPagesPerBlock; ++k) {
      const Bytes bytes = Bytes{k} * kPageSize;
      t[k] = static_cast<Nanos>(std::ceil(static_cast<double>(bytes) / link.curve.gbps_at(bytes)));
    }
    return t;
  };
  run_ns_h2d_ = table(profile_.h2d);
  run_ns_d2h_ = table(profile_.d2h);
  run_ns_peer_ = table(profile_.peer);
  short_costs_.block[0] = profile_.populate_block_ns();
  short_costs_.block[1] = profile_.fault_va_block_ns;
  for (int copied : {0, 1}) short_costs_.one_page[copied] = short_costs_.block[copied] + profile_.fault_page_ns;
  short_costs_.copied_extra = profile_.fault_migrated_page_ns + profile_.fault_run_ns.value_or(0);
  short_costs_.page_h2d = profile_.h2d.latency_ns + run_ns_h2d_[1];
  short_costs_.page_d2h = profile_.d2h.latency_ns + run_ns_d2h_[1];
  short_costs_.page_zero_fill = profile_.zero_fill_ns(1);
  if (options_.events_csv) series_ = std::make_unique<EventSeries>(*options_.events_csv);
}

Engine::~Engine() = default;

Result Engine::run(trace::TraceReader& reader) {
  names_ = &reader.names();
  // Peer access: a version-2 trace enables GPU pairs itself ('peer enable', as
  // hipDeviceEnablePeerAccess does); version 1 takes the profile's switch for every pair.
  peers_from_trace_ = reader.version() >= 2;
  for (int g = 0; g < kMaxGpus; ++g)
    peer_pairs_[g] = !peers_from_trace_ && profile_.peer_access ? static_cast<std::uint16_t>(0xffff) : 0;
  EvictionContext ctx;
  ctx.gpus = profile_.gpus;
  ctx.chunks_per_gpu = gpus_.front().memory.capacity();
  ctx.chunk_bytes = chunk_bytes_;
  ctx.access_seq = &access_seq_;
  ctx.evictable = [this](int gpu, std::uint32_t slot) {
    const GpuMemory& m = gpus_[static_cast<std::size_t>(gpu)].memory;
    if (slot >= m.slots_created()) return false;
    const PhysicalChunk& c = m.chunk(slot);
    return c.allocated && !c.pinned && !c.busy;
  };
  ctx.resident_pages = [this](int gpu, std::uint32_t slot) {
    const GpuMemory& m = gpus_[static_cast<std::size_t>(gpu)].memory;
    return slot < m.slots_created() ? m.chunk(slot).resident : 0u;
  };
  memory_of_gpu_.clear();
  for (const GpuState& g : gpus_) memory_of_gpu_.push_back(&g.memory);
  ctx.memory = memory_of_gpu_.data();
  if (eviction_->needs_future()) {
    if (!options_.reopen) throw SimulationError("the eviction policy needs the future but the trace cannot be re-read");
    auto again = options_.reopen();
    oracle_ = build_future_oracle(*again, profile_.gpus, pages_per_chunk_);
    ctx.future = oracle_.get();
  }
  eviction_->attach(ctx);
  bool every_order = true;
  for (int g = 0; g < profile_.gpus; ++g) every_order = (eviction_order_[g] = eviction_->eviction_order(g)) && every_order;
  if (!every_order) std::fill(std::begin(eviction_order_), std::end(eviction_order_), nullptr);
  for (int g = 0; g < profile_.gpus; ++g)
    preferred_victims_[g] = eviction_order_[g] ? eviction_->preferred_victims(g) : nullptr;
  lone_faults_ = lone_faults_apply();
  lone_faults_costless_ = lone_faults_ && lone_faults_costless();
  lone_pages_ = lone_pages_apply();
  recency_touch_ = eviction_access_callbacks_;
  for (int g = 0; g < profile_.gpus; ++g) {
    recency_[g] = eviction_access_callbacks_ ? eviction_->recency_order(g) : nullptr;
    recency_touch_ = recency_touch_ && recency_[g];
  }

  phase_ = Scope{};
  phase_.result.name = "main";
  result_ = Result{};
  result_.producer = "umsim-sim";
  result_.trace = options_.trace_name;

  std::vector<Event> buffer(kReadBatch);
  std::uint64_t events = 0;
  std::uint64_t next_progress = kProgressEvery;
  std::size_t i = 0;
  try {
    for (std::span<const Event> batch; !(batch = reader.read_view(buffer)).empty();) {
      const std::size_t n = batch.size();
      for (i = 0; i < n;) {
        const Event& e = batch[i];
        if (e.kind == EventKind::kGpuAccess && kernel_.open) {
          replay_accesses(batch, i);  // the open kernel's accesses up to the next other event
          continue;
        }
        // The look-ahead costs a resident-hit replay over a small footprint half
        // its speed (the records are in the cache anyway): only past the cache.
        if (prefetch_ahead_ && i + kLookahead < n) prefetch_metadata(batch[i + kLookahead]);
        if (e.kind == EventKind::kGpuAccess) {
          buffer_access(e);  // kernels run on their streams' timeline
        } else {
          dispatch(e);
          if (options_.check_invariants && !kernel_.open && !reading_) check_invariants();
        }
        ++i;
      }
      events += n;
      if (options_.progress && events >= next_progress) {
        options_.progress(events);
        next_progress = events + kProgressEvery;
      }
    }
  } catch (const SimulationError& err) {
    throw SimulationError(reader.position(i) + ": " + err.what());
  } catch (const InvariantViolation& err) {
    throw InvariantViolation(reader.position(i) + ": invariant violated: " + err.what());
  }
  if (kernel_.open || reading_)
    throw SimulationError(fmt::format("{}: the trace ends inside kernel '{}'", reader.source(), open_kernel_name()));
  try {
    run_streams(true);
  } catch (const SimulationError& err) {
    throw SimulationError(reader.source() + ": at the end: " + err.what());
  }
  close_phase();
  if (options_.check_invariants) check_invariants();

  for (const auto& p : result_.phases) result_.total += p.counters;
  result_.total.time_ns = std::max(host_now_, all_streams_done());
  result_.config = resolved_config();
  result_.hardware = {{"profile", profile_.name}, {"description", profile_.description}};
  return result_;
}

void Engine::dispatch(const Event& e) {
  if ((kernel_.open || reading_) && e.kind != EventKind::kKernelEnd)
    throw SimulationError(fmt::format("{} inside kernel '{}' (only GPU accesses and kernel_end may appear there)",
                                      trace::to_string(e.kind), open_kernel_name()));
  if (e.kind != EventKind::kPhase) phase_.any = true;
  if (options_.streams_created_at_first_use) create_stream_at_first_use(e);
  if (e.kind == EventKind::kKernelBegin) end_held_prefetch(e.stream);
  if (e.kind == EventKind::kPrefetch && profile_.prefetch_queued_call_ns) return prefetch_call(e);
  if (timeline_) {
    if (is_stream_work(e.kind)) return issue_stream_work(e);
    run_streams(true);  // the host waits for nothing, but its statement sees every stream's work done
  }
  switch (e.kind) {
    case EventKind::kAlloc: return on_alloc(e);
    case EventKind::kFree: return on_free(e);
    case EventKind::kKernelBegin:
      if (const Nanos t = launch_not_before(checked_gpu(e.processor, "kernel"), e.stream); t > 0)
        stream_ready(e.stream) = std::max(stream_ready(e.stream), t);
      return on_kernel_begin(e);
    case EventKind::kKernelEnd: return on_kernel_end();
    case EventKind::kGpuAccess:
      throw SimulationError("GPU access outside a kernel");
    case EventKind::kCpuAccess:
      if (e.op == static_cast<std::uint8_t>(trace::AccessType::kReadModifyWrite)) return read_modify_write(e);
      return cpu_access(e);
    case EventKind::kPrefetch: return on_prefetch(e);
    case EventKind::kAdvise: return on_advise(e);
    case EventKind::kSync: return on_sync(e);
    case EventKind::kEventRecord: return on_event_record(e);
    case EventKind::kEventWait: return on_event_wait(e);
    case EventKind::kPhase: return on_phase(e);
    case EventKind::kCopy: return on_copy(e);
    case EventKind::kMemset: return on_memset(e);
    case EventKind::kPeerEnable: return on_peer_enable(e);
  }
  throw SimulationError(fmt::format("unknown event kind {}", static_cast<int>(e.kind)));
}

// ---- names, allocations ----------------------------------------------------

Bytes Engine::metadata_bytes(const Allocation& a) const {
  // Pages, blocks (state, populated mask, a resident mask per GPU), chunk slots per region and GPU.
  const std::uint64_t regions = (a.page_count + pages_per_chunk_ - 1) / pages_per_chunk_;
  return a.page_count * sizeof(PageState) + a.block_count * (sizeof(BlockState) + sizeof(PageMask) * (1 + gpus_.size())) +
         regions * sizeof(std::uint32_t) * gpus_.size();
}

AllocSlot Engine::slot_of(trace::NameId name) const {
  return name < slot_of_name_.size() ? slot_of_name_[name] : kNoSlot;
}

Allocation& Engine::checked_alloc(const Event& e, const char* what) {
  const AllocSlot s = slot_of(e.name);
  if (s == kNoSlot)
    throw SimulationError(fmt::format("{} of '{}', which is not allocated", what, names_->name(e.name)));
  return allocs_[s];
}

void Engine::check_range(const Allocation& a, const Event& e) const {
  // The same rules as `umsim trace check` (traces/trace_checker.cc).
  const char* what = e.kind == EventKind::kGpuAccess   ? "GPU access"
                     : e.kind == EventKind::kCpuAccess ? "CPU access"
                                                       : trace::to_string(e.kind);
  if (e.length == 0 && (e.kind == EventKind::kGpuAccess || e.kind == EventKind::kCpuAccess))
    throw SimulationError(fmt::format("zero-length {} of '{}' (len= must be at least 1 byte)", what, a.name));
  const auto end = checked_add(e.offset, e.length);
  if (!end || *end > a.size)
    throw SimulationError(fmt::format("{} [{}, +{}) is outside allocation '{}' of {}", what,
                                      trace::describe_bytes(e.offset), trace::describe_bytes(e.length), a.name,
                                      trace::describe_bytes(a.size)));
}

int Engine::checked_gpu(Processor p, const char* what) const {
  if (!p.is_gpu() || p.gpu_index() >= profile_.gpus)
    throw SimulationError(fmt::format("{} names {}, but profile '{}' has {} GPU(s) (gpu0..gpu{})", what,
                                      trace::to_string(p), profile_.name, profile_.gpus, profile_.gpus - 1));
  return p.gpu_index();
}

void Engine::on_alloc(const Event& e) {
  const std::string& name = names_->name(e.name);
  if (slot_of(e.name) != kNoSlot)
    throw SimulationError(fmt::format("allocation '{}' already exists (free it first)", name));
  if (e.length == 0) throw SimulationError(fmt::format("allocation '{}' has size 0", name));
  if (!checked_round_up(e.length, kPageSize))
    throw SimulationError(fmt::format(
        "allocation '{}' is too large: its size does not round up to whole 4KiB pages in 64 bits", name));
  const auto slot = static_cast<AllocSlot>(allocs_.size());
  Allocation& a = allocs_.emplace_back();
  a.name = name;
  a.kind = e.alloc_kind();
  a.size = e.length;
  a.page_count = ceil_div(e.length, kPageSize);
  a.block_count = ceil_div(a.page_count, kPagesPerBlock);
  // Value-initialising more metadata than half the machine's memory would
  // end in the OOM killer rather than an error message.
  // The limit holds for all live allocations together.
  static const std::uint64_t kMetadataLimit =
      static_cast<std::uint64_t>(sysconf(_SC_PHYS_PAGES)) * static_cast<std::uint64_t>(sysconf(_SC_PAGE_SIZE)) / 2;
  const std::uint64_t metadata = metadata_bytes(a);
  if (metadata > kMetadataLimit || live_metadata_ > kMetadataLimit - metadata) {
    allocs_.pop_back();
    throw SimulationError(fmt::format(
        "allocation '{}' of {} needs {} of page metadata; with the {} held by live allocations that is more than "
        "the {} (half of this machine's memory) the model may use",
        name, trace::format_bytes(e.length), trace::format_bytes(metadata), trace::format_bytes(live_metadata_),
        trace::format_bytes(kMetadataLimit)));
  }
  try {
    if (saturating_mul(a.page_count, sizeof(PageState)) > kMetadataLimit) throw std::bad_alloc();
    a.pages.resize(a.page_count);
    a.blocks.resize(a.block_count);
    a.populated.resize(a.block_count);
  } catch (const std::bad_alloc&) {
    allocs_.pop_back();
    throw SimulationError(fmt::format("allocation '{}' of {} needs {} of page metadata, more than this machine can give",
                                      name, trace::format_bytes(e.length),
                                      trace::format_bytes(saturating_mul(a.page_count, sizeof(PageState)))));
  }

  live_metadata_ += metadata;
  prefetch_ahead_ = live_metadata_ > kPrefetchAboveMetadata;
  if (slot_of_name_.size() <= e.name) slot_of_name_.resize(e.name + 1, kNoSlot);
  slot_of_name_[e.name] = slot;

  const ProcessorMask all_gpus = static_cast<ProcessorMask>(((1u << profile_.gpus) - 1) << 1);
  const std::uint64_t regions = ceil_div(a.page_count, pages_per_chunk_);
  switch (a.kind) {
    case trace::AllocKind::kManaged:
    case trace::AllocKind::kSystem:
      a.chunk_slot.assign(gpus_.size(), HugePageVector<std::uint32_t>(regions, kNoSlot));
      a.gpu_resident.assign(gpus_.size(), std::vector<PageMask>(a.block_count));
      // (System memory with XNACK off is mapped by no GPU: a GPU touch is fatal.)
      if (!vendor_.gpu_faults_migrate && a.kind == trace::AllocKind::kManaged) {
        // XNACK off: zero-copy host memory, mapped by every GPU from the start.
        // The CPU maps it only while it holds the data (a prefetch to a GPU unmaps it).
        a.always_mapped = all_gpus;
        for (auto& p : a.pages) p = PageState{kCpuBit, static_cast<ProcessorMask>(all_gpus | kCpuBit), 0, -1, 0};
        a.mark_all_populated();
      }
      if (prefetch_) prefetch_->on_allocation_created(slot, a.page_count);
      eviction_->on_allocation_created(slot, a.page_count);
      if (migration_) migration_->on_allocation_created(slot, a.page_count);
      if (thrashing_) thrashing_->on_allocation_created(slot, a.page_count);
      break;
    case trace::AllocKind::kPinned:
    case trace::AllocKind::kMapped:
      a.always_mapped = all_gpus;  // the CPU holds the only copy for good
      for (auto& p : a.pages) p = PageState{kCpuBit, static_cast<ProcessorMask>(all_gpus | kCpuBit), 0, -1, 0};
      a.mark_all_populated();
      break;
    case trace::AllocKind::kDevice: {
      const int g = e.processor.is_none() ? 0 : checked_gpu(e.processor, "device allocation");
      a.home = Processor::gpu(g);
      GpuMemory& mem = gpus_[static_cast<std::size_t>(g)].memory;
      const std::uint64_t free_for_device = std::uint64_t{mem.capacity() - mem.pinned()} * chunk_bytes_;
      if (regions * chunk_bytes_ > free_for_device)
        throw SimulationError(fmt::format(
            "device allocation '{}' needs {} on gpu{}, but gpu{} has {} of memory{} ({} already held by device "
            "allocations); device memory never migrates, so it must fit (use --gpu-mem or another profile)",
            name, trace::format_bytes(regions * chunk_bytes_), g, g, trace::format_bytes(gpu_memory_),
            options_.gpu_memory ? " (--gpu-mem)" : fmt::format(" (profile {})", profile_.name),
            trace::format_bytes(std::uint64_t{mem.pinned()} * chunk_bytes_)));
      a.chunk_slot.assign(gpus_.size(), HugePageVector<std::uint32_t>(regions, kNoSlot));
      a.gpu_resident.assign(gpus_.size(), std::vector<PageMask>(a.block_count));
      a.always_mapped = processor_bit(a.home);
      for (int peer = 0; peer < profile_.gpus; ++peer)
        if (peers_enabled(g, peer)) a.always_mapped |= processor_bit(Processor::gpu(peer));
      Nanos t = host_now_;
      for (std::uint64_t r = 0; r < regions; ++r) {
        while (!mem.has_free()) {
          const std::uint32_t victim = choose_victim(IncomingChunk{g, slot, r * pages_per_chunk_}, t);
          if (victim == kNoVictim) throw SimulationError("no evictable chunk for a device allocation");
          evict_chunk(g, victim, t);
        }
        const std::uint32_t s = mem.take(slot, r * pages_per_chunk_, /*pinned=*/true);
        a.chunk_slot[static_cast<std::size_t>(g)][r] = s;
        const std::uint64_t first = r * pages_per_chunk_;
        const std::uint64_t last = std::min<std::uint64_t>(first + pages_per_chunk_, a.page_count);
        mem.chunk(s).resident = static_cast<std::uint32_t>(last - first);
        for (std::uint64_t p = first; p < last; ++p)
          a.gpu_resident[static_cast<std::size_t>(g)][p / kPagesPerBlock].set(p % kPagesPerBlock);
        for (std::uint64_t p = first; p < last; ++p)
          a.pages[p] = PageState{processor_bit(a.home), a.always_mapped, 0, -1, 0};
      }
      a.mark_all_populated();
      host_now_ = t;
      break;
    }
  }
}

void Engine::on_free(const Event& e) {
  const AllocSlot slot = slot_of(e.name);
  if (slot == kNoSlot) throw SimulationError(fmt::format("free of '{}', which is not allocated", names_->name(e.name)));
  Allocation& a = allocs_[slot];
  if (a.managed()) host_now_ += free_host_ns(a);
  for (std::size_t g = 0; g < a.chunk_slot.size(); ++g)
    for (std::uint32_t s : a.chunk_slot[g])
      if (s != kNoSlot) release_chunk(static_cast<int>(g), s);
  if (a.managed()) {
    if (prefetch_) prefetch_->on_allocation_freed(slot);
    eviction_->on_allocation_freed(slot);
    if (migration_) migration_->on_allocation_freed(slot);
    if (thrashing_) thrashing_->on_allocation_freed(slot);
    cpu_faulted_.forget(slot);
  }
  a.live = false;
  live_metadata_ -= metadata_bytes(a);
  prefetch_ahead_ = live_metadata_ > kPrefetchAboveMetadata;
  a.pages = {};
  a.blocks = {};
  a.populated = {};
  a.chunk_slot = {};
  a.gpu_resident = {};
  slot_of_name_[e.name] = kNoSlot;
}

// The driver tears a managed range down in the freeing thread: a call, and
// per VA block with pages on a GPU, their mappings and chunks
// (host.free_call_cost, host.free_gpu_block_cost).
Nanos Engine::free_host_ns(const Allocation& a) const {
  if (!profile_.free_call_ns && !profile_.free_gpu_block_ns) return 0;
  std::uint64_t gpu_blocks = 0;
  for (const auto& blocks : a.gpu_resident)
    for (const PageMask& m : blocks) gpu_blocks += m.any();
  return profile_.free_call_ns + gpu_blocks * profile_.free_gpu_block_ns;
}

const std::string& Engine::open_kernel_name() const {
  if (kernel_.open) return kernel_.name;
  return names_->name(reading_->queue.back().event.name);
}

const Allocation* Engine::allocation(std::string_view name) const {
  if (!names_) return nullptr;
  const auto id = names_->find(name);
  if (!id) return nullptr;
  const AllocSlot s = slot_of(*id);
  return s == kNoSlot ? nullptr : &allocs_[s];
}

// ---- kernels, streams, events ----------------------------------------------

Nanos& Engine::stream_ready(trace::StreamId s) {
  if (s >= stream_ready_.size()) {
    if (s >= kMaxStreams) throw SimulationError(fmt::format("stream {} is beyond the {} streams supported", s, kMaxStreams));
    stream_ready_.resize(s + 1, 0);
    stream_gpu_.resize(s + 1, -1);
    stream_after_held_prefetch_.resize(s + 1, 0);
    prefetch_call_return_.resize(s + 1, 0);
  }
  return stream_ready_[s];
}

Nanos Engine::all_streams_done() const {
  Nanos t = 0;
  for (Nanos r : stream_ready_) t = std::max(t, r);
  return t;
}

Nanos Engine::launch_not_before(int gpu, trace::StreamId stream) {
  GpuState& g = gpus_[static_cast<std::size_t>(gpu)];
  // Idle as begin_kernel judges it, at the launch call: no kernel running or
  // launched within gpu.idle_start_after (the H200's first launch after host
  // work reaches the GPU about 19 us after the call, the next ones about 2).
  // A kernel launched long ago that the timeline has not replayed yet does
  // not count: a second stream's launch then waits the idle gap.
  const Nanos idle_after = profile_.gpu_idle_after_ns;
  const bool idle =
      g.kernels_idle_at(host_now_, idle_after) && (!g.launch_issued || host_now_ >= *g.launch_issued + idle_after);
  g.launch_issued = host_now_;
  Nanos gap = idle ? profile_.idle_launch_gap_ns : profile_.launch_gap_ns;
  if (launch_after_memset_) {
    launch_after_memset_ = false;
    gap = profile_.launch_after_memset_ns;
  }
  if (gap == 0) return 0;
  // A launch does not overtake the one before it on its way to the GPU.
  g.launch_reaches = std::max(host_now_ + gap, g.launch_reaches);
  if (idle) {
    g.idle_launch_stream = stream;
    g.idle_launch_reaches = g.launch_reaches;
  } else if (stream != g.idle_launch_stream) {
    // Another stream's kernel, launched right after it, starts tens of
    // microseconds after it on the H200 and the H100 (docs/model.md, the cost
    // table's "kernel on another stream").
    g.launch_reaches = std::max(g.launch_reaches, g.idle_launch_reaches + profile_.other_stream_launch_gap_ns);
  }
  return g.launch_reaches;
}

void Engine::on_kernel_begin(const Event& e) {
  begin_kernel(names_->name(e.name), checked_gpu(e.processor, "kernel"), e.stream, e.duration);
}

void Engine::begin_kernel(const std::string& name, int gpu, trace::StreamId stream, Nanos compute) {
  kernel_.open = true;
  kernel_.name = name;
  kernel_.gpu = gpu;
  kernel_.stream = stream;
  kernel_.launch = result_.kernels.size();
  kernel_.start = std::max(host_now_, stream_ready(stream));
  stream_gpu_[stream] = static_cast<std::int16_t>(gpu);
  kernel_.now = kernel_.start;
  kernel_.compute = compute;
  kernel_.lanes = profile_.gpu_access_lanes;
  kernel_.window = profile_.gpu_access_window;
  GpuState& g = gpus_[static_cast<std::size_t>(gpu)];
  kernel_.idle_start = g.kernels_idle_at(kernel_.start, profile_.gpu_idle_after_ns) ? profile_.gpu_idle_start_ns : 0;
  ++g.kernels_running;
  kernel_.remote_host_bytes = 0;
  kernel_.remote_host_write_bytes = 0;
  kernel_.remote_host_requests = 0;
  kernel_.remote_peer_bytes = 0;
  kernel_.touched_units = 0;
  kernel_.remote_touched_units = 0;
  kernel_.rmw_store_units = 0;
  kernel_.write_faulted = false;
  kernel_bit_ = processor_bit(Processor::gpu(gpu));
  kernel_counters_ = Counters{};
  kernel_first_seq_ = access_seq_;
  update_plain_hits();
}

// When the open kernel ends, its faults serviced: its remote traffic, its
// local touches and its compute after the fault stalls so far, plus the launch.
Nanos Engine::kernel_end_time() {
  const Counters& c = kernel_counters_;
  const std::uint64_t accesses = access_seq_ - kernel_first_seq_;
  auto remote_ns = [](Bytes bytes, double gbps) {
    return bytes ? static_cast<Nanos>(std::ceil(static_cast<double>(bytes) / gbps)) : Nanos{0};
  };
  // A page touch costs a fraction of a nanosecond: summed, then rounded.
  auto touch_cost_ns = [](std::uint64_t touches, double ns) {
    return static_cast<Nanos>(std::llround(static_cast<double>(touches) * ns));
  };
  // Remote (zero-copy) traffic streams over the link while the kernel runs;
  // reads of host memory at the link's bandwidth or, sparse, at its rate of
  // requests in flight, whichever is slower.
  // Stores at their own bandwidth where the profile gives one.
  const double write_gbps = profile_.remote_write_to_host_gbps();
  const Bytes written = write_gbps == profile_.remote_gpu_to_host_gbps ? 0 : kernel_.remote_host_write_bytes;
  const Nanos host_bytes_ns = remote_ns(kernel_.remote_host_bytes - written, profile_.remote_gpu_to_host_gbps) +
                              remote_ns(written, write_gbps);
  kernel_.now += std::max(host_bytes_ns, touch_cost_ns(kernel_.remote_host_requests, profile_.remote_request_ns)) +
                 remote_ns(kernel_.remote_peer_bytes, profile_.remote_gpu_to_peer_gbps) +
                 touch_cost_ns(c.remote_accesses, profile_.remote_access_ns);
  // Touches of the GPU's own memory (every access but the remote ones:
  // faulted pages are read locally once serviced) cost their transaction
  // units at the profile's access bandwidth plus a per-touch cost, after the
  // faults and before the compute: the work a kernel does with its data is not
  // free even when every page is resident.
  const std::uint64_t local_touches = accesses - std::min(accesses, c.remote_accesses);
  const std::uint64_t local_units =
      kernel_.touched_units - std::min(kernel_.touched_units, kernel_.remote_touched_units);
  const Nanos access_ns =
      (profile_.gpu_access_gbps > 0 ? remote_ns(local_units * profile_.gpu_access_unit, profile_.gpu_access_gbps) : 0) +
      touch_cost_ns(local_touches, profile_.gpu_access_ns) +
      touch_cost_ns(kernel_.rmw_store_units, profile_.gpu_rmw_ns);
  Nanos end = kernel_.now + access_ns + kernel_.compute;
  if (profile_.gpu_fault_compute_overlap > 0) {
    // Warps that did not fault keep working while the others' faults are serviced.
    const Nanos stall = kernel_.now - kernel_.start;
    end -= static_cast<Nanos>(profile_.gpu_fault_compute_overlap *
                              static_cast<double>(std::min(stall, access_ns + kernel_.compute)));
  }
  kernel_.compute_from = end - kernel_.compute;
  return end_after_compute();
}

// Its compute last (slower while the GPU services another kernel's faults),
// then the launch.
Nanos Engine::end_after_compute() const {
  const GpuState& gpu = gpus_[static_cast<std::size_t>(kernel_.gpu)];
  return compute_end_beside_faults(gpu, kernel_.compute_from, kernel_.compute) + profile_.gpu_launch_ns +
         kernel_.idle_start;
}

void Engine::kernel_finished(Nanos end) {
  GpuState& g = gpus_[static_cast<std::size_t>(kernel_.gpu)];
  if (--g.kernels_running == 0) g.served.clear();
  g.ran_kernel = true;
  g.kernels_done = std::max(g.kernels_done, end);
}

void Engine::on_kernel_end() { end_kernel_at(close_kernel()); }

Nanos Engine::close_kernel() {
  if (!kernel_.open) throw SimulationError("kernel_end without an open kernel");
  service_fault_batch();
  kernel_counters_.accesses = access_seq_ - kernel_first_seq_;
  return kernel_end_time();
}

void Engine::end_kernel_at(Nanos end) {
  Counters& c = kernel_counters_;
  kernel_finished(end);
  c.stall_ns = kernel_.now - kernel_.start;
  c.time_ns = end - kernel_.start;
  stream_ready(kernel_.stream) = end;
  kernel_.open = false;
  ScopeResult r{kernel_.name, kernel_.gpu, kernel_.start, c};
  if (series_) series_->row("kernel", r, end, kernel_.stream);
  if (kernel_result_slot_ < result_.kernels.size()) result_.kernels[kernel_result_slot_] = std::move(r);
  else result_.kernels.push_back(std::move(r));
  phase_.result.counters += c;
  phase_.result.counters.time_ns -= c.time_ns;  // phase time is wall time, set when it closes
  if (options_.check_invariants) check_invariants();
}

void Engine::on_sync(const Event& e) {
  switch (e.sync_scope()) {
    case trace::SyncScope::kAll:
      host_now_ = sync_returns(all_streams_done());
      std::fill(stream_after_held_prefetch_.begin(), stream_after_held_prefetch_.end(), 0);
      return;
    case trace::SyncScope::kGpu: {
      // Waits for the streams whose last work ran on (or prefetched to) that GPU.
      const int g = checked_gpu(e.processor, "sync");
      Nanos awaited = 0;
      for (std::size_t s = 0; s < stream_ready_.size(); ++s)
        if (stream_gpu_[s] == g) {
          awaited = std::max(awaited, stream_ready_[s]);
          end_held_prefetch(static_cast<trace::StreamId>(s));
        }
      host_now_ = sync_returns(awaited);
      return;
    }
    case trace::SyncScope::kStream:
      host_now_ = sync_returns(stream_ready(e.stream));
      end_held_prefetch(e.stream);
      return;
  }
  throw SimulationError("unknown sync scope");
}

void Engine::on_event_record(const Event& e) {
  if (event_time_.size() <= e.name) event_time_.resize(e.name + 1, 0);
  event_time_[e.name] = std::max(host_now_, stream_ready(e.stream));
}

void Engine::on_event_wait(const Event& e) {
  // Waiting for an event never recorded completes at once (CUDA/HIP semantics).
  const Nanos t = e.name < event_time_.size() ? event_time_[e.name] : 0;
  Nanos& r = stream_ready(e.stream);
  r = std::max({r, t, host_now_});
}

// ---- phases, results --------------------------------------------------------

void Engine::on_phase(const Event& e) {
  if (options_.sync_at_phases) {
    host_now_ = std::max(host_now_, all_streams_done());
    std::fill(stream_after_held_prefetch_.begin(), stream_after_held_prefetch_.end(), 0);
  }
  close_phase();
  phase_ = Scope{};
  phase_.any = true;
  phase_.result.name = names_->name(e.name);
  // Phases tile the timeline: one starts when the previous one's work is done
  // (the host may be ahead, with kernels still running on their streams).
  phase_.result.start_ns = std::max(host_now_, last_phase_end_);
}

void Engine::close_phase() {
  if (!phase_.any && result_.phases.empty() && phase_.result.name == "main")
    return;  // no implicit "main" phase when the trace starts with a marker
  const Nanos end = std::max({host_now_, all_streams_done(), phase_.result.start_ns});
  last_phase_end_ = end;
  phase_.result.counters.time_ns = end - phase_.result.start_ns;
  if (series_) series_->row("phase", phase_.result, end);
  result_.phases.push_back(phase_.result);
}

nlohmann::ordered_json Engine::resolved_config() const {
  nlohmann::ordered_json j;
  j["profile"] = to_json(profile_);
  j["profile_source"] = profile_.source;
  j["vendor"] = vendor_.to_json();
  j["policies"] = policies_.resolved;
  j["options"] = {{"gpu_memory_bytes", gpu_memory_},
                  {"gpu_memory_overridden", options_.gpu_memory != 0},
                  {"chunk_bytes", chunk_bytes_},
                  {"chunks_per_gpu", gpus_.front().memory.capacity()},
                  {"fault_batch_limit", batch_limit_},
                  {"check_invariants", options_.check_invariants}};
  if (options_.warm_fault_service) j["options"]["warm_fault_service"] = true;
  if (options_.sync_at_phases) j["options"]["sync_at_phases"] = true;
  if (options_.streams_created_at_first_use)
    j["options"]["streams_created_at_first_use"] = {{"created_before_the_timing", *options_.streams_created_at_first_use}};
  for (auto it = options_.extra_config.begin(); it != options_.extra_config.end(); ++it) j[it.key()] = it.value();
  return j;
}

}  // namespace umsim::sim
