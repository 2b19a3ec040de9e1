// strided: kernels that touch one address every `stride` bytes (a column walk
// over a row-major matrix); each iteration shifts the start by one page, so
// successive iterations touch different pages of the same regions.
#include "traces/generators/generator_registry.h"
#include "traces/generators/hint_variant.h"

namespace umsim::gen {
namespace {

void run(const GenParams& p, TraceEmitter& t) {
  const std::uint64_t footprint = page_align(p.get_bytes("footprint"));
  const int iterations = static_cast<int>(get_int_in(p, "iterations", 1, 1 << 20));
  const int gpus = static_cast<int>(get_int_in(p, "gpus", 1, 64));
  const std::uint64_t stride = p.get_bytes("stride");
  const std::string hints = get_choice(p, "hints", {"none", "prefetch", "advise"});
  const Nanos compute = p.get_duration_ns("compute");
  if (footprint == 0) throw GeneratorError("parameter 'footprint': must be positive");
  if (stride == 0 || stride > footprint)
    throw GeneratorError("parameter 'stride': expected 1B up to the footprint");

  t.alloc("matrix", footprint);
  if (hints == "advise") {
    // Sparse touches: keep the data on the CPU and map it remotely instead of migrating.
    t.advise_all("matrix", Advice::kSetPreferredLocation, Processor::cpu());
    for (int g = 0; g < gpus; ++g) t.advise_all("matrix", Advice::kSetAccessedBy, Processor::gpu(g));
  }
  t.phase("init");
  t.write_all("matrix");
  t.phase("strided");
  for (int it = 0; it < iterations; ++it) {
    const std::uint64_t shift = (static_cast<std::uint64_t>(it) * trace::kPageSize) % stride;
    for (int g = 0; g < gpus; ++g) {
      const Span s = page_split(footprint, gpus, g);
      if (s.begin + shift >= s.end) continue;
      if (hints == "prefetch") t.prefetch("matrix", s.begin, s.size(), Processor::gpu(g), g + 1);
      t.kernel_begin("strided_walk", g, g + 1, compute);
      t.read("matrix", s.begin + shift, s.end - s.begin - shift, stride);
      t.kernel_end();
    }
  }
  t.sync_all();
  t.free("matrix");
}

UMSIM_REGISTER_GENERATOR("strided",
                         "strided reads (a column walk over a row-major matrix): one touch every `stride` bytes, "
                         "the start shifted by one page per iteration",
                         ({footprint_param("64MiB"), iterations_param("4"), gpus_param(),
                           {"stride", ParamType::kBytes, "64KiB", "distance between touched addresses"},
                           hints_param("none | prefetch (whole range: wasteful when sparse) | advise "
                                       "(PreferredLocation cpu + AccessedBy: remote access, no migration)"),
                           compute_param("20us")}),
                         run);

}  // namespace
}  // namespace umsim::gen
