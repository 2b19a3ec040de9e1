// random: uniformly random page touches (a GUPS / table-lookup kernel) over one
// table; seeded, so the same seed touches the same pages in the same order.
#include "traces/generators/generator_registry.h"
#include "traces/generators/hint_variant.h"
#include "traces/generators/page_touch_set.h"
#include "traces/generators/seeded_random.h"

namespace umsim::gen {
namespace {

void run(const GenParams& p, TraceEmitter& t) {
  const std::uint64_t footprint = page_align(p.get_bytes("footprint"));
  const int iterations = static_cast<int>(get_int_in(p, "iterations", 1, 1 << 20));
  const int gpus = static_cast<int>(get_int_in(p, "gpus", 1, 64));
  const std::int64_t accesses = get_int_in(p, "accesses", 1, std::int64_t{1} << 32);
  const double write_fraction = p.get_double("write_fraction");
  if (write_fraction < 0 || write_fraction > 1)
    throw GeneratorError("parameter 'write_fraction': expected a number in 0..1");
  const std::string hints = get_choice(p, "hints", {"none", "prefetch", "advise"});
  const Nanos compute = p.get_duration_ns("compute");
  if (footprint == 0) throw GeneratorError("parameter 'footprint': must be positive");
  SeededRandom rng(static_cast<std::uint64_t>(p.get_int("seed")));

  t.alloc("table", footprint);
  PageTouchSet touched;
  const std::size_t table = touched.add("table", footprint);
  const std::uint64_t pages = footprint / trace::kPageSize;
  if (hints == "advise") {
    t.advise_all("table", Advice::kSetPreferredLocation, Processor::gpu(0));
    for (int g = 0; g < gpus; ++g) t.advise_all("table", Advice::kSetAccessedBy, Processor::gpu(g));
  }
  t.phase("init");
  t.write_all("table");
  t.phase("random");
  for (int it = 0; it < iterations; ++it) {
    for (int g = 0; g < gpus; ++g) {
      if (hints == "prefetch") t.prefetch_all("table", Processor::gpu(g), g + 1);
      t.kernel_begin("random_update", g, g + 1, compute);
      for (std::int64_t a = 0; a < accesses; ++a) {
        const std::uint64_t page = rng.below(pages);
        touched.touch_page(table, page, rng.unit() < write_fraction ? AccessType::kWrite : AccessType::kRead);
      }
      touched.flush(t);
      t.kernel_end();
    }
  }
  t.sync_all();
  t.free("table");
}

UMSIM_REGISTER_GENERATOR("random",
                         "uniformly random page touches over one table (GUPS-like); each kernel makes `accesses` "
                         "seeded random reads or writes, reduced to page-granular ranges",
                         ({footprint_param("64MiB"), iterations_param("4"), gpus_param(),
                           {"accesses", ParamType::kInt, "4096", "random accesses per kernel"},
                           {"write_fraction", ParamType::kDouble, "0.25", "fraction of accesses that write"},
                           hints_param("none | prefetch (whole table before each kernel) | advise (PreferredLocation "
                                       "gpu0, AccessedBy every GPU)"),
                           seed_param(), compute_param("20us")}),
                         run);

}  // namespace
}  // namespace umsim::gen
