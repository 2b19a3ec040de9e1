// The unified-memory model: replays a trace against a hardware profile and
// policies, in discrete-event integer-nanosecond time (docs/model.md).
//
// State changes apply in trace (issue) order; time is tracked per resource:
// the host thread, each stream, each GPU's fault servicing, each link's copy
// engines. The engine receives policy objects from its caller and never looks
// up names; a null policy means the built-in default (no prefetch, FIFO-by-
// allocation eviction, the driver's hint-aware migration, no thrashing handling).
#pragma once

#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <unordered_set>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/allocation.h"
#include "sim/cache_hint.h"
#include "sim/cpu_faulted_pages.h"
#include "sim/eviction_policy.h"
#include "sim/gpu_memory.h"
#include "sim/migration_policy.h"
#include "sim/pageable_buffer_cache.h"
#include "sim/prefetch_policy.h"
#include "sim/profile.h"
#include "sim/result.h"
#include "sim/shared_link.h"
#include "sim/stream_actor.h"
#include "sim/thrashing_policy.h"
#include "sim/vendor_semantics.h"
#include "traces/page_touch.h"
#include "traces/trace_reader.h"

namespace umsim::sim {

class FutureOracle;
class EventSeries;

// A trace that is semantically impossible for the configured machine (device
// allocation larger than GPU memory, access beyond an allocation, ...).
// what() names the trace position.
class SimulationError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A broken internal invariant (a bug in the model or a policy).
class InvariantViolation : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

struct EngineOptions {
  HardwareProfile profile;
  Bytes gpu_memory = 0;  // 0: the profile's value
  VendorSemantics vendor;
  bool check_invariants = false;
  std::string trace_name;  // Result::trace
  // Re-opens the trace (needed only when the eviction policy needs_future()).
  std::function<std::unique_ptr<trace::TraceReader>()> reopen;
  // Called every few hundred thousand events with the number read so far.
  std::function<void(std::uint64_t events)> progress;
  // CSV event series (kernels and phases with their counters); null for none.
  std::ostream* events_csv = nullptr;
  // Applies every statement in trace order, each kernel whole (the engine
  // before streams shared one timeline); the default steps the streams in
  // simulated time (docs/model.md, "Streams on one timeline").
  bool issue_order = false;
  // Every GPU's fault servicing starts as if a batch had just ended at time 0,
  // so its first batch pays faults.cold_start_cost only for the idle time since
  // (not in full), and so not as the process's first managed-memory work on a
  // GPU: for a run that followed others in one process, as the calibration's
  // runs do.
  bool warm_fault_service = false;
  // A phase marker waits for every stream's work, as a device-wide sync whose
  // call costs nothing: the HIP backend synchronises every device at each phase
  // marker so that a phase's time is its own, and a replay compared with its
  // results must run the same program (docs/hip_backend.md). Off by default: a
  // marker is a label, and the trace's own syncs decide when the host waits.
  bool sync_at_phases = false;
  // Each (GPU, stream) pair but (gpu0, this stream) is created at the statement
  // that first uses it, costing host.stream_create_cost of host time there: how
  // umsim-hip replayed before session 103, for comparisons with results
  // recorded then (sim/stream_creation.h). Unset: no stream costs anything.
  std::optional<trace::StreamId> streams_created_at_first_use;
  // Extra resolved configuration (e.g. policy specs) copied into Result::config.
  nlohmann::ordered_json extra_config;
};

struct EnginePolicies {
  std::unique_ptr<PrefetchPolicy> prefetch;    // null: no prefetch
  std::unique_ptr<EvictionPolicy> eviction;    // null: FIFO by allocation
  std::unique_ptr<MigrationPolicy> migration;  // null: the driver's default
  std::unique_ptr<ThrashingPolicy> thrashing;  // null: no detection
  nlohmann::ordered_json resolved;             // {"prefetch": {...}, ...} for Result::config
};

class Engine {
 public:
  Engine(EngineOptions options, EnginePolicies policies);
  ~Engine();

  // Replays the whole trace. Throws trace::TraceError (malformed input),
  // SimulationError (impossible trace) or InvariantViolation.
  Result run(trace::TraceReader& reader);

  // Checks every invariant now (tests call it; run() does after each
  // non-access event when check_invariants is set).
  void check_invariants() const;

  // Inspection for tests.
  const Allocation* allocation(std::string_view name) const;
  std::uint32_t chunks_in_use(int gpu) const { return gpus_[static_cast<std::size_t>(gpu)].memory.allocated(); }
  std::uint32_t chunk_capacity(int gpu) const { return gpus_[static_cast<std::size_t>(gpu)].memory.capacity(); }
  Bytes chunk_bytes() const { return chunk_bytes_; }

 private:
  // A stretch of simulated time, [start, end).
  struct TimeSpan {
    Nanos start = 0;
    Nanos end = 0;
  };
  struct GpuState {
    GpuState(std::uint32_t chunks, const HardwareProfile& p, std::uint32_t* link_slowdowns)
        : memory(chunks),
          h2d(p.copy_engines_h2d, p.link_sharing, link_slowdowns),
          d2h(p.copy_engines_d2h, p.link_sharing, link_slowdowns),
          peer_in(p.copy_engines_peer, p.link_sharing, link_slowdowns) {}
    GpuMemory memory;
    SharedLink h2d, d2h, peer_in;  // copies into / out of this GPU
    Nanos fault_engine_free = 0;    // the GPU's fault servicing is serial
    bool serviced_faults = false;   // a batch ran (fault_engine_free is its end): for faults.cold_start_cost
    double cold_left = 0;           // share of the cold start the next batch still pays (faults.cold_start_carry)
    // Kernels (the trace's and fill kernels) running on the GPU, and when the
    // last one ended: a kernel that finds it idle pays gpu.idle_start_cost.
    std::uint32_t kernels_running = 0;
    bool ran_kernel = false;
    Nanos kernels_done = 0;
    // No kernel runs at `t` and none ended within `idle_after` before it.
    bool kernels_idle_at(Nanos t, Nanos idle_after) const {
      return kernels_running == 0 && (!ran_kernel || t >= kernels_done + idle_after);
    }
    // Host time of the latest kernel launch call for the GPU, and the earliest
    // start it allowed (host.launch_gap): a kernel issued but not yet replayed
    // keeps the GPU from counting as idle, and launches reach the GPU in order.
    std::optional<Nanos> launch_issued;
    Nanos launch_reaches = 0;
    // The kernel launch that found the GPU idle: its stream and start
    // (host.other_stream_launch_gap).
    trace::StreamId idle_launch_stream = 0;
    Nanos idle_launch_reaches = 0;
    // Pages (alloc << 40 | page) another GPU's fault service took from this
    // GPU while its kernels ran: their next touch by those kernels counts as
    // done (note_served_pages). Emptied when the last running kernel ends.
    std::unordered_set<std::uint64_t> served;
    // When the batch being serviced (or the last one) started: a kernel that
    // begins computing while it runs counts the batch (begin_computing).
    Nanos fault_busy_from = 0;
    // Kernels whose accesses are done and whose compute may still be slowed by
    // this GPU's fault service (gpu.compute_beside_faults), and the service's
    // spans since the first of them began computing, in time order.
    std::uint32_t kernels_computing = 0;
    std::vector<TimeSpan> fault_spans;
    // Running kernels that have faulted and still have accesses to replay, as
    // the kernels beside them see it (gpu.resident_kernels_wait_for_faults).
    std::uint32_t faulting_kernels = 0;
    std::uint32_t write_faulting_kernels = 0;  // of them, those with write faults
    Nanos faults_ended_at = 0;  // the last fault service of the last of them to finish
  };
  struct FaultEntry {
    std::uint64_t key;  // alloc << 40 | page
    AllocSlot alloc() const { return static_cast<AllocSlot>(key >> 40); }
    std::uint64_t page() const { return key & ((std::uint64_t{1} << 40) - 1); }
  };
  // A VA block's fault-buffer entries (consecutive once grouped).
  struct FaultRun {
    std::uint64_t block_key;   // alloc << 31 | block: an entry's key without the page-in-block bits
    std::uint32_t begin, end;  // fault_buffer_ indices
  };
  struct Scope {
    ScopeResult result;
    bool any = false;
  };
  // A pending copy operation: contiguous runs from one source to one destination.
  struct CopyBatch {
    Processor from, to;
    Nanos busy_first = 0;   // sum over runs of bytes / bandwidth(run) on the first (or only) link
    Nanos busy_second = 0;  // staged peer copies (through the host): the host-to-GPU leg
    Bytes bytes = 0;
  };

