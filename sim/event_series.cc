#include "sim/event_series.h"

namespace umsim::sim {

namespace {
// Names are quoted when they hold a comma, quote or newline (RFC 4180).
void write_field(std::ostream& out, const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) {
    out << s;
    return;
  }
  out << '"';
  for (char c : s) out << (c == '"' ? "\"\"" : std::string(1, c));
  out << '"';
}
}  // namespace

EventSeries::EventSeries(std::ostream& out) : out_(out) {
  out_ << "kind,name,gpu,start_ns,end_ns";
  for (const auto& f : counter_fields()) out_ << ',' << f.name;
  out_ << ",stream\n";
}

void EventSeries::row(const char* kind, const ScopeResult& scope, Nanos end_ns, std::int64_t stream) {
  out_ << kind << ',';
  write_field(out_, scope.name);
  out_ << ',';
  if (scope.gpu >= 0) out_ << scope.gpu;
  out_ << ',' << scope.start_ns << ',' << end_ns;
  for (const auto& f : counter_fields()) out_ << ',' << scope.counters.*f.member;
  out_ << ',';
  if (stream >= 0) out_ << stream;
  out_ << '\n';
}

}  // namespace umsim::sim
