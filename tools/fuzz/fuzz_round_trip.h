// The oracle both decoder fuzzers share: whatever a decoder accepts must
// re-encode to text and to binary and decode back to the same events and
// comments, and the semantic checker must run over it without crashing.
// Decoding errors (TraceError) are the expected outcome for most inputs.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "traces/trace_checker.h"
#include "traces/trace_reader.h"
#include "traces/trace_writer.h"

namespace umsim::trace::fuzz {

// Bounds the work per input (a small zstd frame can expand a lot).
inline constexpr std::size_t kMaxEvents = 20000;

struct Decoded {
  std::vector<Event> events;
  std::vector<std::string> names;  // per event, "" for kinds without one
  std::vector<std::string> sources;  // per event: a copy's source allocation, else ""
  int version = 1;
  std::vector<std::pair<std::size_t, std::string>> comments;  // (index of the following event, text)
};

inline Decoded decode_all(TraceReader& reader) {
  Decoded d;
  d.version = reader.version();
  std::vector<Event> batch(61);  // odd size: batches end at awkward places
  while (d.events.size() < kMaxEvents) {
    const std::size_t n = reader.read(batch);
    for (const TraceComment& c : reader.comments()) d.comments.emplace_back(d.events.size() + c.before_index, c.text);
    for (std::size_t i = 0; i < n; ++i) {
      d.events.push_back(batch[i]);
      d.names.push_back(has_name(batch[i]) ? reader.names().name(batch[i].name) : "");
      d.sources.push_back(has_source_name(batch[i]) ? reader.names().name(batch[i].copy_source()) : "");
      (void)reader.position(i);
    }
    if (n == 0) break;
  }
  return d;
}

inline std::string encode(const Decoded& d, Encoding encoding) {
  std::string out;
  auto writer = create_trace_writer_to_string(&out, encoding, d.version);
  std::size_t c = 0;
  for (std::size_t i = 0; i <= d.events.size(); ++i) {
    while (c < d.comments.size() && d.comments[c].first == i) writer->comment(d.comments[c++].second);
    if (i < d.events.size()) writer->write(d.events[i], d.names[i], d.sources[i]);
  }
  writer->finish();
  return out;
}

[[noreturn]] inline void die(const char* what, std::size_t index) {
  std::fprintf(stderr, "round trip mismatch: %s at %zu\n", what, index);
  std::abort();
}

inline void expect_same(const Decoded& a, const Decoded& b, bool compare_comments) {
  if (a.events.size() != b.events.size()) die("event count", a.events.size());
  for (std::size_t i = 0; i < a.events.size(); ++i) {
    Event x = a.events[i], y = b.events[i];
    x.name = y.name = 0;
    if (has_source_name(x)) x.count = y.count = 0;  // compared by name below
    if (!(x == y)) die("event", i);
    if (a.names[i] != b.names[i]) die("name", i);
    if (a.sources[i] != b.sources[i]) die("copy source", i);
  }
  if (compare_comments && a.comments != b.comments) die("comments", a.comments.size());
}

// Runs the oracle on an already opened reader; returns normally on TraceError.
inline void check_decoder(TraceReader& reader, bool compare_comments) {
  Decoded original;
  try {
    original = decode_all(reader);
  } catch (const TraceError&) {
    return;
  }
  const std::string text = encode(original, Encoding::kText);
  const std::string binary = encode(original, Encoding::kBinary);
  Decoded from_text, from_binary;
  try {
    auto t = open_trace_from_memory(text, "<text>");
    from_text = decode_all(*t);
    auto b = open_trace_from_memory(binary, "<binary>");
    from_binary = decode_all(*b);
  } catch (const TraceError& e) {
    std::fprintf(stderr, "re-encoded trace does not decode: %s\n", e.what());
    std::abort();
  }
  expect_same(original, from_text, compare_comments);
  expect_same(original, from_binary, compare_comments);
  if (encode(from_text, Encoding::kText) != text) die("canonical text is not stable", 0);
  // Semantic checks never crash, whatever the events.
  auto again = open_trace_from_memory(text, "<text>");
  std::uint64_t problems = 0;
  check_trace(*again, [&](const TraceProblem&) { ++problems; });
}

}  // namespace umsim::trace::fuzz