  // engine.cc: dispatch, time, scopes, results
  void dispatch(const trace::Event& e);
  const std::string& open_kernel_name() const;
  void on_alloc(const trace::Event& e);
  void on_free(const trace::Event& e);
  Nanos free_host_ns(const Allocation& a) const;
  void on_kernel_begin(const trace::Event& e);
  void on_kernel_end();
  // Starts kernel_ (a trace's kernel, or the fill kernel of a managed memset).
  void begin_kernel(const std::string& name, int gpu, trace::StreamId stream, Nanos compute);
  // The open kernel's end time once its faults are serviced (advances kernel_.now by its remote traffic).
  Nanos kernel_end_time();
  // The open kernel's end from kernel_.compute_from on, with the fault
  // service's spans known now (the last part of kernel_end_time).
  Nanos end_after_compute() const;
  // on_kernel_end's two halves: the open kernel's end as far as known now
  // (its faults serviced), and its results once that end is final.
  Nanos close_kernel();
  void end_kernel_at(Nanos end);
  void kernel_finished(Nanos end);  // the open kernel's GPU is free of it at `end`
  void on_sync(const trace::Event& e);
  void on_event_record(const trace::Event& e);
  void on_event_wait(const trace::Event& e);
  void create_stream_at_first_use(const trace::Event& e);  // sim/stream_creation.cc
  void on_phase(const trace::Event& e);
  void close_phase();
  Nanos all_streams_done() const;
  Nanos& stream_ready(trace::StreamId s);
  AllocSlot slot_of(trace::NameId name) const;
  Bytes metadata_bytes(const Allocation& a) const;  // what on_alloc allocates for it
  Allocation& checked_alloc(const trace::Event& e, const char* what);
  void check_range(const Allocation& a, const trace::Event& e) const;
  int checked_gpu(Processor p, const char* what) const;
  Counters& counters() { return kernel_.open ? kernel_counters_ : phase_.result.counters; }
  Nanos current_time() const { return kernel_.open ? kernel_.now : host_now_; }
  nlohmann::ordered_json resolved_config() const;

  // gpu_access.cc: the hot path and the fault buffer
  void gpu_access(const trace::Event& e);
  // Replays the open kernel's GPU accesses from batch[i] on, up to the first
  // other event or the batch's end, leaving i there (at the access that threw,
  // on an error): kernel_access for each, with the single-page hits and misses
  // of one allocation in one tight loop (its lookups and the kernel's counters
  // held across accesses).
  void replay_accesses(std::span<const trace::Event> batch, std::size_t& i);
  // One GPU access of the running kernel: the single-page fast path, else the
  // full one (a read-modify-write's store waits for its load's faults).
  void kernel_access(const trace::Event& e) {
    // A range (longer than a page, where neither single-page check applies).
    if (e.length > kPageSize && e.op != static_cast<std::uint8_t>(trace::AccessType::kReadModifyWrite))
      return gpu_range_access(e);
    if (plain_hits_ || recency_hits_) {
      if (settled_single_page_access(e)) return;
    } else if (eviction_access_callbacks_ && try_callback_hit(e)) {
      return;
    }
    if (e.op == static_cast<std::uint8_t>(trace::AccessType::kReadModifyWrite)) read_modify_write(e);
    else gpu_access(e);
  }
  // A single-page, single-pass access of the open kernel within its
  // allocation: that allocation (its slot and the page in `slot`, `page`);
  // null for any other access.
  [[gnu::always_inline]] Allocation* single_page_of(const trace::Event& e, AllocSlot& slot, std::uint64_t& page) {
    if (!kernel_.open || e.count != 1 || e.length == 0 || e.length > kPageSize) return nullptr;
    slot = e.name < slot_of_name_.size() ? slot_of_name_[e.name] : kNoSlot;
    if (slot == kNoSlot) return nullptr;
    Allocation& a = allocs_[slot];
    page = e.offset / kPageSize;
    if (e.offset > a.size || e.length > a.size - e.offset || page != (e.offset + e.length - 1) / kPageSize)
      return nullptr;
    return &a;
  }
  // Replays the access (single_page_of's) when the page is already here with
  // the permission it needs and returns true; false, having changed nothing, otherwise.
  [[gnu::always_inline]] bool hit_here(Allocation& a, std::uint64_t page, const trace::Event& e) {
    PageState& st = a.pages[page];
    const bool write = e.op != static_cast<std::uint8_t>(trace::AccessType::kRead);
    if (!(st.copies & kernel_bit_) || (write && st.copies != kernel_bit_)) return false;
    ++access_seq_;
    st.flags |= write ? kDirty : 0;
    kernel_.touched_units += units_per_pass(e);
    return true;
  }
  // With no migration in flight and no hit callbacks other than a recency
  // move (plain_hits_ or recency_hits_), in line: a single-page hit (moving
  // its chunk in the recency list), or a single-page miss handed straight to
  // the fault path (what gpu_access would find after checking it all again).
  // False, having changed nothing, for any other access.
  [[gnu::always_inline]] bool settled_single_page_access(const trace::Event& e) {
    AllocSlot slot;
    std::uint64_t page;
    Allocation* a = single_page_of(e, slot, page);
    if (!a) return false;
    if (hit_here(*a, page, e)) {
      if (recency_hits_) touch_recency(*a, page);
      return true;
    }
    if (e.op == static_cast<std::uint8_t>(trace::AccessType::kReadModifyWrite)) return false;
    // lone_fault leaves the access's counting to its caller.
    if (lone_faults_ && lone_fault(e, *a, slot, page)) count_single_page_access(e);
    else single_page_fault(e, *a, slot, page);
    return true;
  }
  // Counts a single-page access that is not a hit: the access and its touched units.
  [[gnu::always_inline]] void count_single_page_access(const trace::Event& e) {
    ++access_seq_;
    kernel_.touched_units += units_per_pass(e);
  }
  // gpu_access for a single-page access (single_page_of) that is not a hit.
  void single_page_fault(const trace::Event& e, Allocation& a, AllocSlot slot, std::uint64_t page);
  // A hit's whole eviction-policy work when the policy gave its recency lists
  // (EvictionPolicy::recency_order): its chunk, if listed, becomes the most recent.
  [[gnu::always_inline]] void touch_recency(const Allocation& a, std::uint64_t page) {
    if (!a.managed()) return;
    const auto gpu = static_cast<std::size_t>(kernel_.gpu);
    const std::uint32_t s = a.chunk_slot[gpu][page >> chunk_shift_];
    SlotList& order = *recency_[gpu];
    order.move_to_back_if_listed(s);  // kNoSlot is not listed
  }
  // A single-page hit whose only extra is the eviction policy's access
  // callback (no migration in flight): out of line, so the plain case stays small.
  bool try_callback_hit(const trace::Event& e);
  // Asks the cache for the page record (and its chunk slot) that a GPU access
  // coming a few events later will read: on a page-granular replay over a
  // large footprint every access misses the cache otherwise, one after another.
  void prefetch_metadata(const trace::Event& e) const {
    if (e.kind != trace::EventKind::kGpuAccess || e.name >= slot_of_name_.size()) return;
    const AllocSlot slot = slot_of_name_[e.name];
    if (slot == kNoSlot) return;
    const Allocation& a = allocs_[slot];
    const std::uint64_t page = e.offset / kPageSize;
    if (page >= a.page_count) return;
    prefetch_for_read(a.pages.data() + page);
    const auto gpu = static_cast<std::size_t>(kernel_.gpu);
    if (gpu < a.chunk_slot.size() && !a.chunk_slot[gpu].empty())
      prefetch_for_read(a.chunk_slot[gpu].data() + (page >> chunk_shift_));
  }
  // Sixteen events ahead (the chunk slot's recency position asked for at
  // eight): with eight (and four), the loop waited on that chunk-slot load
  // (a quarter of its perf samples on the Zipf replay), its line not yet in.
  static constexpr std::size_t kLookahead = 16;
  // Live page metadata above which the replay loop prefetches (several times a
  // CPU's L2 cache: below it the records mostly hit anyway).
  static constexpr Bytes kPrefetchAboveMetadata = Bytes{8} << 20;
  bool prefetch_ahead_ = false;
  // The replay loop looks ahead below that size too while faults are dense:
  // the last fault batch came from at least every other access (a replay at
  // random over a footprint past the GPU, 2 MiB of page records and more).
  // There each access's record is cold and the look-ahead's dozen
  // instructions a few percent of a fault's work; where most accesses hit,
  // they would cost more than the hints save (sim/gpu_access.cc).
  bool faults_dense_ = false;
  bool look_ahead() const { return prefetch_ahead_ || faults_dense_; }
  std::uint64_t last_batch_seq_ = 0;  // access_seq_ when the last fault batch was serviced
  void note_fault_density(std::uint32_t faults) {
    faults_dense_ = 2 * std::uint64_t{faults} >= access_seq_ - last_batch_seq_;
    last_batch_seq_ = access_seq_;
  }
  // Units of gpu.access_unit one pass of an access (of a non-zero length)
  // covers: the contiguous case inline, strided touches through traces/page_touch.h.
  std::uint64_t units_per_pass(const trace::Event& e) const {
    if (e.stride == 0) [[likely]]
      return ((e.offset + e.length - 1) >> access_unit_shift_) - (e.offset >> access_unit_shift_) + 1;
    return trace::touched_units_per_pass(e, profile_.gpu_access_unit);
  }
  void gpu_access_general(const trace::Event& e);
  // gpu_access_general for an access longer than a page, with its resident
  // hits counted first without its set-up (resident_range_hits).
  void gpu_range_access(const trace::Event& e);
  // gpu_access_general for a range (within its allocation, of a non-zero
  // length) whose every page hits, with nothing in flight and no hit
  // callbacks: counted with `seq` and `units` standing for access_seq_ and
  // kernel_.touched_units; false, having changed nothing, for any other.
  bool resident_range_hits(const trace::Event& e, PageState* pages, std::uint64_t& seq, std::uint64_t& units);
  void gpu_access_slow(Allocation& a, AllocSlot slot, std::uint64_t page, trace::AccessType type);
  void remote_access(Allocation& a, AllocSlot slot, std::uint64_t page, trace::AccessType type);
  void chunk_accessed(AllocSlot slot, const Allocation& a, std::uint64_t page, AccessType type);

