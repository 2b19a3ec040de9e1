// Semantic validation of a trace (`umsim trace check`): the rules that span
// events, which neither decoder can see on one line or record. Every problem is
// reported with the position of the event that shows it; checking goes on after
// a problem so that one run lists them all.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "traces/trace_reader.h"

namespace umsim::trace {

enum class Severity { kError, kWarning };

struct TraceProblem {
  Severity severity = Severity::kError;
  std::string position;  // "file:line" or "file:byte N"
  std::string message;
};

// "POS: error: MESSAGE" / "POS: warning: MESSAGE".
std::string to_string(const TraceProblem& p);

class TraceChecker {
 public:
  using Report = std::function<void(const TraceProblem&)>;
  explicit TraceChecker(Report report);

  // Checks one batch just returned by reader.read(); positions come from the reader.
  void check(std::span<const Event> batch, const TraceReader& reader);
  // A malformed line the reader skipped while reading the next batch (see
  // TraceReader::skip_malformed); reported in file order by check().
  void malformed(std::size_t before_index, const std::string& position, const std::string& message);
  // End-of-trace rules (open kernel, allocations never freed).
  void finish(const TraceReader& reader);

  std::uint64_t events() const { return events_; }
  std::uint64_t errors() const { return errors_; }
  std::uint64_t warnings() const { return warnings_; }

 private:
  enum class AllocState : std::uint8_t { kNever, kLive, kFreed };
  struct Allocation {
    AllocState state = AllocState::kNever;
    AllocKind kind = AllocKind::kManaged;
    Bytes size = 0;
    std::string where;  // position of the alloc (live) or of the free (freed)
  };

  void problem(Severity s, const TraceReader& reader, std::size_t index, std::string message);
  void check_event(const Event& e, std::size_t index, const TraceReader& reader);
  // Checks that e names a live allocation and stays inside it; returns it or nullptr.
  const Allocation* check_range(const Event& e, std::size_t index, const TraceReader& reader, const char* what);
  void check_host_side(const Event& e, std::size_t index, const TraceReader& reader);
  void check_copy(const Event& e, std::size_t index, const TraceReader& reader);

  struct Malformed {
    std::size_t before_index;
    std::string position, message;
  };
  void report_malformed(std::size_t up_to_index);

  Report report_;
  std::vector<Malformed> malformed_;  // from the batch being read
  std::size_t malformed_next_ = 0;
  std::vector<Allocation> allocations_;   // by name id
  std::vector<std::uint8_t> recorded_;    // by name id: event recorded at least once
  std::vector<std::pair<std::pair<int, int>, std::string>> peers_;  // enabled GPU pairs (low, high) and where
  bool in_kernel_ = false;
  std::string kernel_name_;
  std::string kernel_where_;
  std::uint64_t events_ = 0, errors_ = 0, warnings_ = 0;
};

struct CheckSummary {
  std::uint64_t events = 0, errors = 0, warnings = 0;
};

// Reads the whole trace through a checker. Malformed lines of text traces are
// reported as errors and skipped; other decoding errors (TraceError) propagate.
CheckSummary check_trace(TraceReader& reader, const TraceChecker::Report& report);

}  // namespace umsim::trace
