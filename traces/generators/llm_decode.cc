// llm_decode: autoregressive LLM inference with a KV cache in managed memory.
// Per layer a KV cache sized for `batch` sequences of prompt + tokens is
// allocated up front; managed memory only backs the pages that are touched,
// so the resident cache grows by one token per step. Prefill writes the
// prompt's keys and values; each decode step reads every layer's weights and
// the cache so far and appends one token; the last kernel writes logits that
// the CPU samples from, and the CPU writes the next token ids back.
// With gpus > 1 the layers are split into pipeline stages, one per GPU, and
// the hidden state moves between them.
#include "traces/generators/generator_registry.h"
#include "traces/generators/hint_variant.h"

namespace umsim::gen {
namespace {

void run(const GenParams& p, TraceEmitter& t) {
  const std::uint64_t weights = p.get_bytes("footprint");
  const int layers = static_cast<int>(get_int_in(p, "layers", 1, 1024));
  const int gpus = static_cast<int>(get_int_in(p, "gpus", 1, 64));
  const std::uint64_t batch = static_cast<std::uint64_t>(get_int_in(p, "batch", 1, 4096));
  const std::uint64_t prompt = static_cast<std::uint64_t>(get_int_in(p, "prompt", 1, 1 << 20));
  const std::uint64_t tokens = static_cast<std::uint64_t>(get_int_in(p, "iterations", 1, 1 << 20));
  const std::uint64_t kv_token = p.get_bytes("kv_per_token");
  const std::string hints = get_choice(p, "hints", {"none", "prefetch", "advise"});
  const Nanos compute = p.get_duration_ns("compute");
  if (kv_token == 0) throw GeneratorError("parameter 'kv_per_token': must be positive");
  const std::uint64_t layer_weights = page_align(weights / (layers + 1));  // + the LM head
  const std::uint64_t max_tokens = prompt + tokens;
  const std::uint64_t seq_bytes = max_tokens * kv_token;  // one sequence's cache in one layer
  const std::uint64_t kv_bytes = page_align(batch * seq_bytes);
  const std::uint64_t hidden = page_align(batch * 16 * 1024);
  const std::uint64_t logits = page_align(batch * 128 * 1024);
  auto w = [](int l) { return "w" + std::to_string(l); };
  auto kv = [](int l) { return "kv" + std::to_string(l); };
  auto gpu_of = [&](int l) { return static_cast<int>(static_cast<std::int64_t>(l) * gpus / layers); };

  t.comment("KV cache per layer: " + std::to_string(kv_bytes) + " B for " + std::to_string(batch) + " x " +
            std::to_string(max_tokens) + " tokens");
  for (int l = 0; l < layers; ++l) {
    t.alloc(w(l), layer_weights);
    t.alloc(kv(l), kv_bytes);
  }
  t.alloc("lm_head", layer_weights);
  t.alloc("hidden", hidden);
  t.alloc("logits", logits);
  t.alloc("token_ids", trace::kPageSize);
  t.phase("load_weights");
  for (int l = 0; l < layers; ++l) t.write_all(w(l));
  t.write_all("lm_head");
  if (hints == "advise") {
    for (int l = 0; l < layers; ++l) {
      t.advise_all(w(l), Advice::kSetReadMostly);
      t.advise_all(kv(l), Advice::kSetPreferredLocation, Processor::gpu(gpu_of(l)));
    }
    t.advise_all("lm_head", Advice::kSetReadMostly);
    t.advise_all("logits", Advice::kSetAccessedBy, Processor::cpu());
  }
  if (hints == "prefetch") {
    for (int l = 0; l < layers; ++l) t.prefetch_all(w(l), Processor::gpu(gpu_of(l)), 1);
    t.prefetch_all("lm_head", Processor::gpu(gpus - 1), 1);
  }
  // One forward pass over `count` new tokens per sequence, positions [first, first + count).
  auto step = [&](std::uint64_t first, std::uint64_t count, const char* kernel) {
    t.write_all("token_ids");
    for (int l = 0; l < layers; ++l) {
      const int gpu = gpu_of(l);
      if (hints == "prefetch") {
        // The cache's new tokens are written first by this layer: prefetch them with the step.
        for (std::uint64_t s = 0; s < batch; ++s)
          t.prefetch(kv(l), page_floor(s * seq_bytes + first * kv_token),
                     page_align(s * seq_bytes + (first + count) * kv_token) - page_floor(s * seq_bytes + first * kv_token),
                     Processor::gpu(gpu), 1);
      }
      t.kernel_begin(kernel, gpu, 1, compute);
      if (l == 0) t.read_all("token_ids");
      t.read_all(w(l));
      t.read_all("hidden");
      for (std::uint64_t s = 0; s < batch; ++s) {
        if (first) t.read(kv(l), s * seq_bytes, first * kv_token);  // attention over the cache so far
        t.write(kv(l), s * seq_bytes + first * kv_token, count * kv_token);
      }
      t.write_all("hidden");
      t.kernel_end();
    }
    t.kernel_begin("lm_head", gpu_of(layers - 1), 1, compute);
    t.read_all("lm_head");
    t.read_all("hidden");
    t.write_all("logits");
    t.kernel_end();
    t.sync_stream(1);
    t.read_all("logits");  // sampling on the host
  };
  t.phase("prefill");
  step(0, prompt, "prefill");
  t.phase("decode");
  for (std::uint64_t k = 0; k < tokens; ++k) step(prompt + k, 1, "decode");
  for (int l = 0; l < layers; ++l) {
    t.free(w(l));
    t.free(kv(l));
  }
  for (const char* n : {"lm_head", "hidden", "logits", "token_ids"}) t.free(n);
}

UMSIM_REGISTER_GENERATOR("llm_decode",
                         "LLM inference: prefill then token-by-token decoding with a per-layer KV cache in managed "
                         "memory that grows by one token per step; logits sampled on the CPU",
                         ({{"footprint", ParamType::kBytes, "64MiB", "model weight bytes (layers + LM head)"},
                           {"iterations", ParamType::kInt, "32", "tokens generated per sequence"},
                           gpus_param(),
                           {"layers", ParamType::kInt, "8", "transformer layers (pipeline-split over GPUs)"},
                           {"batch", ParamType::kInt, "4", "sequences decoded together"},
                           {"prompt", ParamType::kInt, "128", "prompt tokens per sequence"},
                           {"kv_per_token", ParamType::kBytes, "8KiB", "K and V bytes per token per layer"},
                           hints_param("none | prefetch (weights once, each step's new cache pages) | advise "
                                       "(weights ReadMostly, cache PreferredLocation its GPU, logits AccessedBy cpu)"),
                           compute_param("30us")}),
                         run);

}  // namespace
}  // namespace umsim::gen