  // fault_service.cc: batches, VA-block servicing, decisions
  void service_fault_batch();
  // A batch of the one faulted page `page` of allocation `slot` (its fault-buffer flags set).
  void service_single_fault(AllocSlot slot, std::uint64_t page);
  // When the running kernel's next batch starts on `gpu`, which it marks as
  // servicing: when its servicer is free, plus faults.wakeup_cost for the
  // kernel's first batch on an idle servicer and the path's coldness:
  // faults.cold_start_cost * (1 - (1 - left) * exp(-idle / cold_start_time)),
  // with `left` what the last batch carried over (faults.cold_start_carry).
  // In line: a replay servicing faults one at a time starts a batch per fault.
  // kCostless: a profile where every fault cost is zero (no wake-up, no
  // coldness), the same start without computing the zero terms.
  template <bool kCostless = false>
  Nanos start_fault_batch(GpuState& gpu) {
    const Nanos free = std::max(kernel_.now, gpu.fault_engine_free);
    if constexpr (kCostless) {
      gpu.serviced_faults = true;
      return free;
    }
    // An idle servicer is woken by the fault interrupt for the kernel's first
    // batch; a busy one takes the batch when it is free.
    const bool wakes = kernel_counters_.fault_batches == 0 && kernel_.now >= gpu.fault_engine_free;
    const Nanos cold = profile_.fault_cold_start_ns != 0 ? cold_start_share(gpu, free) : 0;
    gpu.serviced_faults = true;
    return free + (wakes ? profile_.fault_wakeup_ns : 0) + cold;
  }
  // A batch serviced on `gpu` from `start` until kernel_.now: its servicer is
  // busy until then, and kernels computing beside it note the span.
  void fault_service_ran(GpuState& gpu, Nanos start) {
    gpu.fault_busy_from = start;
    gpu.fault_engine_free = kernel_.now;
    if (gpu.kernels_computing != 0) [[unlikely]] gpu.fault_spans.push_back({start, kernel_.now});
  }
  // The coldness part of start_fault_batch for a batch starting at `free`
  // (it updates gpu.cold_left); fault_service.cc.
  Nanos cold_start_share(GpuState& gpu, Nanos free);
  void mark_ready(AllocSlot slot, std::uint64_t block, Nanos start);
  // After a fault batch (or another migration of the fault service): the
  // transfers its copies slowed end later, and so do the streams waiting for
  // them (sim/shared_link.h).
  void after_fault_copies() {
    if (link_slowdowns_ != 0) slow_streams_beside_faults();  // checked per fault: a replay's single faults come here
  }
  void slow_streams_beside_faults();
  // Pages of a block the current GPU's fault service is about to take from
  // other GPUs: those whose kernels run note them as served (GpuState::served).
  void note_served_pages(AllocSlot slot, std::uint64_t block, const PageMask& taken);
  // Data for `waiting` processors lands in the block at `end` (a migration
  // issued at `start`): their hits on the block wait for it.
  void note_in_flight(BlockState& bs, Nanos start, Nanos end, ProcessorMask waiting) {
    note_block_in_flight(bs, start, end, waiting);
    latest_ready_ = std::max(latest_ready_, end);
  }
  // note_in_flight for the block alone: a caller noting several blocks' data
  // landing at one `end` raises latest_ready_ once.
  static void note_block_in_flight(BlockState& bs, Nanos start, Nanos end, ProcessorMask waiting) {
    if (bs.ready_at <= start) bs.ready_for = 0;  // what was in flight before has landed
    bs.ready_for |= waiting;
    bs.ready_at = std::max(bs.ready_at, end);
  }
  // A hit of the current kernel waits for data in flight to its GPU.
  void wait_for_landing(const BlockState& bs) {
    if (bs.ready_at > kernel_.now && (bs.ready_for & kernel_bit_)) kernel_.now = bs.ready_at;
  }
  void group_faults();
  // Services the batch's only faulted page of a VA block (page i of the
  // block; short_fault_service.cc).
  void service_page(AllocSlot slot, std::uint64_t block, std::uint32_t i);
  // service_page for the batch's runs (fault_runs_) from `r` on while each is
  // one page, in one call; returns the first run of more pages (or the end).
  std::size_t service_page_runs(std::size_t r);
  // Services the batch's faulted pages (`unique` of them) of one VA block.
  // `quiet_tried`: the caller already had service_quiet_pages decline these
  // pages (it changed nothing), so it is not asked again.
  void service_block(AllocSlot slot, std::uint64_t block, const PageMask& faulted, std::uint32_t unique,
                     bool quiet_tried = false);
  std::uint32_t copy_runs(const Allocation& a, std::uint64_t base, const PageMask& migrate,
                          const PageMask* host_copies, const PageMask& faulted) const;
  MigrationDecision driver_default(const PageState& st, Processor requester, trace::AccessType type) const;
  MigrationDecision decide(AllocSlot slot, std::uint64_t page, const PageState& st, Processor requester,
                           trace::AccessType type, const BlockState& bs, Nanos now);
  // `used` (optional) receives the request given to the policy; `added`
  // (optional, empty) the pages it adds to migrate and duplicate.
  void add_policy_prefetch(AllocSlot slot, std::uint64_t block, Processor dest, const PageMask& faulted,
                           PageMask& migrate, PageMask& duplicate, Nanos now, PrefetchRequest* used = nullptr,
                           PageMask* added = nullptr);
  // prefetch_beyond.cc: the prefetch policy's pages of other blocks (PrefetchPolicy::prefetch_beyond).
  void prefetch_beyond(const PrefetchRequest& request, Nanos& now);
  // short_fault_service.cc: the short path of a block service whose faulted
  // pages all migrate from host memory under the driver's default.
  bool short_path_applies() const;  // under these policies and vendor semantics
  // Services the faulted pages of the block (`n` pages in block, ascending,
  // unique) and returns true where the short path gives service_block's
  // result; false, having changed nothing, elsewhere. service_short calls
  // try_service_short, which is inlined there and into service_page.
  bool service_short(AllocSlot slot, std::uint64_t block, const std::uint32_t* pages, std::uint32_t n);
  // kScattered: the block's only faulted page (service_page_runs, service_page),
  // whose costs are one page's (short_costs_). kOneGpu: the kernel's GPU is
  // the only one (index 0, a constant).
  template <bool kScattered, bool kOneGpu = false>
  bool try_service_short(AllocSlot slot, std::uint64_t block, const std::uint32_t* pages, std::uint32_t n);
  Nanos move_host_pages(AllocSlot slot, Allocation& a, std::uint64_t block, const std::uint32_t* pages,
                        std::uint32_t n, std::uint8_t cleared, Processor dest, Nanos ready);
  // host_block_move.cc: a fault service's migrations to a GPU whose pages
  // are all in host memory or nowhere (the prefetcher's pages with the
  // faulted one, on a replay over a large footprint), a mask word at a time.
  // Whether every page of `pages` is within the block and in host memory or
  // nowhere; `with_copy` receives those in host memory (where true).
  bool host_only_pages(const Allocation& a, std::uint64_t block, const PageMask& pages, PageMask& with_copy) const;
  // move_pages(slot, block, pages, dest, false, ready) for such pages (at
  // least one; `with_copy` as host_only_pages gave it), to a GPU.
  Nanos move_host_block(AllocSlot slot, Allocation& a, std::uint64_t block, const PageMask& pages,
                        const PageMask& with_copy, Processor dest, Nanos ready);
  // move_host_block with the masks as words (copied: the pages with a host
  // copy), of which only words [first_word, end_word) are read (some page set
  // there): a quiet block service builds the words it touches only; word_set:
  // bit w where want's word w has pages (read where regions are of 64 pages or
  // more and several words move, which visit those words only). Words:
  // arrays of the block's eight words, or OneMaskWord where regions are of 64
  // pages or more and end_word is first_word + 1 (sim/host_words_move.h).
  template <typename Words>
  Nanos move_host_words(AllocSlot slot, Allocation& a, std::uint64_t block, const Words& want, const Words& copied,
                        std::uint32_t first_word, std::uint32_t end_word, std::uint32_t word_set, Processor dest,
                        Nanos ready);
  // The end shared by move_host_pages and move_host_block, from `t` when the
  // pages' state has moved: chunks held busy are released, the `copied` bytes
  // (their runs' copy time `busy`) go on the GPU's host-to-GPU link as
  // issue_copies does for a CPU-to-GPU batch, and the GPU zero-fills the
  // `zero_filled` pages it populates in parallel. Returns when all have landed.
  [[gnu::always_inline]] Nanos land_host_moves(GpuState& gpu, Nanos t, Bytes copied, Nanos busy,
                                               std::uint64_t zero_filled) {
    if (!busy_chunks_.empty()) clear_busy_chunks();
    Nanos done = t;
    if (copied) {
      done = std::max(t, gpu.h2d.schedule(copy_client_, t, profile_.h2d.latency_ns + busy));
      counters().bytes_h2d += copied;
    }
    if (const Nanos fill = profile_.zero_fill_ns(zero_filled); fill > 0) done = std::max(done, t + fill);
    return done;
  }
  // lone_fault.cc: a single-page fault of the replay loop serviced in one pass
  // (faults one at a time, the short path, the eviction order kept in line,
  // 4 KiB chunks); false, having changed nothing, where the page or the
  // memory needs the general path (single_page_fault). The caller counts the
  // access (access_seq_, the kernel's touched units), which the replay loop
  // keeps in registers.
  bool lone_faults_apply() const;  // under these settings
  bool lone_fault(const trace::Event& e, Allocation& a, AllocSlot slot, std::uint64_t page);
  // Where lone faults apply, one GPU and nothing on their path takes time
  // (the `ideal` profile: a cache simulation): lone_fault<true> leaves out
  // the zero costs' sums and the per-GPU lookups.
  bool lone_faults_costless() const;
  template <bool kCostless>
  bool lone_fault(const trace::Event& e, Allocation& a, AllocSlot slot, std::uint64_t page);
  // The same pass for the batch's runs (fault_runs_) from `r` on while each
  // is one page that it takes (service_page's result), in one call; returns
  // the first run it did not service. Only where lone_pages_apply().
  bool lone_pages_apply() const;  // the short path, the eviction order kept in line, 4 KiB or 2 MiB chunks
  std::size_t service_lone_runs(std::size_t r);
  template <bool kBlockChunks, bool kOneGpu>  // 2 MiB chunks; the GPU is the only one (index 0)
  std::size_t service_lone_runs(std::size_t r);
  // `victim`: the chunk to replace where memory is full (first_chunk_to_replace), else null.
  template <bool kBlockChunks, bool kCostless = false>  // kCostless: as lone_fault<true>
  inline Nanos service_page_in_one_pass(int g, Allocation& a, AllocSlot slot, std::uint64_t page,
                                        std::uint32_t& chunk_slot, PhysicalChunk* victim, Nanos now);
  // quiet_block_service.cc: service_block for `n` faulted pages of a block
  // (ascending, unique, 1..kMaxQuietFaults) where the prefetch and thrashing
  // policies give their common answers without masks; false, having changed
  // nothing, where service_block's general path is needed (service_block
  // tries it first).
  bool quiet_pages_apply() const;  // under these policies and vendor semantics
  bool service_quiet_pages(AllocSlot slot, std::uint64_t block, const std::uint32_t* pages, std::uint32_t n);
  // What service_quiet_pages found before changing anything, for its services
  // that take more than one mask word, several GPUs or regions under 64 pages
  // (service_quiet_words, out of line; the ranges clamped to the block).
  struct QuietService {
    AllocSlot slot;
    std::uint64_t block;
    const std::uint32_t* pages;
    std::uint32_t n;
    const PageRanges& ranges;
    std::uint32_t first_word, end_word;  // the words the faulted pages and ranges touch
    Nanos now;                           // the service's clock before its moves
    std::uint32_t migrations;            // the block's fault migrations after the service
    ProcessorMask copies_of_faulted;
    std::uint32_t faulted_host_pages;
  };
  [[gnu::noinline]] bool service_quiet_words(const QuietService& s);
  // The quiet service's first changes (flags, counters, the block's record,
  // the clock set to `now`), and its last (the thrashing policy told of the
  // faulted pages' and the policy's migrations; the masks, asked for only
  // where it needs them, are lambdas).
  [[gnu::always_inline]] Nanos& begin_quiet_service(BlockState& bs, PageState* block_pages, const std::uint32_t* pages,
                                                    std::uint32_t n, std::uint32_t migrations, Processor requester,
                                                    Nanos now);
  template <typename FaultedMask, typename PolicyMask>
  [[gnu::always_inline]] void tell_quiet_migrations(AllocSlot slot, std::uint64_t block, const PageState* block_pages,
                                                    ProcessorMask copies_of_faulted, Processor requester,
                                                    bool any_policy, std::uint32_t first_policy_page, Nanos& t,
                                                    const FaultedMask& faulted_mask, const PolicyMask& policy_mask);
  // thrashing_response.cc: the thrashing policy's hint before a block's
  // faulted pages are placed, and its detection after pages migrated; both
  // apply the policy's response to the block.
  void thrashing_hint(AllocSlot slot, std::uint64_t block, const PageMask& faulted, Processor requester, Nanos now);
  void notify_thrashing(AllocSlot slot, std::uint64_t block, const PageMask& pages, Processor from,
                        Processor to, MigrationCause cause, Processor requester, Nanos& now);
  // Read duplication of `pages` to `to` takes their sole holder's write
  // permission (the CPU's where it may still write, a GPU's write and atomic
  // permissions where it holds the only copy): the policy's revocation
  // events. Called before the duplicates are placed.
  void notify_revocations(AllocSlot slot, std::uint64_t block, const PageMask& pages, Processor to, Nanos now);
  void apply_thrashing_response(AllocSlot slot, std::uint64_t block, const ThrashingResponse& r,
                                Processor requester, Nanos now);
  // Where a pinned page stays: where it is resident, or, in the fault service
  // whose hint pins it, the hint's pin location.
  Processor pin_location(AllocSlot slot, std::uint64_t page, const PageState& st) const {
    if (pinning_.active && pinning_.slot == slot && pinning_.block == page / kPagesPerBlock &&
        pinning_.pages.test(page % kPagesPerBlock))
      return pinning_.to;
    return first_processor(st.copies);
  }
  bool accessible(Processor requester, Processor location) const;

