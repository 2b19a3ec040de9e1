#include "traces/trace_copy.h"

#include <vector>

#include "traces/trace_error.h"

namespace umsim::trace {

std::uint64_t copy_trace(TraceReader& reader, TraceWriter& writer) {
  constexpr std::size_t kBatch = 4096;
  std::vector<Event> batch(kBatch);
  std::uint64_t events = 0;
  for (;;) {
    const std::size_t n = reader.read(batch);
    const auto comments = reader.comments();
    std::size_t c = 0;
    for (std::size_t i = 0; i <= n; ++i) {
      for (; c < comments.size() && comments[c].before_index == i; ++c) {
        try {
          writer.comment(comments[c].text);
        } catch (const CommentTooLongError& e) {  // the text reader takes longer lines than a trace may hold
          throw TraceError(comments[c].position + ": " + e.problem() + " (writing " + e.target() + ")");
        }
      }
      if (i == n) break;
      const Event& e = batch[i];
      writer.write(e, has_name(e) ? std::string_view(reader.names().name(e.name)) : std::string_view(),
                   has_source_name(e) ? std::string_view(reader.names().name(e.copy_source())) : std::string_view());
    }
    if (n == 0) return events;
    events += n;
  }
}

}  // namespace umsim::trace
