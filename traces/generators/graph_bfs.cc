// bfs: level-synchronous breadth-first search over a seeded directed power-law
// graph in CSR form (row_offsets, col_indices), with a distance array and two
// frontier queues. Out-degrees follow a Pareto law (exponent `alpha`);
// neighbours are drawn with a bias towards a few hub vertices, scattered over
// the id space, so accesses to `dist` are irregular. The graph is virtual:
// vertex v's degree and neighbours are hashes of (seed, v, i); only degrees
// (2 bytes each) and every 64th row offset are stored, so generating needs
// about 2.2 bytes per vertex, not the graph.
#include <algorithm>
#include <cmath>
#include <numeric>

#include "traces/generators/generator_registry.h"
#include "traces/generators/hint_variant.h"
#include "traces/generators/page_touch_set.h"
#include "traces/generators/seeded_random.h"

namespace umsim::gen {
namespace {

class PowerLawGraph {
 public:
  PowerLawGraph(std::uint64_t seed, std::uint64_t vertices, double avg_degree, double alpha)
      : seed_(seed), v_(vertices), alpha_(alpha) {
    // Pareto mean = dmin * (alpha - 1) / (alpha - 2).
    dmin_ = std::max(1.0, avg_degree * (alpha - 2) / (alpha - 1));
    max_degree_ = std::min<std::uint64_t>(v_ - 1, 0xffff);
    block_offset_.resize(v_ / 64 + 2);
    degree_.resize(v_);
    std::uint64_t off = 0;
    for (std::uint64_t v = 0; v < v_; ++v) {
      if (v % 64 == 0) block_offset_[v / 64] = off;
      degree_[v] = static_cast<std::uint16_t>(draw_degree(v));
      off += degree_[v];
    }
    edges_ = off;
    // Multiplier coprime with V: a bijection that scatters hub ranks over ids.
    scatter_ = (0x9e3779b97f4a7c15ULL % v_) | 1;
    while (std::gcd(scatter_, v_) != 1) scatter_ += 2;
  }
  std::uint64_t vertices() const { return v_; }
  std::uint64_t edges() const { return edges_; }
  std::uint64_t degree(std::uint64_t v) const { return degree_[v]; }
  std::uint64_t draw_degree(std::uint64_t v) const {
    const double u = 1.0 - to_unit(hash3(seed_, v, 0));  // (0, 1]
    const double d = dmin_ * std::pow(u, -1.0 / (alpha_ - 1));
    return std::min<std::uint64_t>(max_degree_, static_cast<std::uint64_t>(d));
  }
  std::uint64_t offset(std::uint64_t v) const {
    std::uint64_t off = block_offset_[v / 64];
    for (std::uint64_t u = v / 64 * 64; u < v; ++u) off += degree(u);
    return off;
  }
  std::uint64_t neighbour(std::uint64_t v, std::uint64_t i) const {
    const double u = to_unit(hash3(seed_ ^ 0xabcdefULL, v, i + 1));
    const auto rank = static_cast<std::uint64_t>(static_cast<double>(v_) * u * u * u);  // hubs: small ranks
    const std::uint64_t r = std::min(rank, v_ - 1);
    if (v_ <= 0xffffffffULL) return r * scatter_ % v_;  // fits 64 bits: avoids a 128-bit division
    return static_cast<std::uint64_t>((static_cast<unsigned __int128>(r) * scatter_) % v_);
  }