  // migration.cc: moving pages, chunks, eviction
  // Makes `pages` of the block resident at `dest` (sole copy unless `duplicate`),
  // populating unpopulated pages there; returns when the copies complete.
  Nanos move_pages(AllocSlot slot, std::uint64_t block, const PageMask& pages, Processor dest, bool duplicate,
                   Nanos ready, Bytes* transferred = nullptr);
  void add_copy(std::vector<CopyBatch>& batches, Processor from, Processor to, Bytes run_bytes);
  // The copy a page moving to `dest` is read from, as the NVIDIA driver picks
  // it (the closest resident copy): for a GPU, a peer GPU's copy when peers
  // reach each other directly, else the CPU's; for the CPU, the lowest GPU's.
  // Inline for the common case, a page only in host memory (a call per page
  // moved showed in the fault path's profile).
  Processor copy_source(ProcessorMask copies, Processor dest) const {
    return copies == kCpuBit ? Processor::cpu() : copy_source_with_gpus(copies, dest);
  }
  Processor copy_source_with_gpus(ProcessorMask copies, Processor dest) const;
  Nanos issue_copies(std::vector<CopyBatch>& batches, Nanos ready, Bytes* transferred);
  void drop_copy(Allocation& a, std::uint64_t page, Processor p);
  // Processors mapping the page after its copies changed: the holders, the
  // allocation's permanent mappings, and AccessedBy processors that can reach it.
  // Always in line: out of line its call cost as much as its body on a fault's path.
  [[gnu::always_inline]] ProcessorMask mappings_for(const Allocation& a, const PageState& st) const {
    if (st.copies == 0) return 0;
    if (st.accessed_by == 0) return static_cast<ProcessorMask>(st.copies | a.always_mapped);
    return mappings_for_advised(a, st);
  }
  ProcessorMask mappings_for_advised(const Allocation& a, const PageState& st) const;
  // The GPU chunk backing `page`, allocated (evicting as needed) if there is
  // none; `hold`: marked busy until clear_busy_chunks (an operation that fills
  // several chunks must not evict one it filled; a single page need not).
  std::uint32_t chunk_for(AllocSlot slot, Allocation& a, int gpu, std::uint64_t page, Nanos& now, bool hold = true);
  // chunk_for's errors, out of line: their formatting's frame (and stack
  // protector) stays out of the eviction every fault of a full GPU makes.
  [[noreturn, gnu::cold, gnu::noinline]] void throw_nothing_evictable(int gpu) const;
  [[noreturn, gnu::cold, gnu::noinline]] void throw_no_victim(int gpu, std::uint32_t victim) const;
  // chunk_for on a full GPU evicts without it: the victim's slot is taken again
  // at once and the policy hears both in one call (on_chunk_replaced).
  void evict_chunk(int gpu, std::uint32_t victim, Nanos& now);
  // sim/chunk_write_back.h: an evicted chunk's resident pages leave the GPU
  // (sole copies written back); the chunk stays allocated, with none resident.
  // kScattered: evicted for a fault that was its block's only one, where the
  // chunk most often holds the one page it was taken for (PhysicalChunk::taken_for).
  template <bool kScattered = false>
  inline void write_back_chunk(int gpu, PhysicalChunk& c, Nanos& now);
  // Every GPU copy of `a`'s pages is the page's only copy, and no page has
  // AccessedBy advice: an evicted page goes back to the CPU alone, mapped as
  // mappings_for maps a copy there. Duplicates come only from ReadMostly
  // advice where the vendor duplicates, or from a migration policy's decide().
  [[gnu::always_inline]] bool evicts_sole_copies(const Allocation& a) const {
    return !decide_callbacks_ && !(a.read_mostly_advised && vendor_.read_mostly_duplicates) && !a.accessed_by_advised;
  }
  // The chunk's allocation no longer maps its region to it (chunk_slot).
  void forget_chunk_slot(int gpu, const PhysicalChunk& c);
  // The eviction policy's chunk hooks, kept in line in its eviction order where
  // it gave one (EvictionPolicy::eviction_order), else its virtual calls.
  std::uint32_t choose_victim(const IncomingChunk& incoming, Nanos now) {
    const SlotList* const order = eviction_order_[incoming.gpu];
    if (!order || policy_chooses(incoming.gpu)) return eviction_->choose_victim_for(incoming, now);
    const GpuMemory& mem = gpus_[static_cast<std::size_t>(incoming.gpu)].memory;
    for (std::uint32_t s = order->front(); s != SlotList::kNone; s = order->next(s))
      if (mem.evictable(s)) return s;
    return kNoVictim;
  }
  void chunk_allocated(const ChunkInfo& c, Nanos now) {
    SlotList* const order = eviction_order_[c.gpu];
    if (!order) return eviction_->on_chunk_allocated(c, now);
    leave_preferred_victims(c);
    if (order->contains(c.slot)) order->erase(c.slot);
    order->push_back(c.slot);
  }
  void chunk_released(const ChunkInfo& c, bool evicted, Nanos now) {
    SlotList* const order = eviction_order_[c.gpu];
    if (order) {
      leave_preferred_victims(c);
      if (order->contains(c.slot)) order->erase(c.slot);
    } else if (evicted) {
      eviction_->on_chunk_evicted(c, now);
    } else {
      eviction_->on_chunk_freed(c);
    }
  }
  // A victim's slot released and taken again at once for `incoming` (chunk_for on a full GPU).
  void chunk_replaced(const ChunkInfo& evicted, const ChunkInfo& incoming, Nanos now) {
    if (!eviction_order_[incoming.gpu]) return eviction_->on_chunk_replaced(evicted, incoming, now);
    chunk_released(evicted, /*evicted=*/true, now);
    chunk_allocated(incoming, now);
  }
  // chunk_for's busy mark: the chunk is not evicted until clear_busy_chunks.
  void hold_chunk(int gpu, PhysicalChunk& c) {
    c.busy = true;
    busy_chunks_.emplace_back(gpu, c.slot);
  }
  std::size_t upcoming_victims(int gpu, std::uint32_t (&out)[2]) const {
    const SlotList* const order = eviction_order_[gpu];
    return order && !policy_chooses(gpu) ? order->first_two(out) : eviction_->upcoming_victims(gpu, out);
  }
  // Where the engine keeps the order: the policy's preferred victims
  // (EvictionPolicy::preferred_victims) list a chunk, so it chooses.
  bool policy_chooses(int gpu) const {
    const SlotList* const preferred = preferred_victims_[gpu];
    return preferred && !preferred->empty();
  }
  // An allocated or released chunk is no longer a preferred victim.
  void leave_preferred_victims(const ChunkInfo& c) {
    SlotList* const preferred = preferred_victims_[c.gpu];
    if (preferred && preferred->contains(c.slot)) preferred->erase(c.slot);
  }
  // A GPU that evicted once will evict again at its next fault: the next victim's
  // page records and chunk-slot entry, and the record of the one after it, are
  // asked of the cache now (a two-step pipeline: each eviction reads the record
  // the previous one prefetched). Without it each eviction waits on three cache
  // misses in a row on a replay whose footprint exceeds the cache.
  [[gnu::always_inline]] void prefetch_upcoming_victims(int gpu) {
    std::uint32_t next[2];
    const std::size_t n = upcoming_victims(gpu, next);
    const GpuMemory& mem = gpus_[static_cast<std::size_t>(gpu)].memory;
    if (n >= 2 && next[1] < mem.slots_created()) prefetch_for_read(&mem.chunk(next[1]));
    if (n == 0 || next[0] >= mem.slots_created()) return;
    const PhysicalChunk& c = mem.chunk(next[0]);
    if (!c.allocated || c.alloc >= allocs_.size()) return;
    const Allocation& a = allocs_[c.alloc];
    prefetch_element(a.pages.data(), c.first_page);  // unchecked: a hint only
    if (static_cast<std::size_t>(gpu) >= a.chunk_slot.size()) return;
    prefetch_element(a.chunk_slot[static_cast<std::size_t>(gpu)].data(), c.first_page >> chunk_shift_);
  }
  // sim/first_chunk_replacement.h: where a chunk is needed on a full GPU
  // whose eviction order the engine keeps, the order's first chunk is evicted
  // and taken again for `page` (what chunk_for's eviction, release, take and
  // list updates give); returns its slot. Only where replaces_first_chunk(gpu)
  // holds.
  [[gnu::always_inline]] inline bool replaces_first_chunk(int gpu) const;
  template <bool kScattered = false>  // as write_back_chunk's
  inline std::uint32_t replace_first_chunk(int gpu, AllocSlot slot, std::uint64_t page, Nanos& now);
  inline void replace_block_chunk(int gpu, PhysicalChunk& c, AllocSlot slot, std::uint64_t page, Nanos& now,
                                  Counters& cnt);
  inline std::uint32_t replace_first_page_chunk(int gpu, AllocSlot slot, std::uint64_t page, Nanos& now);
  inline PhysicalChunk* first_chunk_to_replace(int gpu);
  inline void prefetch_listed_victims(std::size_t gpu, const SlotList& order);
  inline void prefetch_victim_records(int gpu, std::uint32_t victim);
  // Always in line (declared so: on the templates' definitions alone GCC left replace_page_chunk<false> out of line).
  template <bool kCostless = false>  // as lone_fault<true>
  [[gnu::always_inline]] inline void replace_page_chunk(int gpu, PhysicalChunk& c, AllocSlot slot, std::uint64_t page,
                                                        Nanos& now, Counters& cnt);
  template <bool kCostless = false>
  [[gnu::always_inline]] inline void evict_only_page(int gpu, Allocation& va, std::uint64_t vp, Nanos& now,
                                                     Counters& cnt);
  // write_back_chunk<true>'s result, out of line: replace_block_chunk's chunks of
  // several pages (sim/scattered_chunk_write_back.cc).
  [[gnu::noinline]] void write_back_scattered_chunk(int gpu, PhysicalChunk& c, Nanos& now);
  template <bool kScattered = false>
  inline std::uint32_t replace_first_chunk(int gpu, AllocSlot slot, std::uint64_t page, Nanos& now, bool hold);
  // `evicted`: the eviction policy chose it (on_chunk_evicted); otherwise its allocation was freed.
  void release_chunk(int gpu, std::uint32_t slot, bool evicted = false, Nanos now = 0);
  void clear_busy_chunks();

