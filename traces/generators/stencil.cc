// stencil2d / stencil3d: Jacobi sweeps over a 2D (n x n) or 3D (n x n x n)
// grid of floats, ping-ponging between two grids. The grid is decomposed
// along its slowest dimension into slabs (GPUs x tiles); a slab's kernel reads
// its slab plus `radius` halo rows (2D) or planes (3D) and writes its slab, so
// neighbouring slabs, on other GPUs too, share the halo pages.
#include <cmath>

#include "traces/generators/generator_registry.h"
#include "traces/generators/hint_variant.h"

namespace umsim::gen {
namespace {

void run_stencil(const GenParams& p, TraceEmitter& t, int dims) {
  const std::uint64_t footprint = p.get_bytes("footprint");
  const int iterations = static_cast<int>(get_int_in(p, "iterations", 1, 1 << 20));
  const int gpus = static_cast<int>(get_int_in(p, "gpus", 1, 64));
  const int tiles = static_cast<int>(get_int_in(p, "tiles", 1, 1 << 12));
  const std::uint64_t radius = static_cast<std::uint64_t>(get_int_in(p, "radius", 1, 64));
  const std::string hints = get_choice(p, "hints", {"none", "prefetch", "advise"});
  const Nanos compute = p.get_duration_ns("compute");
  const std::uint64_t elements = footprint / 2 / 4;  // two float grids
  const auto n = static_cast<std::uint64_t>(std::floor(std::pow(static_cast<double>(elements), 1.0 / dims)));
  const int slabs = gpus * tiles;
  if (n < static_cast<std::uint64_t>(slabs) || n < 2 * radius + 1)
    throw GeneratorError("parameter 'footprint': too small for " + std::to_string(slabs) + " slabs of a " +
                         std::to_string(dims) + "D grid");
  // Bytes of one row (2D) or plane (3D): the unit of the slowest dimension.
  const std::uint64_t unit = (dims == 2 ? n : n * n) * 4;
  const std::uint64_t grid = n * unit;
  const std::string name[2] = {"grid_a", "grid_b"};
  t.comment("grid " + std::to_string(n) + "^" + std::to_string(dims) + " floats, " + std::to_string(slabs) +
            " slabs");
  t.alloc(name[0], grid);
  t.alloc(name[1], grid);

  auto slab = [&](int s) {  // rows/planes [begin, end) of slab s
    return Span{n * s / slabs, n * (s + 1) / slabs};
  };
  auto halo = [&](Span s) {
    return Span{s.begin >= radius ? s.begin - radius : 0, std::min(n, s.end + radius)};
  };
  if (hints == "advise") {
    for (int s = 0; s < slabs; ++s) {
      const int gpu = s / tiles;
      const Span own = slab(s), h = halo(own);
      for (const auto& g : name) {
        t.advise(g, Advice::kSetPreferredLocation, own.begin * unit, own.size() * unit, Processor::gpu(gpu));
        t.advise(g, Advice::kSetAccessedBy, h.begin * unit, h.size() * unit, Processor::gpu(gpu));
      }
    }
  }
  t.phase("init");
  t.write_all(name[0]);
  t.phase("sweep");
  for (int it = 0; it < iterations; ++it) {
    const std::string& in = name[it % 2];
    const std::string& out = name[(it + 1) % 2];
    for (int s = 0; s < slabs; ++s) {
      const int gpu = s / tiles;
      const Span own = slab(s), h = halo(own);
      if (hints == "prefetch") {
        t.prefetch(in, h.begin * unit, h.size() * unit, Processor::gpu(gpu), gpu + 1);
        t.prefetch(out, own.begin * unit, own.size() * unit, Processor::gpu(gpu), gpu + 1);
      }
      t.kernel_begin(dims == 2 ? "jacobi2d" : "jacobi3d", gpu, gpu + 1, compute);
      t.read(in, h.begin * unit, h.size() * unit);
      t.write(out, own.begin * unit, own.size() * unit);
      t.kernel_end();
    }
    // Slabs depend on their neighbours' previous sweep.
    t.sync_all();
  }
  t.phase("readback");
  t.read_all(name[iterations % 2]);
  t.free(name[0]);
  t.free(name[1]);
}

std::vector<ParamSpec> stencil_params() {
  return {footprint_param("64MiB"), iterations_param("4"), gpus_param(),
          {"tiles", ParamType::kInt, "4", "slabs (kernels) per GPU per sweep"},
          {"radius", ParamType::kInt, "1", "halo width in rows (2D) or planes (3D)"},
          hints_param("none | prefetch (slab + halo before each kernel) | advise (PreferredLocation owner GPU, "
                      "AccessedBy on the halo)"),
          compute_param("50us")};
}

UMSIM_REGISTER_GENERATOR("stencil2d",
                         "2D Jacobi stencil over two n x n float grids (ping-pong), slab-decomposed by rows over "
                         "GPUs and tiles; halo rows are shared between neighbouring slabs",
                         (stencil_params()), [](const GenParams& p, TraceEmitter& t) { run_stencil(p, t, 2); });
UMSIM_REGISTER_GENERATOR("stencil3d",
                         "3D Jacobi stencil over two n^3 float grids (ping-pong), slab-decomposed by planes; a halo "
                         "plane is n*n*4 bytes, so halos cover many pages",
                         (stencil_params()), [](const GenParams& p, TraceEmitter& t) { run_stencil(p, t, 3); });

}  // namespace
}  // namespace umsim::gen
