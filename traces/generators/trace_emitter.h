// A typed, streaming front end over TraceWriter for code that synthesises
// traces (generators, importers). It checks the generator's own bookkeeping
// (known allocation, access within bounds, kernels properly nested) so a bug
// surfaces as an exception at the faulty call, not as a bad trace.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "traces/event.h"
#include "traces/trace_writer.h"

namespace umsim::gen {

using trace::AccessType;
using trace::Advice;
using trace::AllocKind;
using trace::Bytes;
using trace::Nanos;
using trace::Processor;
using trace::StreamId;

class TraceEmitter {
 public:
  explicit TraceEmitter(trace::TraceWriter& out) : out_(out) {}

  void comment(std::string_view text) { out_.comment(text); }
  void phase(std::string_view name);

  void alloc(std::string_view name, Bytes size, AllocKind kind = AllocKind::kManaged,
             Processor placement = Processor::none());
  void free(std::string_view name);
  Bytes size_of(std::string_view name) const;

  void kernel_begin(std::string_view name, int gpu, StreamId stream, Nanos compute);
  void kernel_end();
  bool in_kernel() const { return in_kernel_; }

  // Inside a kernel: a GPU access; outside: a CPU access.
  void access(std::string_view alloc, AccessType type, Bytes offset, Bytes length, Bytes stride = 0,
              std::uint32_t count = 1);
  void read(std::string_view alloc, Bytes offset, Bytes length, Bytes stride = 0) {
    access(alloc, AccessType::kRead, offset, length, stride);
  }
  void write(std::string_view alloc, Bytes offset, Bytes length, Bytes stride = 0) {
    access(alloc, AccessType::kWrite, offset, length, stride);
  }
  // Whole allocation.
  void read_all(std::string_view alloc) { read(alloc, 0, size_of(alloc)); }
  void write_all(std::string_view alloc) { write(alloc, 0, size_of(alloc)); }

  void prefetch(std::string_view alloc, Bytes offset, Bytes length, Processor to, StreamId stream = 0);
  void prefetch_all(std::string_view alloc, Processor to, StreamId stream = 0) {
    prefetch(alloc, 0, size_of(alloc), to, stream);
  }
  void advise(std::string_view alloc, Advice advice, Bytes offset, Bytes length,
              Processor target = Processor::none());
  void advise_all(std::string_view alloc, Advice advice, Processor target = Processor::none()) {
    advise(alloc, advice, 0, size_of(alloc), target);
  }

  // Format version 2 (the writer must be a version-2 writer): explicit copies,
  // memsets and peer access. A host copy's `kind` is one of the from/to host kinds.
  void copy_host(trace::CopyKind kind, std::string_view alloc, Bytes offset, Bytes length, int gpu,
                 StreamId stream, bool async);
  void copy(std::string_view destination, Bytes destination_offset, std::string_view source, Bytes source_offset,
            Bytes length, int gpu, StreamId stream, bool async);
  void memset(std::string_view alloc, Bytes offset, Bytes length, int gpu, StreamId stream, bool async);
  void peer_enable(int gpu, int peer);

  void sync_all();
  void sync_gpu(int gpu);
  void sync_stream(StreamId stream);
  void event_record(std::string_view event, StreamId stream);
  void event_wait(std::string_view event, StreamId stream);

  std::uint64_t events_written() const { return events_; }

 private:
  void emit(const trace::Event& e, std::string_view name, std::string_view source_name = {});
  void check_range(std::string_view alloc, Bytes offset, Bytes length, const char* what) const;

  trace::TraceWriter& out_;
  std::map<std::string, Bytes, std::less<>> live_;  // allocation -> size
  bool in_kernel_ = false;
  std::uint64_t events_ = 0;
};

}  // namespace umsim::gen