  // Whose copies the engine issues now: the fault service's, unless a
  // transfer's scope (a prefetch, an explicit copy, a CPU access) says otherwise.
  CopyClient copy_client_;
  std::vector<Nanos> slowed_ready_;  // scratch of slow_streams_beside_faults
  std::uint32_t link_slowdowns_ = 0;  // slowdowns the links recorded since slow_streams_beside_faults
  class TransferScope {
   public:
    TransferScope(Engine& e, std::uint32_t stream) : e_(e), saved_(e.copy_client_) {
      e.copy_client_ = CopyClient{false, stream};
    }
    ~TransferScope() { e_.copy_client_ = saved_; }
    TransferScope(const TransferScope&) = delete;
    TransferScope& operator=(const TransferScope&) = delete;

   private:
    Engine& e_;
    CopyClient saved_;
  };

  // hints.cc: prefetch and advice
  void on_prefetch(const trace::Event& e);
  // A prefetch's extra driver time after a pause (idle / cold call) and on
  // the range's first mapping on a GPU (prefetch.first_on_gpu_cost), and on
  // the replay's first prefetches to the CPU (first_on_cpu_cost, next_on_cpu_cost).
  Nanos prefetch_wake_up(Nanos call) const;
  bool prefetch_path_cold(Nanos call) const;
  Nanos first_prefetch_on(Allocation& a, Processor dest);
  Nanos to_cpu_block_ns(const Allocation& a, std::uint64_t block) const;
  // hints.cc: a prefetch call as the host makes it (prefetch.queued_call_cost):
  // held on an idle stream, queued on a busy one.
  void prefetch_call(const trace::Event& e);
  // No GPU has serviced a fault and no prefetch has gone to one (the process's
  // first managed-memory work on a GPU: such a prefetch call holds to its end).
  bool first_managed_work_on_a_gpu() const;
  bool stream_looks_idle(trace::StreamId s);
  // A kernel launch or a sync on the stream: a later call no longer follows
  // a held one (the stream's own time tells whether it is busy).
  void end_held_prefetch(trace::StreamId s);
  void on_advise(const trace::Event& e);
  void prefetch_in_place(Allocation& a, AllocSlot slot, const trace::Event& e, Processor dest, Nanos& stream_done);

