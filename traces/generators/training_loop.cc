// training: one GPU training a `layers`-deep network (the seed articles'
// scenario). Each iteration: the CPU preprocesses a batch into `input`
// (data loading / augmentation); forward kernels read each layer's weights and
// the previous activation and write the layer's activation; the last layer
// also writes a small `loss` that the CPU reads (loss.item()); backward
// kernels, last layer first, read weights and activations, read/write the
// activation gradient and write the weight gradients; the optimizer step
// reads the gradients and updates weights and momentum, on the GPU or (as in
// the articles' debugging case) on the CPU after a device synchronisation.
//
// Hint variants (`hints`):
//   none        no hints;
//   prefetch    the batch and all weights are prefetched to the GPU on a copy
//               stream before forward; the compute stream waits on an event;
//   accessed_by AccessedBy gpu0 on the input batch, activations and gradients,
//               set at the first backward pass and kept (unset after the
//               loop): pages the CPU pulls back (the next batch) stay mapped
//               for the GPU, which reads them remotely instead of faulting;
//   read_mostly weights advised ReadMostly once (the optimizer's writes then
//               collapse the read copies every step);
//   all         all three.
#include "traces/generators/generator_registry.h"
#include "traces/generators/hint_variant.h"

namespace umsim::gen {
namespace {

std::string layer_name(const char* what, int l) { return std::string(what) + std::to_string(l); }

void run(const GenParams& p, TraceEmitter& t) {
  const std::uint64_t footprint = p.get_bytes("footprint");
  const int iterations = static_cast<int>(get_int_in(p, "iterations", 1, 1 << 16));
  const int layers = static_cast<int>(get_int_in(p, "layers", 1, 1024));
  const double act_ratio = p.get_double("activation_ratio");
  if (!(act_ratio > 0 && act_ratio <= 64)) throw GeneratorError("parameter 'activation_ratio': expected (0, 64]");
  const std::string hints = get_choice(p, "hints", {"none", "prefetch", "accessed_by", "read_mostly", "all"});
  const std::string optimizer = get_choice(p, "optimizer", {"gpu", "cpu"});
  const Nanos compute = p.get_duration_ns("compute");
  const bool prefetch = hints == "prefetch" || hints == "all";
  const bool accessed_by = hints == "accessed_by" || hints == "all";
  const bool read_mostly = hints == "read_mostly" || hints == "all";
  // Per layer: weights, gradients, momentum (w each) and an activation (ratio * w);
  // plus the input batch and the activation-gradient scratch (one activation each).
  const double units = layers * (3 + act_ratio) + 2 * act_ratio;
  const std::uint64_t w = page_align(static_cast<std::uint64_t>(static_cast<double>(footprint) / units));
  const std::uint64_t a = page_align(static_cast<std::uint64_t>(static_cast<double>(w) * act_ratio));
  if (w < trace::kPageSize || a < trace::kPageSize) throw GeneratorError("parameter 'footprint': too small");
  t.comment("per layer: weights " + std::to_string(w) + " B, activation " + std::to_string(a) + " B");
  t.alloc("input", a);
  t.alloc("dact", a);
  t.alloc("loss", trace::kPageSize);
  for (int l = 0; l < layers; ++l) {
    t.alloc(layer_name("w", l), w);
    t.alloc(layer_name("g", l), w);
    t.alloc(layer_name("m", l), w);
    t.alloc(layer_name("act", l), a);
  }
  const StreamId compute_stream = 1, copy_stream = 2;
  const Processor gpu0 = Processor::gpu(0);
  t.phase("init");
  for (int l = 0; l < layers; ++l) {  // parameters initialised on the host
    t.write_all(layer_name("w", l));
    t.write_all(layer_name("m", l));
  }
  if (read_mostly)
    for (int l = 0; l < layers; ++l) t.advise_all(layer_name("w", l), Advice::kSetReadMostly);
  auto previous_activation = [&](int l) { return l == 0 ? std::string("input") : layer_name("act", l - 1); };

  for (int it = 0; it < iterations; ++it) {
    t.phase("preprocess");
    t.write_all("input");
    if (prefetch) {
      t.prefetch_all("input", gpu0, copy_stream);
      for (int l = 0; l < layers; ++l) t.prefetch_all(layer_name("w", l), gpu0, copy_stream);
      t.event_record("batch_ready", copy_stream);
      t.event_wait("batch_ready", compute_stream);
    }
    t.phase("forward");
    for (int l = 0; l < layers; ++l) {
      t.kernel_begin(layer_name("fwd", l), 0, compute_stream, compute);
      t.read_all(layer_name("w", l));
      t.read_all(previous_activation(l));
      t.write_all(layer_name("act", l));
      if (l == layers - 1) t.write_all("loss");
      t.kernel_end();
    }
    t.sync_stream(compute_stream);
    t.read_all("loss");  // the host logs the loss
    t.phase("backward");
    if (accessed_by && it == 0) {
      t.advise_all("input", Advice::kSetAccessedBy, gpu0);
      t.advise_all("dact", Advice::kSetAccessedBy, gpu0);
      for (int l = 0; l < layers; ++l) {
        t.advise_all(layer_name("act", l), Advice::kSetAccessedBy, gpu0);
        t.advise_all(layer_name("g", l), Advice::kSetAccessedBy, gpu0);
      }
    }
    for (int l = layers - 1; l >= 0; --l) {
      t.kernel_begin(layer_name("bwd", l), 0, compute_stream, compute * 2);
      t.read_all(layer_name("w", l));
      t.read_all(layer_name("act", l));
      t.read_all(previous_activation(l));
      t.read_all("dact");
      t.write_all("dact");
      t.write_all(layer_name("g", l));
      t.kernel_end();
    }
    t.phase("optimizer");
    if (optimizer == "gpu") {
      for (int l = 0; l < layers; ++l) {
        t.kernel_begin(layer_name("sgd", l), 0, compute_stream, compute / 4);
        t.read_all(layer_name("g", l));
        t.read_all(layer_name("m", l));
        t.write_all(layer_name("m", l));
        t.write_all(layer_name("w", l));
        t.kernel_end();
      }
      t.sync_all();
    } else {
      t.sync_all();  // the articles' fix: synchronise before the host optimizer touches weights
      for (int l = 0; l < layers; ++l) {
        t.read_all(layer_name("g", l));
        t.read_all(layer_name("m", l));
        t.write_all(layer_name("m", l));
        t.write_all(layer_name("w", l));
      }
    }
  }
  if (accessed_by) {
    t.advise_all("input", Advice::kUnsetAccessedBy, gpu0);
    t.advise_all("dact", Advice::kUnsetAccessedBy, gpu0);
    for (int l = 0; l < layers; ++l) {
      t.advise_all(layer_name("act", l), Advice::kUnsetAccessedBy, gpu0);
      t.advise_all(layer_name("g", l), Advice::kUnsetAccessedBy, gpu0);
    }
  }
  t.free("input");
  t.free("dact");
  t.free("loss");
  for (int l = 0; l < layers; ++l)
    for (const char* what : {"w", "g", "m", "act"}) t.free(layer_name(what, l));
}

UMSIM_REGISTER_GENERATOR("training",
                         "training loop on one GPU: CPU preprocessing -> forward -> backward -> optimizer step, "
                         "per-layer weights / gradients / momentum / activations in managed memory",
                         ({footprint_param("128MiB"), iterations_param("3"),
                           {"layers", ParamType::kInt, "8", "network depth"},
                           {"activation_ratio", ParamType::kDouble, "1.0", "activation bytes per weight byte"},
                           hints_param("none | prefetch (batch + weights before forward) | accessed_by (AccessedBy "
                                       "gpu0 from the first backward on) | read_mostly (weights ReadMostly) | all"),
                           {"optimizer", ParamType::kString, "gpu", "where the optimizer step runs: gpu | cpu"},
                           compute_param("100us")}),
                         run);

}  // namespace
}  // namespace umsim::gen
