// Helpers shared by the trace tests: read a whole (small) trace with its names
// and comments, and re-encode it.
#pragma once

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "traces/trace_reader.h"
#include "traces/trace_writer.h"

namespace umsim::trace::testing {

struct NamedEvent {
  Event event;
  std::string name;  // resolved through the reader's NameTable ("" for kinds without a name)
  std::string source_name;  // a copy's source allocation ("" for other events)
  std::string position;
  friend bool operator==(const NamedEvent& a, const NamedEvent& b) {
    return a.event.kind == b.event.kind && a.name == b.name && a.source_name == b.source_name &&
           strip_name(a.event) == strip_name(b.event);
  }
  static Event strip_name(Event e) {
    e.name = 0;
    if (trace::has_source_name(e)) e.count = 0;
    return e;
  }
};

struct Item {
  bool is_comment = false;
  NamedEvent event;
  std::string comment;
};

// Reads everything, in order, comments interleaved where they appeared.
inline std::vector<Item> read_items(TraceReader& reader, std::size_t batch = 1000) {
  std::vector<Item> items;
  std::vector<Event> buf(batch);
  for (;;) {
    const std::size_t n = reader.read(buf);
    const auto comments = reader.comments();
    std::size_t c = 0;
    for (std::size_t i = 0; i <= n; ++i) {
      while (c < comments.size() && comments[c].before_index == i) {
        Item item;
        item.is_comment = true;
        item.comment = comments[c++].text;
        items.push_back(item);
      }
      if (i == n) break;
      Item item;
      item.event.event = buf[i];
      item.event.name = trace::has_name(buf[i]) ? reader.names().name(buf[i].name) : "";
      if (trace::has_source_name(buf[i])) item.event.source_name = reader.names().name(buf[i].copy_source());
      item.event.position = reader.position(i);
      items.push_back(item);
    }
    if (n == 0) break;
  }
  return items;
}

inline std::vector<NamedEvent> events_of(const std::vector<Item>& items) {
  std::vector<NamedEvent> out;
  for (const auto& it : items)
    if (!it.is_comment) out.push_back(it.event);
  return out;
}

inline std::string encode(const std::vector<Item>& items, Encoding encoding, int version = 1) {
  std::string out;
  auto writer = create_trace_writer_to_string(&out, encoding, version);
  for (const auto& it : items) {
    if (it.is_comment) writer->comment(it.comment);
    else writer->write(it.event.event, it.event.name, it.event.source_name);
  }
  writer->finish();
  return out;
}

inline std::vector<Item> decode(const std::string& data, std::size_t batch = 1000) {
  auto reader = open_trace_from_memory(data, "<memory>");
  return read_items(*reader, batch);
}

inline std::string file_contents(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace umsim::trace::testing