  // cpu_access.cc
  void cpu_access(const trace::Event& e);
  void cpu_fault(AllocSlot slot, Allocation& a, std::uint64_t page, trace::AccessType type);
  CpuFaultedPages cpu_faulted_;  // pages the CPU's latest faults migrated in (cache-warm)

  // A managed memset ran since the last kernel launch: the next launch pays
  // profile_.launch_after_memset_ns of host time (launch_not_before).
  bool launch_after_memset_ = false;
  // (GPU, stream) pairs created so far under options_.streams_created_at_first_use.
  std::vector<std::pair<int, trace::StreamId>> created_streams_;
  // The earliest start of a kernel issued now on `gpu`: the host's launch cost
  // after a managed memset, else its launch gap (host.launch_gap, or
  // host.idle_launch_gap on a GPU idle for gpu.idle_start_after), and for
  // a kernel on `stream` beside the one that found the GPU idle on another,
  // host.other_stream_launch_gap after that one; 0 where the profile has no
  // launch gaps (no bound beyond host and stream time).
  Nanos launch_not_before(int gpu, trace::StreamId stream);
  // Where the host is once a sync that waits for work ending at `awaited`
  // returns (host.sync_return_cost, host.sync_call_cost).
  Nanos sync_returns(Nanos awaited) const {
    return awaited > host_now_ ? awaited + profile_.sync_return_ns : host_now_ + profile_.sync_call_ns;
  }
  // copies.cc: explicit copies, memsets, peer access per GPU pair (format version 2)
  struct CopySide {
    Processor location;  // where the copy reads or writes this side: the CPU (host memory) or a GPU
  };
  void on_copy(const trace::Event& e);
  void on_memset(const trace::Event& e);
  // A memset of managed memory that GPU faults migrate: the runtime's fill kernel, faulting.
  void memset_by_fill_kernel(const trace::Event& e, int gpu);
  void on_peer_enable(const trace::Event& e);
  void read_modify_write(const trace::Event& e);
  // Where a copy or memset by `gpu` finds the range of allocation `slot`; a managed
  // range is first made resident on `gpu` (on `stream`), for writing if `write`.
  CopySide copy_side(AllocSlot slot, const trace::Event& range, int gpu, trace::StreamId stream, bool write);
  // `cached`: of a pageable upload's bytes, what the host's cache holds.
  Nanos copy_time(Processor from, Processor to, Bytes bytes, bool pinned, PageableBufferCache::Hit cached = {}) const;
  // Whether GPUs a and b reach each other's memory (always true for a == b).
  bool peers_enabled(int a, int b) const;
  // Whether a migration between two GPUs goes through host memory: on AMD, and
  // in a version-2 trace between GPUs without peer access.
  bool staged_through_host(Processor from, Processor to) const {
    return vendor_.peer_migration_through_host ||
           (peers_from_trace_ && !peers_enabled(from.gpu_index(), to.gpu_index()));
  }
  // stream_scheduler.cc: streams on one timeline (sim/stream_actor.h)
  static bool is_stream_work(trace::EventKind k);
  void issue_stream_work(const trace::Event& e);
  void buffer_access(const trace::Event& e);
  void close_kernel_issue();
  StreamActor& actor_of(trace::StreamId s);
  // Steps the streams in time order until all their work is done (`drain`)
  // or until the earliest one needs trace input not read yet.
  void run_streams(bool drain);
  void step(StreamActor& a, Nanos limit, std::uint64_t limit_order, bool limited);
  bool blocked(const StreamActor& a) const;
  Nanos actor_time(const StreamActor& a) const;
  // A running kernel's time per page access, to order the streams (its end is
  // charged exactly when it ends): a whole page at gpu.access_gbps plus gpu.access_cost.
  double access_estimate_ns() const {
    return (profile_.gpu_access_gbps > 0 ? static_cast<double>(kPageSize) / profile_.gpu_access_gbps : 0) +
           profile_.gpu_access_ns;
  }
  void start_kernel(StreamActor& a);
  void finish_kernel(StreamActor& a);
  // compute_beside_faults.cc: a kernel's compute while its GPU services
  // another kernel's faults (gpu.compute_beside_faults).
  // Whether the open kernel, its accesses done, waits before it ends: its
  // compute could still be slowed by faults of work not replayed yet.
  bool compute_may_slow(const StreamActor& a) const;
  void begin_computing(StreamActor& a, Nanos end);
  // The end of `compute` of work begun at `from` on `gpu`, with the fault
  // service's spans known now.
  Nanos compute_end_beside_faults(const GpuState& gpu, Nanos from, Nanos compute) const;
  void end_computing(GpuState& gpu);
  // resident_beside_faults.cc: a kernel that has not faulted beside one that
  // has (gpu.resident_kernels_wait_for_faults).
  bool resident_access_waits(StreamActor& a, const trace::Event& e, RangeCursor& cursor) const;
  bool end_waits_for_faults(StreamActor& a, Nanos& end) const;
  bool range_resident(const Allocation& a, const trace::Event& e) const;
  void note_faulting(StreamActor& a);
  void faulting_accesses_done(StreamActor& a);
  void swap_in(StreamActor& a);
  void swap_out();
  void batches_done(StreamActor& a);
  void load_fault_batch(int gpu);
  bool queued_here(std::uint64_t key) const;
  void trim_window();
  void force_window();
  void run_prefetch(StreamActor& a, const trace::Event& e);
  // The --events row of the fault batch just serviced (counters since `before`).
  void series_batch_row(const Counters& before, Nanos start);