 private:
  std::uint64_t seed_, v_;
  double alpha_, dmin_ = 1;
  std::uint64_t max_degree_ = 1, edges_ = 0, scatter_ = 1;
  std::vector<std::uint64_t> block_offset_;
  std::vector<std::uint16_t> degree_;
};

void run(const GenParams& p, TraceEmitter& t) {
  const std::uint64_t footprint = p.get_bytes("footprint");
  const int iterations = static_cast<int>(get_int_in(p, "iterations", 1, 1 << 16));
  const int gpus = static_cast<int>(get_int_in(p, "gpus", 1, 64));
  const double avg_degree = static_cast<double>(get_int_in(p, "degree", 1, 1 << 12));
  const double alpha = p.get_double("alpha");
  if (!(alpha > 2.0 && alpha < 10.0)) throw GeneratorError("parameter 'alpha': expected a number in (2, 10)");
  const std::string hints = get_choice(p, "hints", {"none", "prefetch", "advise"});
  const Nanos compute = p.get_duration_ns("compute");
  const std::uint64_t seed = static_cast<std::uint64_t>(p.get_int("seed"));
  // Bytes per vertex: row offset 8, distance 4, two frontier slots 4 + 4, edges 4 each.
  const auto vertices = static_cast<std::uint64_t>(static_cast<double>(footprint) / (20 + 4 * avg_degree));
  if (vertices < 64) throw GeneratorError("parameter 'footprint': too small for a graph of 64 vertices");
  const PowerLawGraph g(seed, vertices, avg_degree, alpha);
  const std::uint64_t edges = std::max<std::uint64_t>(g.edges(), 1);
  t.comment("power-law graph: " + std::to_string(vertices) + " vertices, " + std::to_string(g.edges()) + " edges");

  const std::string frontier_name[2] = {"frontier_a", "frontier_b"};
  t.alloc("row_offsets", (vertices + 1) * 8);
  t.alloc("col_indices", edges * 4);
  t.alloc("dist", vertices * 4);
  t.alloc(frontier_name[0], vertices * 4);
  t.alloc(frontier_name[1], vertices * 4);
  PageTouchSet touched;
  const std::size_t row_offsets = touched.add("row_offsets", (vertices + 1) * 8);
  const std::size_t col_indices = touched.add("col_indices", edges * 4);
  const std::size_t dist = touched.add("dist", vertices * 4);
  const std::size_t frontier[2] = {touched.add(frontier_name[0], vertices * 4),
                                   touched.add(frontier_name[1], vertices * 4)};
  if (hints == "advise") {
    t.advise_all("row_offsets", Advice::kSetReadMostly);
    t.advise_all("col_indices", Advice::kSetReadMostly);
    t.advise_all("dist", Advice::kSetPreferredLocation, Processor::gpu(0));
    for (int gpu = 0; gpu < gpus; ++gpu) t.advise_all("dist", Advice::kSetAccessedBy, Processor::gpu(gpu));
  }
  t.phase("load_graph");
  t.write_all("row_offsets");
  t.write_all("col_indices");
  if (hints == "prefetch")
    for (int gpu = 0; gpu < gpus; ++gpu) {
      t.prefetch_all("row_offsets", Processor::gpu(gpu), gpu + 1);
      t.prefetch_all("col_indices", Processor::gpu(gpu), gpu + 1);
    }

  std::vector<std::uint64_t> visited((vertices + 63) / 64);
  std::vector<std::uint32_t> current, next;
  for (int it = 0; it < iterations; ++it) {
    // Sources: the highest-degree vertex among a seeded sample of 64.
    std::uint64_t source = 0, best = 0;
    for (std::uint64_t k = 0; k < 64; ++k) {
      const std::uint64_t v = to_range(hash3(seed, 0x5eed, it * 64 + k), vertices);
      if (g.degree(v) >= best) best = g.degree(v), source = v;
    }
    t.phase("bfs");
    std::fill(visited.begin(), visited.end(), 0);
    for (int gpu = 0; gpu < gpus; ++gpu) {
      const Span s = page_split(vertices * 4, gpus, gpu);
      if (!s.size()) continue;
      t.kernel_begin("bfs_init", gpu, gpu + 1, compute);
      t.write("dist", s.begin, s.size());
      if (gpu == 0) t.write(frontier_name[0], 0, 4);
      t.kernel_end();
    }
    current.assign(1, static_cast<std::uint32_t>(source));
    visited[source / 64] |= std::uint64_t{1} << (source % 64);
    int cur = 0;
    while (!current.empty()) {
      next.clear();
      for (int gpu = 0; gpu < gpus; ++gpu) {
        const std::size_t begin = current.size() * gpu / gpus, end = current.size() * (gpu + 1) / gpus;
        if (begin == end) continue;
        t.kernel_begin("bfs_expand", gpu, gpu + 1, compute);
        touched.touch(frontier[cur], begin * 4, (end - begin) * 4, AccessType::kRead);
        const std::size_t next_begin = next.size();
        for (std::size_t k = begin; k < end; ++k) {
          const std::uint64_t v = current[k];
          const std::uint64_t off = g.offset(v), deg = g.degree(v);
          touched.touch(row_offsets, v * 8, 16, AccessType::kRead);
          if (deg) touched.touch(col_indices, off * 4, deg * 4, AccessType::kRead);
          for (std::uint64_t i = 0; i < deg; ++i) {
            const std::uint64_t w = g.neighbour(v, i);
            touched.touch(dist, w * 4, 4, AccessType::kRead);
            std::uint64_t& bits = visited[w / 64];
            const std::uint64_t bit = std::uint64_t{1} << (w % 64);
            if (bits & bit) continue;
            bits |= bit;
            touched.touch(dist, w * 4, 4, AccessType::kAtomic);
            next.push_back(static_cast<std::uint32_t>(w));
          }
        }
        if (next.size() > next_begin)
          touched.touch(frontier[1 - cur], next_begin * 4, (next.size() - next_begin) * 4, AccessType::kWrite);
        touched.flush(t);
        t.kernel_end();
      }
      t.sync_all();
      current.swap(next);
      cur = 1 - cur;
    }
    t.phase("result");
    t.read_all("dist");
  }
  t.free("row_offsets");
  t.free("col_indices");
  t.free("dist");
  t.free(frontier_name[0]);
  t.free(frontier_name[1]);
}

UMSIM_REGISTER_GENERATOR("bfs",
                         "level-synchronous BFS over a seeded directed power-law graph in CSR form: irregular "
                         "reads of edge lists and scattered atomic updates of the distance array",
                         ({footprint_param("64MiB"),
                           iterations_param("2"),
                           gpus_param(),
                           {"degree", ParamType::kInt, "16", "average out-degree"},
                           {"alpha", ParamType::kDouble, "2.5", "power-law exponent of the degree distribution"},
                           hints_param("none | prefetch (graph to every GPU after loading) | advise (graph "
                                       "ReadMostly; dist PreferredLocation gpu0, AccessedBy every GPU)"),
                           seed_param(),
                           compute_param("20us")}),
                         run);

}  // namespace
}  // namespace umsim::gen
