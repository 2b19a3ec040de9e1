// Streams on one timeline: the engine's discrete-event core (docs/model.md,
// "Streams on one timeline").
//
// Kernels, prefetches and event records / waits queue on their streams as the
// trace issues them; a kernel's GPU accesses wait in a window until it runs.
// A host statement (CPU access, sync, alloc, free, advise, phase) first runs
// every stream to completion, so it sees their work done, as before. Between
// two host statements the streams advance in simulated time: the scheduler
// steps the stream whose next work is earliest, issue order breaking ties. A
// running kernel's time is its stall clock plus its accesses so far at the
// profile's access rate. Kernels of one GPU share its open fault batch: when
// one of them services it, the others with entries in it wait for it too;
// each GPU batches and services its own faults.
#include <algorithm>
#include <limits>

#include <fmt/format.h>

#include "sim/engine.h"
#include "sim/event_series.h"

namespace umsim::sim {

using trace::Event;
using trace::EventKind;

namespace {
// A kernel alone on the timeline for this many buffered accesses runs as it
// is read: a later launch rarely overlaps a kernel that long, and the replay
// of long single-stream kernels keeps the direct hot path.
constexpr std::size_t kAloneEvents = std::size_t{1} << 16;
// Buffered accesses kept at most (48 bytes each); beyond, the stream holding
// the oldest ones runs ahead of the others.
constexpr std::size_t kWindowEvents = std::size_t{1} << 21;
constexpr Nanos kNever = std::numeric_limits<Nanos>::max();
constexpr std::uint64_t kEndingTie = std::uint64_t{1} << 63;  // tie-break rank above every issue order

Counters minus(const Counters& after, const Counters& before) {
  Counters d;
  for (const auto& f : counter_fields()) d.*f.member = after.*f.member - before.*f.member;
  return d;
}
}  // namespace

bool Engine::is_stream_work(EventKind k) {
  return k == EventKind::kKernelBegin || k == EventKind::kKernelEnd || k == EventKind::kPrefetch ||
         k == EventKind::kEventRecord || k == EventKind::kEventWait;
}

StreamActor& Engine::actor_of(trace::StreamId s) {
  stream_ready(s);  // checks the id, sizes the per-stream state
  if (actor_index_.size() <= s) actor_index_.resize(s + 1, kNoSlot);
  if (actor_index_[s] == kNoSlot) {
    actor_index_[s] = static_cast<std::uint32_t>(actors_.size());
    actors_.emplace_back().stream = s;
  }
  return actors_[actor_index_[s]];
}

void Engine::issue_stream_work(const Event& e) {
  if (e.kind == EventKind::kKernelEnd) return close_kernel_issue();
  StreamWork w;
  w.order = ++issue_order_;
  w.event = e;
  w.issued_at = host_now_;
  switch (e.kind) {
    case EventKind::kKernelBegin:
      w.kind = StreamWorkKind::kKernel;
      w.not_before = launch_not_before(checked_gpu(e.processor, "kernel"), e.stream);
      w.first = w.end = window_base_ + window_.size();
      w.result_index = result_.kernels.size();
      result_.kernels.emplace_back();  // filled when it ends: results stay in launch order
      break;
    case EventKind::kPrefetch: {
      // Checked at issue, where the trace position is known.
      const Allocation& a = checked_alloc(e, "prefetch");
      check_range(a, e);
      if (e.processor.is_none()) throw SimulationError("prefetch without a destination");
      if (e.processor.is_gpu()) checked_gpu(e.processor, "prefetch");
      w.kind = StreamWorkKind::kPrefetch;
      break;
    }
    case EventKind::kEventRecord:
      w.kind = StreamWorkKind::kRecord;
      if (record_issued_.size() <= e.name) {
        record_issued_.resize(e.name + 1, 0);
        record_done_.resize(e.name + 1, 0);
      }
      record_issued_[e.name] = w.order;
      break;
    default:  // kEventWait: waits for the latest record issued before it
      w.kind = StreamWorkKind::kWait;
      if (e.name < record_issued_.size() && record_done_[e.name] < record_issued_[e.name])
        w.record = record_issued_[e.name];
      break;
  }
  StreamActor& a = actor_of(e.stream);
  a.queue.push_back(w);
  ++queued_work_;
  if (w.kind == StreamWorkKind::kKernel) reading_ = &a;
}

void Engine::buffer_access(const Event& e) {
  if (!reading_) throw SimulationError("GPU access outside a kernel");
  // Checked now, while the trace position is known.
  const AllocSlot slot = slot_of(e.name);
  if (slot == kNoSlot) [[unlikely]]
    throw SimulationError(fmt::format("GPU access to '{}', which is not allocated", names_->name(e.name)));
  // Zero length too: refused here, at the access's own line (check_range throws).
  if (const Allocation& a = allocs_[slot]; e.offset > a.size || e.length > a.size - e.offset || e.length == 0)
    [[unlikely]] check_range(a, e);
  window_.push_back(e);
  ++reading_->queue.back().end;
  if (window_.size() < kAloneEvents) return;
  if (queued_work_ == reading_->queue.size()) {
    // Alone on the timeline: its stream catches up and the kernel runs as it is read.
    run_streams(false);
    trim_window();
    if (current_ == reading_ && reading_->queue.size() == 1 && reading_->running) {
      running_ahead_ = true;
      return;
    }
    swap_out();
  } else if (window_.size() >= kWindowEvents) {
    force_window();
    swap_out();
  }
}

void Engine::close_kernel_issue() {
  if (!reading_) throw SimulationError("kernel_end without an open kernel");
  StreamActor& a = *reading_;
  reading_ = nullptr;
  a.queue.back().closed = true;
  if (running_ahead_) {
    running_ahead_ = false;
    finish_kernel(a);
  }
}

bool Engine::blocked(const StreamActor& a) const {
  const StreamWork& w = a.queue.front();
  if (w.kind == StreamWorkKind::kKernel) return w.first == w.end && !w.closed;  // needs trace input
  if (w.kind == StreamWorkKind::kWait) return w.record && record_done_[w.event.name] < w.record;
  return false;
}

Nanos Engine::actor_time(const StreamActor& a) const {
  const StreamWork& w = a.queue.front();
  if (a.computing) return a.ends_at;
  if (a.running) {
    const KernelState& k = current_ == &a ? kernel_ : a.kernel;
    const std::uint64_t accesses = current_ == &a ? access_seq_ - kernel_first_seq_ : a.accesses;
    const double ns = access_estimate_ns();
    return k.now + static_cast<Nanos>(static_cast<double>(accesses) * ns);
  }
  Nanos t = std::max({w.issued_at, stream_ready_[a.stream], w.not_before});
  if (w.kind == StreamWorkKind::kWait && w.event.name < event_time_.size()) t = std::max(t, event_time_[w.event.name]);
  return t;
}

void Engine::run_streams(bool drain) {
  while (queued_work_ > 0) {
    StreamActor* best = nullptr;
    Nanos best_t = kNever, next_t = kNever;
    std::uint64_t best_order = 0, next_order = 0;
    bool best_blocked = false;
    for (StreamActor& a : actors_) {
      if (a.queue.empty() || a.held) continue;  // held: its accesses or its end wait for faulting kernels
      const bool b = blocked(a);
      // A wait is not ready to be timed; a kernel still being read is: the
      // others may not pass it.
      if (b && a.queue.front().kind == StreamWorkKind::kWait) continue;
      const Nanos t = actor_time(a);
      // Ties: a kernel with only its end left (which flushes its GPU's fault
      // batch) comes after the other streams' work at that time, so that the
      // accesses of kernels running together share the batch; then issue order.
      const StreamWork& w = a.queue.front();
      const bool ending = a.running && w.first == w.end && w.closed;
      const std::uint64_t o = (ending ? kEndingTie : 0) | w.order;
      if (!best || t < best_t || (t == best_t && o < best_order)) {
        if (best) next_t = best_t, next_order = best_order;
        best = &a, best_t = t, best_order = o, best_blocked = b;
      } else if (t < next_t || (t == next_t && o < next_order)) {
        next_t = t, next_order = o;
      }
    }
    if (!best || best_blocked) {
      if (drain) throw InvariantViolation("the streams wait for each other: none can proceed");
      return;
    }
    step(*best, next_t, next_order, next_t != kNever);
  }
  if (drain) {
    swap_out();
    window_base_ += window_.size();
    window_.clear();
  }
}

void Engine::step(StreamActor& a, Nanos limit, std::uint64_t limit_order, bool limited) {
  StreamWork& w = a.queue.front();
  // The work sees the host as it was when issued; the host's own time is back after.
  struct HostTimeAt {
    Nanos& host;
    Nanos now;
    HostTimeAt(Nanos& h, Nanos issued) : host(h), now(h) { host = issued; }
    ~HostTimeAt() { host = now; }
  } host_at_issue(host_now_, w.issued_at);
  if (w.kind == StreamWorkKind::kKernel) {
    if (!a.running) start_kernel(a);
    else if (current_ != &a) swap_in(a);
    if (w.first == w.end && w.closed) return finish_kernel(a);  // its turn to end (see run_streams' ties)
    const double ns = access_estimate_ns();
    const Nanos& fault_service_done = gpus_[static_cast<std::size_t>(kernel_.gpu)].fault_engine_free;
    while (w.first < w.end) {
      // While its GPU services faults (another kernel's: its own leave the
      // kernel's clock past them), a kernel's accesses wait: on the H200 a
      // kernel reading resident pages beside a faulting kernel ends with it,
      // launched before it or after (docs/model.md, "Streams on one timeline").
      if (fault_service_done > kernel_.now) kernel_.now = fault_service_done;
      if (limited) {
        const Nanos t = kernel_.now + static_cast<Nanos>(static_cast<double>(access_seq_ - kernel_first_seq_) * ns);
        if (t > limit || (t == limit && w.order > limit_order)) break;
      }
      const Event& e = window_[w.first - window_base_];
      if (limited && resident_access_waits(a, e, w.cursor)) {
        a.held = true;
        break;
      }
      // With other streams beside it, a range access replays a few lane steps
      // at a time, checking the time between parts, so that kernels running
      // together interleave their touches (an access of one page touch has no
      // parts; a read-modify-write stays whole: its store follows its loads).
      if ((limited || w.cursor.started()) && (e.count > 1 || e.offset % kPageSize + e.length > kPageSize) &&
          e.op != static_cast<std::uint8_t>(trace::AccessType::kReadModifyWrite)) {
        w.cursor.whole = !limited;
        w.cursor.more = false;
        range_cursor_ = &w.cursor;
        kernel_access(e);
        range_cursor_ = nullptr;
        if (w.cursor.more) continue;
        w.cursor = RangeCursor{};
      } else {
        kernel_access(e);
      }
      ++w.first;
    }
    if (w.first == w.end && w.closed && !limited) finish_kernel(a);  // alone: no one to yield to
    return;
  }
  swap_out();  // host-side statements count in the phase, not in a kernel
  switch (w.kind) {
    case StreamWorkKind::kPrefetch:
      run_prefetch(a, w.event);
      break;
    case StreamWorkKind::kRecord:
      on_event_record(w.event);
      record_done_[w.event.name] = std::max(record_done_[w.event.name], w.order);
      break;
    default:
      on_event_wait(w.event);
      break;
  }
  a.queue.pop_front();
  --queued_work_;
}

void Engine::start_kernel(StreamActor& a) {
  swap_out();
  const Event& e = a.queue.front().event;
  load_fault_batch(checked_gpu(e.processor, "kernel"));
  // Nothing runs before it on its stream: the launch's bound is the stream's.
  stream_ready(a.stream) = std::max(stream_ready(a.stream), a.queue.front().not_before);
  on_kernel_begin(e);
  kernel_.launch = a.queue.front().result_index;
  a.running = true;
  a.accesses = 0;
  a.waits_for_batch = false;
  a.counted_faulting = a.counted_write_faulting = a.held = a.ends_after_faults = false;
  a.end_not_before = 0;
  ++running_kernels_;
  current_ = &a;
  swapped_in_entries_ = fault_entries_;
  swapped_in_batches_ = 0;
}

// A kernel whose accesses are done ends, or, where another stream's work may
// still fault beside its compute, computes until the replay reaches its end
// (compute_beside_faults.cc): the scheduler takes it again at that time and
// ends it there unless faults replayed meanwhile moved its end later.
void Engine::finish_kernel(StreamActor& a) {
  try {
    Nanos end;
    if (!a.computing) {
      end = close_kernel();
      faulting_accesses_done(a);
      if (end_waits_for_faults(a, end)) {
        a.held = true;
        return begin_computing(a, end);
      }
      if (compute_may_slow(a)) return begin_computing(a, end);
    } else {
      end = std::max(end_after_compute(), a.end_not_before);
      if (end > a.ends_at) {
        a.ends_at = end;
        return;
      }
      a.computing = false;
      end_computing(gpus_[static_cast<std::size_t>(kernel_.gpu)]);
    }
    kernel_result_slot_ = a.queue.front().result_index;
    end_kernel_at(end);
  } catch (const SimulationError& err) {
    throw SimulationError(fmt::format("kernel '{}' on stream {}: {}", kernel_.name, a.stream, err.what()));
  }
  kernel_result_slot_ = SIZE_MAX;
  batches_done(a);
  a.running = false;
  a.waits_for_batch = false;
  --running_kernels_;
  current_ = nullptr;
  a.queue.pop_front();
  --queued_work_;
}

void Engine::swap_in(StreamActor& a) {
  swap_out();
  std::swap(kernel_, a.kernel);
  std::swap(kernel_counters_, a.counters);
  kernel_bit_ = processor_bit(Processor::gpu(kernel_.gpu));
  kernel_first_seq_ = access_seq_ - a.accesses;
  load_fault_batch(kernel_.gpu);
  swapped_in_entries_ = fault_entries_;
  swapped_in_batches_ = kernel_counters_.fault_batches;
  current_ = &a;
  update_plain_hits();
}

void Engine::swap_out() {
  if (!current_) return;
  StreamActor& a = *current_;
  a.accesses = access_seq_ - kernel_first_seq_;
  batches_done(a);
  note_faulting(a);
  std::swap(kernel_, a.kernel);
  std::swap(kernel_counters_, a.counters);
  kernel_.open = false;
  current_ = nullptr;
}

// After the current kernel's step: a batch it serviced held the other kernels'
// entries on that GPU too, so they replay when it is done.
void Engine::batches_done(StreamActor& a) {
  const bool serviced = kernel_counters_.fault_batches != swapped_in_batches_;
  if (serviced) {
    const Nanos done = gpus_[static_cast<std::size_t>(kernel_.gpu)].fault_engine_free;
    for (StreamActor& b : actors_)
      if (&b != &a && b.running && b.waits_for_batch && b.kernel.gpu == kernel_.gpu) {
        b.kernel.now = std::max(b.kernel.now, done);
        b.waits_for_batch = false;
      }
  }
  a.waits_for_batch = fault_entries_ > 0 && (serviced || fault_entries_ > swapped_in_entries_ || a.waits_for_batch);
  swapped_in_batches_ = kernel_counters_.fault_batches;
  swapped_in_entries_ = fault_entries_;
}

void Engine::load_fault_batch(int gpu) {
  if (gpu == fault_gpu_) return;
  ParkedFaults& out = parked_faults_[static_cast<std::size_t>(fault_gpu_)];
  std::swap(out.buffer, fault_buffer_);
  out.entries = fault_entries_;
  parked_fault_entries_ += fault_entries_;
  ParkedFaults& in = parked_faults_[static_cast<std::size_t>(gpu)];
  std::swap(in.buffer, fault_buffer_);
  fault_entries_ = in.entries;
  parked_fault_entries_ -= in.entries;
  in.entries = 0;
  fault_gpu_ = gpu;
}

bool Engine::queued_here(std::uint64_t key) const {
  return std::any_of(fault_buffer_.begin(), fault_buffer_.end(), [key](const FaultEntry& f) { return f.key == key; });
}

void Engine::trim_window() {
  std::uint64_t keep = window_base_ + window_.size();
  for (const StreamActor& a : actors_)
    for (const StreamWork& w : a.queue)
      if (w.kind == StreamWorkKind::kKernel) keep = std::min(keep, w.first);
  const std::uint64_t drop = keep - window_base_;
  if (drop == 0) return;
  window_.erase(window_.begin(), window_.begin() + static_cast<std::ptrdiff_t>(drop));
  window_base_ = keep;
}

void Engine::force_window() {
  run_streams(false);
  trim_window();
  while (window_.size() >= kWindowEvents / 2) {
    // The stream holding the oldest buffered accesses runs ahead of the others.
    StreamActor* oldest = nullptr;
    for (StreamActor& a : actors_) {
      if (a.queue.empty()) continue;
      const StreamWork& w = a.queue.front();
      if (w.kind != StreamWorkKind::kKernel || w.first == w.end) continue;
      if (!oldest || w.first < oldest->queue.front().first) oldest = &a;
    }
    if (!oldest) return;
    step(*oldest, kNever, 0, false);
    trim_window();
  }
}

void Engine::run_prefetch(StreamActor& a, const Event& e) {
  const Nanos start = std::max(host_now_, stream_ready(a.stream));
  const Counters before = counters();
  on_prefetch(e);
  if (!series_) return;
  ScopeResult r{names_->name(e.name), e.processor.is_gpu() ? e.processor.gpu_index() : -1, start,
                minus(counters(), before)};
  const Nanos end = stream_ready(a.stream);
  r.counters.time_ns = end - start;
  series_->row("prefetch", r, end, a.stream);
}

void Engine::series_batch_row(const Counters& before, Nanos start) {
  ScopeResult r{kernel_.name, kernel_.gpu, start, minus(kernel_counters_, before)};
  r.counters.time_ns = kernel_.now - start;
  series_->row("fault_batch", r, kernel_.now, kernel_.stream);
}

}  // namespace umsim::sim