  // invariant_checker.cc
  void check_allocation(AllocSlot slot, const Allocation& a) const;

  EngineOptions options_;
  const HardwareProfile& profile_;
  const VendorSemantics& vendor_;
  EnginePolicies policies_;
  PrefetchPolicy* prefetch_ = nullptr;
  EvictionPolicy* eviction_ = nullptr;
  MigrationPolicy* migration_ = nullptr;
  ThrashingPolicy* thrashing_ = nullptr;
  bool eviction_access_callbacks_ = false;  // hits have eviction-policy work (on_access or recency)
  bool recency_touch_ = false;              // ... and it is a recency list move (recency_ set)
  SlotList* recency_[kMaxGpus] = {};        // by GPU: EvictionPolicy::recency_order
  SlotList* eviction_order_[kMaxGpus] = {};  // by GPU: EvictionPolicy::eviction_order (every GPU's or none)
  SlotList* preferred_victims_[kMaxGpus] = {};  // by GPU, where eviction_order_ is: EvictionPolicy::preferred_victims
  std::vector<const GpuMemory*> memory_of_gpu_;  // EvictionContext::memory
  bool remote_access_callbacks_ = false;
  bool decide_callbacks_ = false;  // migration policy that may override the driver's default
  bool short_path_ = false;  // short_path_applies()
  bool lone_faults_ = false;  // lone_faults_apply()
  bool lone_faults_costless_ = false;  // lone_faults_ && lone_faults_costless()
  bool lone_pages_ = false;   // lone_pages_apply()
  bool quiet_pages_ = false;  // quiet_pages_apply()
  bool quiet_repeats_ignored_ = false;  // ThrashingPolicy::ignores_quiet_repeats
  std::uint32_t prefetch_beyond_budget_ = 0;  // blocks per serviced block (0: not asked)
  PrefetchRequest beyond_request_;            // scratch of service_block when the budget is non-zero
  std::vector<BlockPages> beyond_blocks_;     // scratch of prefetch_beyond
  std::unique_ptr<FutureOracle> oracle_;
  std::unique_ptr<EventSeries> series_;

