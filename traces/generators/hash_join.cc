// hashjoin: a GPU hash join. Build: kernels scan the build relation R and
// insert each 16-byte tuple into an open-addressing table (2 slots per tuple)
// at a hashed slot (scattered atomics). Probe: kernels scan the probe relation
// S and look each key up (scattered reads); matches are appended to an output
// buffer. Keys are seeded; `match` is the fraction of probes that hit.
#include "traces/generators/generator_registry.h"
#include "traces/generators/hint_variant.h"
#include "traces/generators/page_touch_set.h"
#include "traces/generators/seeded_random.h"

namespace umsim::gen {
namespace {

constexpr std::uint64_t kTuple = 16;

void run(const GenParams& p, TraceEmitter& t) {
  const std::uint64_t footprint = p.get_bytes("footprint");
  const int iterations = static_cast<int>(get_int_in(p, "iterations", 1, 1 << 16));
  const int gpus = static_cast<int>(get_int_in(p, "gpus", 1, 64));
  const int chunks = static_cast<int>(get_int_in(p, "chunks", 1, 1 << 12));
  const std::uint64_t ratio = static_cast<std::uint64_t>(get_int_in(p, "probe_ratio", 1, 1024));
  const double match = p.get_double("match");
  if (match < 0 || match > 1) throw GeneratorError("parameter 'match': expected a number in 0..1");
  const std::string hints = get_choice(p, "hints", {"none", "prefetch", "advise"});
  const Nanos compute = p.get_duration_ns("compute");
  const std::uint64_t seed = static_cast<std::uint64_t>(p.get_int("seed"));
  // R + S + table (2 slots per R tuple) + output (one slot per S tuple).
  const std::uint64_t r_tuples = footprint / (kTuple * (1 + ratio + 2 + ratio));
  if (r_tuples < static_cast<std::uint64_t>(chunks))
    throw GeneratorError("parameter 'footprint': too small for " + std::to_string(chunks) + " chunks");
  const std::uint64_t s_tuples = r_tuples * ratio, slots = 2 * r_tuples;
  t.comment("hash join: |R| = " + std::to_string(r_tuples) + ", |S| = " + std::to_string(s_tuples));
  t.alloc("build_rel", r_tuples * kTuple);
  t.alloc("probe_rel", s_tuples * kTuple);
  t.alloc("table", slots * kTuple);
  t.alloc("output", s_tuples * kTuple);
  PageTouchSet touched;
  const std::size_t table = touched.add("table", slots * kTuple);
  const std::size_t output = touched.add("output", s_tuples * kTuple);
  auto key_slot = [&](std::uint64_t key) { return to_range(mix64(key), slots); };
  auto build_key = [&](std::uint64_t i) { return hash3(seed, 1, i); };

  t.phase("load");
  t.write_all("build_rel");
  t.write_all("probe_rel");
  for (int it = 0; it < iterations; ++it) {
    if (hints == "advise") t.advise_all("table", Advice::kSetPreferredLocation, Processor::gpu(0));
    t.phase("build");
    for (int c = 0; c < chunks; ++c) {
      const int gpu = c % gpus;
      const std::uint64_t begin = r_tuples * c / chunks, end = r_tuples * (c + 1) / chunks;
      if (hints == "prefetch")
        t.prefetch("build_rel", begin * kTuple, (end - begin) * kTuple, Processor::gpu(gpu), gpu + 1);
      t.kernel_begin("hash_build", gpu, gpu + 1, compute);
      t.read("build_rel", begin * kTuple, (end - begin) * kTuple);
      for (std::uint64_t i = begin; i < end; ++i)
        touched.touch(table, key_slot(build_key(i)) * kTuple, kTuple, AccessType::kAtomic);
      touched.flush(t);
      t.kernel_end();
    }
    t.sync_all();
    if (hints == "advise") {
      t.advise_all("table", Advice::kUnsetPreferredLocation);
      t.advise_all("table", Advice::kSetReadMostly);
    }
    t.phase("probe");
    std::uint64_t matches = 0;
    for (int c = 0; c < chunks; ++c) {
      const int gpu = c % gpus;
      const std::uint64_t begin = s_tuples * c / chunks, end = s_tuples * (c + 1) / chunks;
      if (hints == "prefetch") {
        t.prefetch("probe_rel", begin * kTuple, (end - begin) * kTuple, Processor::gpu(gpu), gpu + 1);
        t.prefetch_all("table", Processor::gpu(gpu), gpu + 1);
      }
      t.kernel_begin("hash_probe", gpu, gpu + 1, compute);
      t.read("probe_rel", begin * kTuple, (end - begin) * kTuple);
      const std::uint64_t first_match = matches;
      for (std::uint64_t j = begin; j < end; ++j) {
        const std::uint64_t h = hash3(seed, 2, j);
        const bool hit = to_unit(h) < match;
        const std::uint64_t key = hit ? build_key(to_range(mix64(h), r_tuples)) : mix64(h ^ 0x77);
        touched.touch(table, key_slot(key) * kTuple, kTuple, AccessType::kRead);
        if (hit) ++matches;
      }
      if (matches > first_match)
        touched.touch(output, first_match * kTuple, (matches - first_match) * kTuple, AccessType::kWrite);
      touched.flush(t);
      t.kernel_end();
    }
    t.sync_all();
    if (hints == "advise") t.advise_all("table", Advice::kUnsetReadMostly);
    t.phase("result");
    if (matches) t.read("output", 0, matches * kTuple);
  }
  t.free("build_rel");
  t.free("probe_rel");
  t.free("table");
  t.free("output");
}

UMSIM_REGISTER_GENERATOR("hashjoin",
                         "GPU hash join: build kernels scatter atomics into an open-addressing table, probe kernels "
                         "scan the probe relation with scattered table reads and append matches",
                         ({footprint_param("64MiB"), iterations_param("1"), gpus_param(),
                           {"chunks", ParamType::kInt, "8", "kernels per phase (round-robin over GPUs)"},
                           {"probe_ratio", ParamType::kInt, "4", "|S| / |R|"},
                           {"match", ParamType::kDouble, "0.5", "fraction of probe tuples that find a match"},
                           hints_param("none | prefetch (each chunk, and the table before probing) | advise "
                                       "(table PreferredLocation gpu0 while building, ReadMostly while probing)"),
                           seed_param(), compute_param("50us")}),
                         run);

}  // namespace
}  // namespace umsim::gen
