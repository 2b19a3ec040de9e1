// data_parallel: one data-parallel training step per iteration on `gpus` GPUs
// sharing one managed parameter buffer. Every GPU preprocesses-then-reads its
// own batch, runs forward and backward over all layers' parameters (read by
// every GPU), then a reduce-scatter: GPU g reads slice g of every GPU's
// gradients (peer reads) and writes the sum into its own; finally each GPU
// updates its shard of the parameters (a ZeRO-1 style optimizer). The next
// iteration's forward reads the shards every other GPU wrote.
#include "traces/generators/generator_registry.h"
#include "traces/generators/hint_variant.h"

namespace umsim::gen {
namespace {

void run(const GenParams& p, TraceEmitter& t) {
  const std::uint64_t footprint = p.get_bytes("footprint");
  const int iterations = static_cast<int>(get_int_in(p, "iterations", 1, 1 << 16));
  const int gpus = static_cast<int>(get_int_in(p, "gpus", 1, 64));
  const int layers = static_cast<int>(get_int_in(p, "layers", 1, 1024));
  const double act_ratio = p.get_double("activation_ratio");
  if (!(act_ratio > 0 && act_ratio <= 64)) throw GeneratorError("parameter 'activation_ratio': expected (0, 64]");
  const std::string hints = get_choice(p, "hints", {"none", "prefetch", "advise"});
  const Nanos compute = p.get_duration_ns("compute");
  // params P + momentum P + per GPU: gradients P, activations act_ratio * P, batch act_ratio * P / layers.
  const double units = 2 + gpus * (1 + act_ratio + act_ratio / layers);
  const std::uint64_t layer_params =
      page_align(static_cast<std::uint64_t>(static_cast<double>(footprint) / units / layers));
  const std::uint64_t params = layer_params * layers;
  const std::uint64_t layer_act = page_align(static_cast<std::uint64_t>(static_cast<double>(layer_params) * act_ratio));
  if (layer_params < trace::kPageSize * gpus) throw GeneratorError("parameter 'footprint': too small");
  auto name = [](const char* what, int g) { return std::string(what) + std::to_string(g); };
  t.alloc("params", params);
  t.alloc("momentum", params);
  for (int g = 0; g < gpus; ++g) {
    t.alloc(name("grads", g), params);
    t.alloc(name("act", g), layer_act * layers);
    t.alloc(name("batch", g), layer_act);
  }
  if (hints == "advise") {
    t.advise_all("params", Advice::kSetReadMostly);
    for (int g = 0; g < gpus; ++g) {
      const Span shard = page_split(params, gpus, g);
      t.advise("momentum", Advice::kSetPreferredLocation, shard.begin, shard.size(), Processor::gpu(g));
      for (const char* what : {"grads", "act", "batch"})
        t.advise_all(name(what, g), Advice::kSetPreferredLocation, Processor::gpu(g));
      for (int h = 0; h < gpus; ++h)  // peers read this GPU's gradient slices in the reduce-scatter
        if (h != g) t.advise_all(name("grads", g), Advice::kSetAccessedBy, Processor::gpu(h));
    }
  }
  t.phase("init");
  t.write_all("params");
  t.write_all("momentum");
  for (int it = 0; it < iterations; ++it) {
    t.phase("preprocess");
    for (int g = 0; g < gpus; ++g) t.write_all(name("batch", g));
    if (hints == "prefetch")
      for (int g = 0; g < gpus; ++g) {
        t.prefetch_all(name("batch", g), Processor::gpu(g), g + 1);
        t.prefetch_all("params", Processor::gpu(g), g + 1);
      }
    t.phase("forward");
    for (int l = 0; l < layers; ++l)
      for (int g = 0; g < gpus; ++g) {
        t.kernel_begin("fwd" + std::to_string(l), g, g + 1, compute);
        t.read("params", l * layer_params, layer_params);
        if (l == 0) t.read_all(name("batch", g));
        else t.read(name("act", g), (l - 1) * layer_act, layer_act);
        t.write(name("act", g), l * layer_act, layer_act);
        t.kernel_end();
      }
    t.phase("backward");
    for (int l = layers - 1; l >= 0; --l)
      for (int g = 0; g < gpus; ++g) {
        t.kernel_begin("bwd" + std::to_string(l), g, g + 1, compute * 2);
        t.read("params", l * layer_params, layer_params);
        t.read(name("act", g), l * layer_act, layer_act);
        t.write(name("grads", g), l * layer_params, layer_params);
        t.kernel_end();
      }
    t.sync_all();
    t.phase("allreduce");
    for (int g = 0; g < gpus; ++g) {
      const Span shard = page_split(params, gpus, g);
      if (!shard.size()) continue;
      t.kernel_begin("reduce_scatter", g, g + 1, compute / 2);
      for (int h = 0; h < gpus; ++h) t.read(name("grads", h), shard.begin, shard.size());
      t.write(name("grads", g), shard.begin, shard.size());
      t.kernel_end();
    }
    t.sync_all();
    t.phase("optimizer");
    for (int g = 0; g < gpus; ++g) {
      const Span shard = page_split(params, gpus, g);
      if (!shard.size()) continue;
      t.kernel_begin("sgd_shard", g, g + 1, compute / 2);
      t.read(name("grads", g), shard.begin, shard.size());
      t.read("momentum", shard.begin, shard.size());
      t.write("momentum", shard.begin, shard.size());
      t.write("params", shard.begin, shard.size());
      t.kernel_end();
    }
    t.sync_all();
  }
  t.free("params");
  t.free("momentum");
  for (int g = 0; g < gpus; ++g)
    for (const char* what : {"grads", "act", "batch"}) t.free(name(what, g));
}

UMSIM_REGISTER_GENERATOR("data_parallel",
                         "multi-GPU data-parallel training step: shared managed parameters read by every GPU, "
                         "per-GPU activations and gradients, reduce-scatter through peer reads, sharded optimizer",
                         ({footprint_param("128MiB"), iterations_param("2"), gpus_param("2"),
                           {"layers", ParamType::kInt, "4", "network depth"},
                           {"activation_ratio", ParamType::kDouble, "0.5", "activation bytes per parameter byte"},
                           hints_param("none | prefetch (batch and all parameters to every GPU before forward) | "
                                       "advise (parameters ReadMostly, per-GPU buffers PreferredLocation their GPU, "
                                       "gradients AccessedBy peers)"),
                           compute_param("100us")}),
                         run);

}  // namespace
}  // namespace umsim::gen