  Bytes gpu_memory_ = 0;
  Bytes live_metadata_ = 0;  // page metadata of the live allocations (limited in total)
  Bytes chunk_bytes_ = kBlockSize;
  std::uint32_t pages_per_chunk_ = kPagesPerBlock;
  std::uint32_t chunk_shift_ = 9;  // log2(pages_per_chunk_)
  std::uint32_t batch_limit_ = 256;
  std::vector<GpuState> gpus_;
  // Copy time of a run of k pages (index k, 1..512) per link, precomputed:
  // the curve is evaluated once, not per copy.
  std::vector<Nanos> run_ns_h2d_, run_ns_d2h_, run_ns_peer_;
  // The short fault paths' costs (short_fault_service.cc, lone_fault.cc,
  // first_chunk_replacement.h), taken from the profile once per run: a
  // page-granular replay pays them at every fault.
  struct ShortServiceCosts {
    Nanos block[2] = {};     // a block service, by whether a page has a host copy (0: populated only)
    Nanos one_page[2] = {};  // the same with its one page's cost
    Nanos copied_extra = 0;  // then, for one page with a host copy: its migrated-page and run costs
    Nanos page_h2d = 0, page_d2h = 0;  // a one-page copy on each link: latency and its run
    Nanos page_zero_fill = 0;          // a populated page's zero-fill
  } short_costs_;
  PageMask elsewhere_[kMaxGpus + 1];  // service_block scratch, by destination code

  std::vector<Allocation> allocs_;
  std::vector<AllocSlot> slot_of_name_;  // by NameId; kNoSlot when not allocated
  std::vector<Nanos> stream_ready_;
  std::vector<std::int16_t> stream_gpu_;  // GPU whose work a stream last carried (-1: none yet)
  // By stream: its last work is a prefetch that held the host, whose completion
  // the host has not seen yet (a sync, or a kernel issued after it, clears it).
  std::vector<std::uint8_t> stream_after_held_prefetch_;
  // By stream: when its last prefetch's call returns if it held the host
  // (prefetch.host_va_block_cost; the migration's end without it).
  std::vector<Nanos> prefetch_call_return_;
  std::vector<Nanos> event_time_;        // by NameId; recorded completion times
  // By GPU: the GPUs it has peer access to (bit g). Version-1 traces: every pair
  // when the profile's gpu.peer_access is set; version 2: pairs a trace enables.
  std::uint16_t peer_pairs_[kMaxGpus] = {};
  bool peers_from_trace_ = false;
  const trace::NameTable* names_ = nullptr;

  Nanos host_now_ = 0;
  PageableBufferCache pageable_cache_;  // the host cache's share of the pageable copies' buffer
  std::optional<Nanos> last_prefetch_done_;  // the driver's prefetch path, for prefetch.cold_call_cost
  bool prefetched_to_gpu_ = false;  // for first_managed_work_on_a_gpu
  // Prefetches to the CPU so far (counted to 2): the replay's first two pay
  // prefetch.first_on_cpu_cost / next_on_cpu_cost.
  std::uint8_t prefetches_to_cpu_ = 0;
  Nanos latest_ready_ = 0;  // max BlockState::ready_at: hits need no check once passed
  std::uint64_t access_seq_ = 0;
  std::uint64_t kernel_first_seq_ = 0;  // access_seq_ when the open kernel began
  // Hits need no extra work: no migration in flight past the kernel's time and
  // no access callbacks. Refreshed whenever either side may change.
  bool plain_hits_ = true;
  bool recency_hits_ = false;  // the same, but for one recency list move (recency_touch_)
  unsigned access_unit_shift_ = 12;               // log2(profile gpu.access_unit)
  const trace::Event* access_event_ = nullptr;    // the GPU access being replayed (for remote touches)
  // The pin a thrashing hint gave the block being serviced (pin_location()).
  struct Pinning {
    bool active = false;
    AllocSlot slot = 0;
    std::uint64_t block = 0;
    PageMask pages;
    Processor to;
  } pinning_;
  RangeCursor* range_cursor_ = nullptr;           // set: the range access replays in parts (stream_scheduler.cc)
  [[gnu::always_inline]] void update_plain_hits() {  // in line: GCC called it from lone_fault.cc
    const bool settled = latest_ready_ <= kernel_.now;
    plain_hits_ = settled && !eviction_access_callbacks_;
    recency_hits_ = settled && recency_touch_;
  }

  KernelState kernel_;
  ProcessorMask kernel_bit_ = 0;
  Counters kernel_counters_;
  std::vector<FaultEntry> fault_buffer_;  // unique pages, in arrival order
  std::vector<FaultEntry> fault_sort_scratch_;  // group_faults' radix sort
  std::vector<FaultRun> fault_runs_;      // the batch's runs, one per VA block in block order (group_faults)
  std::uint32_t fault_entries_ = 0;       // entries including duplicates
  std::vector<CopyBatch> copy_batches_;   // scratch of move_pages
  std::vector<std::pair<int, std::uint32_t>> busy_chunks_;  // chunks filled by the current operation

  Scope phase_;
  Nanos last_phase_end_ = 0;  // when the previous phase's work was done
  Result result_;

  // Streams on one timeline (stream_scheduler.cc).
  bool timeline_ = true;
  std::deque<StreamActor> actors_;              // stable addresses
  std::vector<std::uint32_t> actor_index_;       // by stream id; kNoSlot: none yet
  std::vector<trace::Event> window_;             // buffered GPU accesses of queued kernels
  std::uint64_t window_base_ = 0;                // window index of window_[0]
  StreamActor* reading_ = nullptr;               // the kernel whose accesses are being read
  StreamActor* current_ = nullptr;               // the kernel swapped into kernel_
  bool running_ahead_ = false;                   // reading_ runs as it is read (alone for long)
  std::uint64_t issue_order_ = 0;
  std::size_t queued_work_ = 0;                  // items queued over all streams
  std::uint32_t running_kernels_ = 0;            // started, not finished
  std::size_t kernel_result_slot_ = SIZE_MAX;    // Result::kernels index of the kernel ending
  std::vector<std::uint64_t> record_issued_, record_done_;  // by event NameId: issue order
  struct ParkedFaults {
    std::vector<FaultEntry> buffer;
    std::uint32_t entries = 0;
  };
  int fault_gpu_ = 0;                            // GPU whose open batch is in fault_buffer_
  std::vector<ParkedFaults> parked_faults_;      // by GPU: the others' open batches
  std::uint32_t parked_fault_entries_ = 0;
  std::uint32_t swapped_in_entries_ = 0;
  std::uint64_t swapped_in_batches_ = 0;
};

}  // namespace umsim::sim
