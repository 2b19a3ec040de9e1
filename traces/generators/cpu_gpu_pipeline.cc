// pipeline: CPU preprocess -> GPU compute -> CPU postprocess over a stream of
// batches, with `slots` buffer pairs in flight (double buffering by default):
// while the GPU computes batch b on slot b % slots, the CPU postprocesses an
// older batch and prepares the next. Each slot has its own stream. With
// hints=copies the buffers are device memory fed by explicit asynchronous
// copies from pinned host buffers and back (trace format version 2).
#include "traces/generators/generator_registry.h"
#include "traces/generators/hint_variant.h"

namespace umsim::gen {
namespace {

void run(const GenParams& p, TraceEmitter& t) {
  const std::uint64_t batch = page_align(p.get_bytes("footprint"));
  const int batches = static_cast<int>(get_int_in(p, "iterations", 1, 1 << 20));
  const int slots = static_cast<int>(get_int_in(p, "slots", 1, 64));
  const int gpus = static_cast<int>(get_int_in(p, "gpus", 1, 64));
  const double out_ratio = p.get_double("output_ratio");
  if (!(out_ratio > 0 && out_ratio <= 16)) throw GeneratorError("parameter 'output_ratio': expected (0, 16]");
  const std::string hints = get_choice(p, "hints", {"none", "prefetch", "advise", "copies"});
  const bool copies = hints == "copies";
  const Nanos compute = p.get_duration_ns("compute");
  if (batch == 0) throw GeneratorError("parameter 'footprint': must be positive");
  const std::uint64_t out_bytes = page_align(static_cast<std::uint64_t>(static_cast<double>(batch) * out_ratio));
  auto in = [](int s) { return "in" + std::to_string(s); };
  auto out = [](int s) { return "out" + std::to_string(s); };
  auto gpu_of = [&](int s) { return s % gpus; };
  auto stream_of = [](int s) { return static_cast<StreamId>(s + 1); };
  for (int s = 0; s < slots; ++s) {
    const AllocKind kind = copies ? AllocKind::kDevice : AllocKind::kManaged;
    const Processor placement = copies ? Processor::gpu(gpu_of(s)) : Processor::none();
    t.alloc(in(s), batch, kind, placement);
    t.alloc(out(s), out_bytes, kind, placement);
    if (hints == "advise") {
      // Host-resident buffers the GPU maps remotely (zero-copy-like): no migration either way.
      for (const std::string& b : {in(s), out(s)}) {
        t.advise_all(b, Advice::kSetPreferredLocation, Processor::cpu());
        t.advise_all(b, Advice::kSetAccessedBy, Processor::gpu(gpu_of(s)));
      }
    }
  }
  auto postprocess = [&](int s) {
    t.sync_stream(stream_of(s));
    t.phase("postprocess");
    if (!copies) t.read_all(out(s));
  };
  for (int b = 0; b < batches; ++b) {
    const int s = b % slots;
    if (b >= slots) postprocess(s);
    t.phase("preprocess");
    if (!copies) t.write_all(in(s));
    t.phase("compute");
    if (hints == "prefetch") t.prefetch_all(in(s), Processor::gpu(gpu_of(s)), stream_of(s));
    if (copies)
      t.copy_host(trace::CopyKind::kFromPinnedHost, in(s), 0, batch, gpu_of(s), stream_of(s), /*async=*/true);
    t.kernel_begin("process_batch", gpu_of(s), stream_of(s), compute);
    t.read_all(in(s));
    t.write_all(out(s));
    t.kernel_end();
    if (hints == "prefetch") t.prefetch_all(out(s), Processor::cpu(), stream_of(s));
    if (copies)
      t.copy_host(trace::CopyKind::kToPinnedHost, out(s), 0, out_bytes, gpu_of(s), stream_of(s), /*async=*/true);
  }
  for (int b = std::max(0, batches - slots); b < batches; ++b) postprocess(b % slots);
  for (int s = 0; s < slots; ++s) {
    t.free(in(s));
    t.free(out(s));
  }
}

UMSIM_REGISTER_GENERATOR_VERSIONED("pipeline",
                         "CPU preprocess -> GPU compute -> CPU postprocess over a stream of batches with `slots` "
                         "buffer pairs in flight, one stream per slot",
                         ({{"footprint", ParamType::kBytes, "8MiB", "input bytes per batch"},
                           {"iterations", ParamType::kInt, "16", "batches"},
                           gpus_param(),
                           {"slots", ParamType::kInt, "2", "buffer pairs in flight (2 = double buffering)"},
                           {"output_ratio", ParamType::kDouble, "0.5", "output bytes per input byte"},
                           hints_param("none | prefetch (input to the GPU before the kernel, output back after) | "
                                       "advise (PreferredLocation cpu + AccessedBy gpu: remote access) | "
                                       "copies (device buffers, async pinned copies in and out: format version 2)"),
                           compute_param("200us")}),
                         run, [](const GenParams& p) { return p.get_string("hints") == "copies" ? 2 : 1; });

}  // namespace
}  // namespace umsim::gen
