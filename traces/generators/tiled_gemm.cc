// gemm: C = A x B over n x n row-major float matrices, blocked in t x t tiles.
// One kernel per C tile (i, j) walks k: it reads A tile (i, k) and B tile
// (k, j), each a strided set of t row segments, then reads and writes C (i, j).
// Tile rows of C are assigned to GPUs round-robin.
#include <cmath>

#include "traces/generators/generator_registry.h"
#include "traces/generators/hint_variant.h"

namespace umsim::gen {
namespace {

struct Matrix {
  std::string name;
  std::uint64_t n;  // elements per row

  // Emits the accesses covering tile (ti, tj) of size t: t row segments of t
  // floats, one matrix row apart. A strided event touches one address per row,
  // so a segment longer than a page is covered by several shifted events.
  void tile(TraceEmitter& b, AccessType type, std::uint64_t ti, std::uint64_t tj, std::uint64_t t) const {
    const std::uint64_t row = n * 4, seg = t * 4;
    const std::uint64_t first = (ti * t * n + tj * t) * 4;
    const std::uint64_t length = (t - 1) * row + seg;
    if (row <= trace::kPageSize) {  // rows are adjacent at page granularity: one contiguous range
      b.access(name, type, first, length);
      return;
    }
    for (std::uint64_t shift = 0;; shift += trace::kPageSize) {
      const std::uint64_t s = std::min(shift, seg - 1);
      b.access(name, type, first + s, length - s, row);
      if (s == seg - 1) break;
    }
  }
};

void run(const GenParams& p, TraceEmitter& b) {
  const std::uint64_t footprint = p.get_bytes("footprint");
  const int iterations = static_cast<int>(get_int_in(p, "iterations", 1, 1 << 20));
  const int gpus = static_cast<int>(get_int_in(p, "gpus", 1, 64));
  const std::uint64_t t = static_cast<std::uint64_t>(get_int_in(p, "tile", 1, 1 << 16));
  const std::string hints = get_choice(p, "hints", {"none", "prefetch", "advise"});
  const Nanos compute = p.get_duration_ns("compute");
  const auto side = static_cast<std::uint64_t>(std::floor(std::sqrt(static_cast<double>(footprint / 12))));
  const std::uint64_t tiles = side / t;
  if (tiles == 0) throw GeneratorError("parameter 'footprint': too small for one " + std::to_string(t) + "x" +
                                       std::to_string(t) + " tile (three float matrices)");
  const std::uint64_t n = tiles * t;
  const Matrix A{"A", n}, B{"B", n}, C{"C", n};
  b.comment("matrices " + std::to_string(n) + "x" + std::to_string(n) + " floats, " + std::to_string(tiles) + "x" +
            std::to_string(tiles) + " tiles");
  for (const Matrix* m : {&A, &B, &C}) b.alloc(m->name, n * n * 4);
  const std::uint64_t block_row = t * n * 4;  // bytes of one tile row of a matrix
  auto gpu_of = [&](std::uint64_t ti) { return static_cast<int>(ti % gpus); };
  if (hints == "advise") {
    b.advise_all("A", Advice::kSetReadMostly);
    b.advise_all("B", Advice::kSetReadMostly);
    for (std::uint64_t ti = 0; ti < tiles; ++ti)
      b.advise("C", Advice::kSetPreferredLocation, ti * block_row, block_row, Processor::gpu(gpu_of(ti)));
  }
  b.phase("init");
  b.write_all("A");
  b.write_all("B");
  b.phase("gemm");
  for (int it = 0; it < iterations; ++it) {
    if (hints == "prefetch") {
      for (int g = 0; g < gpus; ++g) b.prefetch_all("B", Processor::gpu(g), g + 1);
      for (std::uint64_t ti = 0; ti < tiles; ++ti) {
        const int g = gpu_of(ti);
        b.prefetch("A", ti * block_row, block_row, Processor::gpu(g), g + 1);
        b.prefetch("C", ti * block_row, block_row, Processor::gpu(g), g + 1);
      }
    }
    for (std::uint64_t ti = 0; ti < tiles; ++ti) {
      for (std::uint64_t tj = 0; tj < tiles; ++tj) {
        const int g = gpu_of(ti);
        b.kernel_begin("gemm_tile", g, g + 1, compute);
        for (std::uint64_t tk = 0; tk < tiles; ++tk) {
          A.tile(b, AccessType::kRead, ti, tk, t);
          B.tile(b, AccessType::kRead, tk, tj, t);
        }
        C.tile(b, AccessType::kRead, ti, tj, t);
        C.tile(b, AccessType::kWrite, ti, tj, t);
        b.kernel_end();
      }
    }
    b.sync_all();
  }
  b.phase("readback");
  b.read_all("C");
  for (const Matrix* m : {&A, &B, &C}) b.free(m->name);
}

UMSIM_REGISTER_GENERATOR("gemm",
                         "tiled dense matrix multiply C = A x B (three n x n float matrices): one kernel per C tile "
                         "reads a row of A tiles and a column of B tiles (strided row segments)",
                         ({footprint_param("48MiB"), iterations_param("1"), gpus_param(),
                           {"tile", ParamType::kInt, "256", "tile edge in elements"},
                           hints_param("none | prefetch (B everywhere, each GPU's A and C tile rows) | advise (A, B "
                                       "ReadMostly; C PreferredLocation its GPU)"),
                           compute_param("100us")}),
                         run);

}  // namespace
}  // namespace umsim::gen
