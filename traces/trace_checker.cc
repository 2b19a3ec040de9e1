#include "traces/trace_checker.h"

#include <algorithm>
#include <limits>

#include "traces/checked_math.h"
#include "traces/units.h"

namespace umsim::trace {
namespace {

// The model keeps a clock per stream, for streams 0 .. 2^20 - 1 (sim/engine.cc).
constexpr StreamId kModelStreams = 1u << 20;

std::string quoted(const std::string& name) { return "'" + name + "'"; }

std::string range_text(const Event& e) {
  return "[" + describe_bytes(e.offset) + ", +" + describe_bytes(e.length) + ")";
}

}  // namespace

std::string to_string(const TraceProblem& p) {
  return p.position + (p.severity == Severity::kError ? ": error: " : ": warning: ") + p.message;
}

TraceChecker::TraceChecker(Report report) : report_(std::move(report)) {}

void TraceChecker::problem(Severity s, const TraceReader& reader, std::size_t index, std::string message) {
  (s == Severity::kError ? errors_ : warnings_) += 1;
  report_(TraceProblem{s, reader.position(index), std::move(message)});
}

void TraceChecker::check(std::span<const Event> batch, const TraceReader& reader) {
  const std::size_t names = reader.names().size();
  if (allocations_.size() < names) {
    allocations_.resize(names);
    recorded_.resize(names, 0);
  }
  for (std::size_t i = 0; i < batch.size(); ++i) {
    report_malformed(i);
    check_event(batch[i], i, reader);
  }
  report_malformed(batch.size());
  malformed_.clear();
  malformed_next_ = 0;
  events_ += batch.size();
}

const TraceChecker::Allocation* TraceChecker::check_range(const Event& e, std::size_t index,
                                                          const TraceReader& reader, const char* what) {
  const Allocation& a = allocations_[e.name];
  const std::string& name = reader.names().name(e.name);
  if (a.state == AllocState::kNever) {
    problem(Severity::kError, reader, index, std::string(what) + " of unknown allocation " + quoted(name));
    return nullptr;
  }
  if (a.state == AllocState::kFreed) {
    problem(Severity::kError, reader, index,
            std::string(what) + " of " + quoted(name) + " after it was freed (use after free; freed at " + a.where +
                ")");
    return nullptr;
  }
  const auto end = checked_add(e.offset, e.length);
  if (!end || *end > a.size) {
    problem(Severity::kError, reader, index,
            std::string(what) + " " + range_text(e) + " is outside " + quoted(name) + " (size " +
                describe_bytes(a.size) + ")");
    return nullptr;
  }
  return &a;
}

void TraceChecker::check_host_side(const Event& e, std::size_t index, const TraceReader& reader) {
  if (in_kernel_)
    problem(Severity::kError, reader, index,
            std::string("'") + to_string(e.kind) + "' inside kernel " + quoted(kernel_name_) + " (begun at " +
                kernel_where_ + "); host-side operations go outside 'kernel' ... 'end'");
}

void TraceChecker::check_copy(const Event& e, std::size_t index, const TraceReader& reader) {
  const NameTable& names = reader.names();
  const CopyKind kind = e.copy_kind();
  if (e.length == 0) problem(Severity::kError, reader, index, "zero-length copy");
  const char* what = kind == CopyKind::kBetweenAllocations || copies_from_host(kind) ? "copy destination" : "copy source";
  const Allocation* a = check_range(e, index, reader, what);
  const auto host_memory = [](AllocKind k) { return k == AllocKind::kPinned || k == AllocKind::kMapped; };
  if (kind != CopyKind::kBetweenAllocations) {
    if (a != nullptr && host_memory(a->kind))
      problem(Severity::kError, reader, index,
              "copy between a host buffer and " + std::string(to_string(a->kind)) + " allocation " +
                  quoted(names.name(e.name)) +
                  ", which is host memory too (a host-to-host copy; copy to or from a managed or device allocation)");
    return;
  }
  Event source = e;
  source.name = e.copy_source();
  source.offset = e.copy_source_offset();
  const Allocation* b = check_range(source, index, reader, "copy source");
  if (a != nullptr && b != nullptr && host_memory(a->kind) && host_memory(b->kind))
    problem(Severity::kError, reader, index,
            "copy between host allocations " + quoted(names.name(e.copy_source())) + " and " +
                quoted(names.name(e.name)) + " (no GPU takes part; one side must be managed or device memory)");
  if (source.name == e.name && e.length != 0 && source.offset < e.offset + e.length &&
      e.offset < source.offset + e.length)
    problem(Severity::kError, reader, index,
            "copy within " + quoted(names.name(e.name)) + " with overlapping source " + range_text(source) +
                " and destination " + range_text(e) + " (hipMemcpy's result is undefined)");
}

void TraceChecker::check_event(const Event& e, std::size_t index, const TraceReader& reader) {
  const NameTable& names = reader.names();
  const bool names_stream = e.kind == EventKind::kKernelBegin || e.kind == EventKind::kPrefetch ||
                            e.kind == EventKind::kEventRecord || e.kind == EventKind::kEventWait ||
                            (e.kind == EventKind::kSync && e.sync_scope() == SyncScope::kStream);
  if (names_stream && e.stream >= kModelStreams)
    problem(Severity::kError, reader, index,
            "stream " + std::to_string(e.stream) + " is beyond the " + std::to_string(kModelStreams) +
                " streams the model supports");
  switch (e.kind) {
    case EventKind::kAlloc: {
      check_host_side(e, index, reader);
      Allocation& a = allocations_[e.name];
      const std::string& name = names.name(e.name);
      if (a.state == AllocState::kLive) {
        problem(Severity::kError, reader, index,
                "allocation " + quoted(name) + " is already live (allocated at " + a.where + "); free it first");
        return;
      }
      // The model refuses these too (sim/engine.cc): check rejects what replay would.
      if (e.length == 0) problem(Severity::kError, reader, index, "allocation " + quoted(name) + " has size 0");
      if (!checked_round_up(e.length, kPageSize))
        problem(Severity::kError, reader, index,
                "allocation " + quoted(name) + " is too large: its size does not round up to whole 4KiB pages in 64 bits");
      const AllocKind kind = e.alloc_kind();
      if (kind == AllocKind::kDevice && !e.processor.is_gpu())
        problem(Severity::kError, reader, index,
                "device allocation " + quoted(name) + " needs on=gpuN (device memory lives on one GPU)");
      if ((kind == AllocKind::kPinned || kind == AllocKind::kMapped || kind == AllocKind::kSystem) &&
          e.processor.is_gpu())
        problem(Severity::kError, reader, index,
                std::string(to_string(kind)) + " allocation " + quoted(name) + " lives in host memory, not on " +
                    to_string(e.processor));
      a.state = AllocState::kLive;
      a.kind = kind;
      a.size = e.length;
      a.where = reader.position(index);
      return;
    }
    case EventKind::kFree: {
      check_host_side(e, index, reader);
      Allocation& a = allocations_[e.name];
      const std::string& name = names.name(e.name);
      if (a.state == AllocState::kNever) {
        problem(Severity::kError, reader, index, "free of unknown allocation " + quoted(name));
      } else if (a.state == AllocState::kFreed) {
        problem(Severity::kError, reader, index, "double free of " + quoted(name) + " (freed at " + a.where + ")");
      } else {
        a.state = AllocState::kFreed;
        a.where = reader.position(index);
      }
      return;
    }
    case EventKind::kKernelBegin:
      if (in_kernel_) {
        problem(Severity::kError, reader, index,
                "kernel " + quoted(names.name(e.name)) + " begins inside kernel " + quoted(kernel_name_) +
                    " (begun at " + kernel_where_ + "; missing 'end'?)");
      }
      in_kernel_ = true;
      kernel_name_ = names.name(e.name);
      kernel_where_ = reader.position(index);
      return;
    case EventKind::kKernelEnd:
      if (!in_kernel_) problem(Severity::kError, reader, index, "'end' without an open kernel");
      in_kernel_ = false;
      return;
    case EventKind::kGpuAccess: {
      if (!in_kernel_)
        problem(Severity::kError, reader, index,
                "GPU access outside a kernel (put it between 'kernel' and 'end', or write 'cpu r|w|a' for a CPU "
                "access)");
      if (e.length == 0)
        problem(Severity::kError, reader, index,
                "zero-length access of " + quoted(names.name(e.name)) + " (len= must be at least 1 byte)");
      check_range(e, index, reader, "access");
      return;
    }
    case EventKind::kCpuAccess: {
      if (in_kernel_)
        problem(Severity::kError, reader, index,
                "CPU access inside kernel " + quoted(kernel_name_) + " (begun at " + kernel_where_ +
                    "); CPU accesses go outside kernels");
      if (e.length == 0)
        problem(Severity::kError, reader, index,
                "zero-length CPU access of " + quoted(names.name(e.name)) + " (len= must be at least 1 byte)");
      const Allocation* a = check_range(e, index, reader, "CPU access");
      if (a != nullptr && a->kind == AllocKind::kDevice)
        problem(Severity::kError, reader, index,
                "CPU access to device memory " + quoted(names.name(e.name)) + " (not accessible from the host)");
      return;
    }
    case EventKind::kPrefetch:
    case EventKind::kAdvise: {
      check_host_side(e, index, reader);
      const char* what = e.kind == EventKind::kPrefetch ? "prefetch" : "advise";
      const Allocation* a = check_range(e, index, reader, what);
      if (a != nullptr && a->kind != AllocKind::kManaged && a->kind != AllocKind::kSystem)
        problem(Severity::kError, reader, index,
                std::string(what) + " of " + to_string(a->kind) + " allocation " + quoted(names.name(e.name)) +
                    " (only managed and system memory take prefetches and advice)");
      if (e.length == 0) problem(Severity::kWarning, reader, index, std::string("zero-length ") + what);
      return;
    }
    case EventKind::kSync:
    case EventKind::kPhase:
    case EventKind::kEventRecord:
      check_host_side(e, index, reader);
      if (e.kind == EventKind::kEventRecord) recorded_[e.name] = 1;
      return;
    case EventKind::kEventWait:
      check_host_side(e, index, reader);
      if (!recorded_[e.name])
        problem(Severity::kError, reader, index,
                "wait on event " + quoted(names.name(e.name)) + ", which was never recorded");
      return;
    case EventKind::kCopy:
      check_host_side(e, index, reader);
      check_copy(e, index, reader);
      return;
    case EventKind::kMemset:
      check_host_side(e, index, reader);
      if (e.length == 0) problem(Severity::kWarning, reader, index, "zero-length memset");
      check_range(e, index, reader, "memset");
      return;
    case EventKind::kPeerEnable: {
      check_host_side(e, index, reader);
      const int a = e.processor.gpu_index(), b = e.peer_gpu().gpu_index();
      const std::pair<int, int> pair{std::min(a, b), std::max(a, b)};
      for (const auto& [p, where] : peers_)
        if (p == pair) {
          problem(Severity::kWarning, reader, index,
                  "peer access between gpu" + std::to_string(pair.first) + " and gpu" + std::to_string(pair.second) +
                      " is already enabled (at " + where + "; hipDeviceEnablePeerAccess fails the second time)");
          return;
        }
      peers_.emplace_back(pair, reader.position(index));
      return;
    }
  }
  problem(Severity::kError, reader, index, "event of unknown kind " + std::to_string(static_cast<int>(e.kind)));
}

void TraceChecker::malformed(std::size_t before_index, const std::string& position, const std::string& message) {
  malformed_.push_back({before_index, position, message});
}

void TraceChecker::report_malformed(std::size_t up_to_index) {
  for (; malformed_next_ < malformed_.size() && malformed_[malformed_next_].before_index <= up_to_index;
       ++malformed_next_) {
    ++errors_;
    report_(TraceProblem{Severity::kError, malformed_[malformed_next_].position, malformed_[malformed_next_].message});
  }
}

void TraceChecker::finish(const TraceReader& reader) {
  auto report_at = [&](Severity s, const std::string& where, std::string message) {
    (s == Severity::kError ? errors_ : warnings_) += 1;
    report_(TraceProblem{s, where, std::move(message)});
  };
  if (in_kernel_)
    report_at(Severity::kError, kernel_where_,
              "kernel " + quoted(kernel_name_) + " has no 'end' (the trace ends inside it)");
  if (!reader.ended_with_end_record())
    report_at(Severity::kWarning, reader.end_position(),
              "the trace ends without an 'end-of-trace' line: it may be truncated (umsim's writers end every text "
              "trace with one)");
  for (std::size_t id = 0; id < allocations_.size(); ++id)
    if (allocations_[id].state == AllocState::kLive)
      report_at(Severity::kWarning, allocations_[id].where,
                "allocation " + quoted(reader.names().name(static_cast<NameId>(id))) + " is never freed");
}

CheckSummary check_trace(TraceReader& reader, const TraceChecker::Report& report) {
  TraceChecker checker(report);
  reader.skip_malformed([&](std::size_t before_index, const std::string& position, const std::string& message) {
    checker.malformed(before_index, position, message);
  });
  std::vector<Event> batch(4096);
  std::size_t n;
  while ((n = reader.read(batch)) > 0) checker.check(std::span<const Event>(batch.data(), n), reader);
  checker.check({}, reader);  // malformed lines after the last event
  checker.finish(reader);
  return CheckSummary{checker.events(), checker.errors(), checker.warnings()};
}

}  // namespace umsim::trace
