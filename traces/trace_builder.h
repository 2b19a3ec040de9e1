// A fluent builder of in-memory traces for tests, benchmarks and the demo
// (ChampSim-style), e.g.
//
//   using namespace umsim::trace::literals;
//   BuiltTrace t = TraceBuilder()
//                      .alloc("A", 1_GiB)
//                      .cpu_write("A")
//                      .kernel("k0", /*gpu=*/0, /*compute_ns=*/1000)
//                      .read("A")
//                      .end()
//                      .build();
//
// Accesses without offset/length cover the whole allocation. read/write/atomic
// are GPU accesses of the open kernel; cpu_read/cpu_write are CPU accesses.
// Misuse (an access outside a kernel, an unknown allocation) throws
// std::logic_error: these are programming errors in a test.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "traces/event.h"
#include "traces/trace_reader.h"

namespace umsim::trace {

namespace literals {
constexpr Bytes operator""_KiB(unsigned long long v) { return v << 10; }
constexpr Bytes operator""_MiB(unsigned long long v) { return v << 20; }
constexpr Bytes operator""_GiB(unsigned long long v) { return v << 30; }
constexpr Nanos operator""_us(unsigned long long v) { return v * 1000; }
constexpr Nanos operator""_ms(unsigned long long v) { return v * 1000000; }
}  // namespace literals

// The finished trace: events in order plus the names they reference.
struct BuiltTrace {
  std::vector<Event> events;
  NameTable names;
  // The lowest format version that expresses every event, when known (the
  // builder tracks it as it adds events); 0: not known, readers find it.
  int version = 0;
};

// Who runs a copy or memset: `gpu` on `stream`, synchronous (hipMemcpy) unless
// `async` (hipMemcpyAsync).
struct Issue {
  int gpu = 0;
  StreamId stream = 0;
  bool async = false;
};

class TraceBuilder {
 public:
  static constexpr Bytes kWhole = ~Bytes{0};  // "to the end of the allocation"

  TraceBuilder& alloc(std::string_view name, Bytes size, AllocKind kind = AllocKind::kManaged,
                      Processor placement = Processor::none());
  TraceBuilder& free(std::string_view name);

  // CPU accesses (outside kernels).
  TraceBuilder& cpu_read(std::string_view name, Bytes offset = 0, Bytes length = kWhole, Bytes stride = 0,
                         std::uint32_t count = 1);
  TraceBuilder& cpu_write(std::string_view name, Bytes offset = 0, Bytes length = kWhole, Bytes stride = 0,
                          std::uint32_t count = 1);

  // Kernels: kernel(...) opens one, read/write/atomic add its accesses, end() closes it.
  TraceBuilder& kernel(std::string_view name, int gpu = 0, Nanos compute_ns = 0, StreamId stream = 0);
  TraceBuilder& read(std::string_view name, Bytes offset = 0, Bytes length = kWhole, Bytes stride = 0,
                     std::uint32_t count = 1);
  TraceBuilder& write(std::string_view name, Bytes offset = 0, Bytes length = kWhole, Bytes stride = 0,
                      std::uint32_t count = 1);
  TraceBuilder& atomic(std::string_view name, Bytes offset = 0, Bytes length = kWhole, Bytes stride = 0,
                       std::uint32_t count = 1);
  // A load and a dependent store of each address (format version 2).
  TraceBuilder& read_modify_write(std::string_view name, Bytes offset = 0, Bytes length = kWhole, Bytes stride = 0,
                                  std::uint32_t count = 1);
  TraceBuilder& cpu_read_modify_write(std::string_view name, Bytes offset = 0, Bytes length = kWhole,
                                      Bytes stride = 0, std::uint32_t count = 1);
  // One access event per page: `pages` pages from `first_page` (page-at-a-time traces).
  TraceBuilder& page_reads(std::string_view name, std::uint64_t first_page, std::uint64_t pages);
  TraceBuilder& end();

  // Hints.
  TraceBuilder& prefetch(std::string_view name, Processor destination, StreamId stream = 0, Bytes offset = 0,
                         Bytes length = kWhole);
  TraceBuilder& advise(std::string_view name, Advice advice, Processor target = Processor::none(),
                       Bytes offset = 0, Bytes length = kWhole);

  // Explicit copies and memsets (format version 2), see Issue.
  // Between a host buffer and `name`: kind one of the from/to host kinds.
  TraceBuilder& copy_host(CopyKind kind, std::string_view name, Bytes offset, Bytes length, Issue issue = Issue{});
  TraceBuilder& copy(std::string_view destination, Bytes destination_offset, std::string_view source,
                     Bytes source_offset, Bytes length, Issue issue = Issue{});
  TraceBuilder& memset(std::string_view name, Bytes offset = 0, Bytes length = kWhole, Issue issue = Issue{});
  TraceBuilder& peer_enable(int gpu, int peer);

  // Ordering.
  TraceBuilder& sync();                        // device-wide synchronisation
  TraceBuilder& sync_gpu(int gpu);
  TraceBuilder& sync_stream(StreamId stream);
  TraceBuilder& record(std::string_view event, StreamId stream);
  TraceBuilder& wait(std::string_view event, StreamId stream);
  TraceBuilder& phase(std::string_view name);

  // Any event, as is (name interned).
  TraceBuilder& raw(Event e, std::string_view name = {});

  BuiltTrace build() const;

 private:
  TraceBuilder& access(EventKind kind, AccessType type, std::string_view name, Bytes offset, Bytes length,
                       Bytes stride, std::uint32_t count);
  Bytes size_of(std::string_view name) const;
  Bytes resolve_length(std::string_view name, Bytes offset, Bytes length) const;

  BuiltTrace trace_;
  std::vector<std::pair<std::string, Bytes>> sizes_;  // allocations, latest last
  bool in_kernel_ = false;
};

}  // namespace umsim::trace
