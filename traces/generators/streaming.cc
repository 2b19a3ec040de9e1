// streaming: a bandwidth-bound kernel (STREAM-like copy/scale) that reads an
// input array and writes an output array chunk by chunk, each chunk touched
// once per iteration. The CPU initialises the input and reads the result back.
#include "traces/generators/generator_registry.h"
#include "traces/generators/hint_variant.h"

namespace umsim::gen {
namespace {

void run(const GenParams& p, TraceEmitter& t) {
  const std::uint64_t footprint = p.get_bytes("footprint");
  const int iterations = static_cast<int>(get_int_in(p, "iterations", 1, 1 << 20));
  const int gpus = static_cast<int>(get_int_in(p, "gpus", 1, 64));
  const int chunks = static_cast<int>(get_int_in(p, "chunks", 1, 1 << 16));
  const std::string hints = get_choice(p, "hints", {"none", "prefetch", "advise"});
  const Nanos compute = p.get_duration_ns("compute");
  const std::uint64_t half = page_align(footprint / 2);
  if (footprint < 2 * trace::kPageSize) throw GeneratorError("parameter 'footprint': at least 8KiB needed");

  t.alloc("in", half);
  t.alloc("out", half);
  if (hints == "advise") {
    t.advise_all("in", Advice::kSetReadMostly);
    for (int c = 0; c < chunks; ++c) {
      const Span s = page_split(half, chunks, c);
      if (s.size()) t.advise("out", Advice::kSetPreferredLocation, s.begin, s.size(), Processor::gpu(c % gpus));
    }
  }
  t.phase("init");
  t.write_all("in");
  t.phase("stream");
  for (int it = 0; it < iterations; ++it) {
    for (int c = 0; c < chunks; ++c) {
      const Span s = page_split(half, chunks, c);
      if (!s.size()) continue;
      const int gpu = c % gpus;
      const StreamId stream = gpu + 1;
      if (hints == "prefetch") {
        t.prefetch("in", s.begin, s.size(), Processor::gpu(gpu), stream);
        t.prefetch("out", s.begin, s.size(), Processor::gpu(gpu), stream);
      }
      t.kernel_begin("stream_copy", gpu, stream, compute);
      t.read("in", s.begin, s.size());
      t.write("out", s.begin, s.size());
      t.kernel_end();
    }
  }
  t.sync_all();
  t.phase("readback");
  t.read_all("out");
  t.free("in");
  t.free("out");
}

UMSIM_REGISTER_GENERATOR("streaming",
                         "sequential bandwidth-bound copy: kernels stream an input array into an output array chunk "
                         "by chunk; the CPU initialises the input and reads the output back",
                         ({footprint_param("64MiB"), iterations_param("4"), gpus_param(),
                           {"chunks", ParamType::kInt, "8", "kernels per iteration (chunks round-robin over GPUs)"},
                           hints_param("none | prefetch (each chunk before its kernel) | advise (input ReadMostly, "
                                       "output PreferredLocation its GPU)"),
                           compute_param("50us")}),
                         run);

}  // namespace
}  // namespace umsim::gen
