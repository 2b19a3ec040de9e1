#include "tools/gpu_memory_spec.h"

#include <algorithm>
#include <stdexcept>
#include <vector>

#include "traces/units.h"

namespace umsim::cli {
namespace {

constexpr std::uint64_t kChunk = 2ull << 20;

std::uint64_t in_chunks(std::uint64_t bytes) {
  return bytes / kChunk + (bytes % kChunk != 0);
}

}  // namespace

TraceFootprint trace_footprint(trace::TraceReader& reader) {
  TraceFootprint f;
  // Live allocations by name id: chunks held on a GPU (managed or device) and
  // managed bytes; a name re-allocated while live keeps its first allocation
  // (the model rejects such traces when it replays them).
  struct Live {
    bool live = false;
    std::uint64_t chunks = 0, managed = 0;
  };
  std::vector<Live> live;
  std::uint64_t chunks = 0, managed = 0;
  std::vector<trace::Event> batch(4096);
  for (std::size_t n; (n = reader.read(batch)) > 0;) {
    if (live.size() < reader.names().size()) live.resize(reader.names().size());
    for (std::size_t i = 0; i < n; ++i) {
      const trace::Event& e = batch[i];
      if (e.kind == trace::EventKind::kAlloc) {
        Live& l = live[e.name];
        if (l.live) continue;
        const auto kind = e.alloc_kind();
        const bool on_gpu = kind == trace::AllocKind::kManaged || kind == trace::AllocKind::kDevice;
        l = Live{true, on_gpu ? in_chunks(e.length) : 0, kind == trace::AllocKind::kManaged ? e.length : 0};
        chunks += l.chunks;
        managed += l.managed;
        f.gpu_bytes = std::max(f.gpu_bytes, chunks * kChunk);
        f.managed_bytes = std::max(f.managed_bytes, managed);
      } else if (e.kind == trace::EventKind::kFree && e.name < live.size() && live[e.name].live) {
        chunks -= live[e.name].chunks;
        managed -= live[e.name].managed;
        live[e.name] = Live{};
      }
    }
  }
  return f;
}

bool is_oversubscription(const std::string& spec) { return !spec.empty() && spec.back() == '%'; }

std::uint64_t resolve_gpu_memory(const std::string& spec, std::uint64_t footprint) {
  if (spec.empty()) return 0;
  if (is_oversubscription(spec)) {
    const auto pct = trace::parse_unsigned(spec.substr(0, spec.size() - 1));
    if (!pct.ok() || pct.value == 0)
      throw std::runtime_error("--gpu-mem: expected a positive percentage like 150%, got '" + spec + "'");
    if (footprint == 0)
      throw std::runtime_error("--gpu-mem " + spec +
                               ": the trace allocates no managed or device memory to oversubscribe");
    // Nearest whole chunk to footprint * 100 / pct (ties up), in 128-bit arithmetic.
    const auto twice_chunks = static_cast<unsigned __int128>(footprint) * 200 / pct.value / kChunk;
    const auto chunks = static_cast<std::uint64_t>((twice_chunks + 1) / 2);
    return chunks == 0 ? kChunk : chunks * kChunk;
  }
  const auto size = trace::parse_bytes(spec);
  if (!size.ok()) throw std::runtime_error("--gpu-mem: " + size.error);
  if (size.value < kChunk) throw std::runtime_error("--gpu-mem: must be at least 2MiB, got " + spec);
  return size.value;
}

}  // namespace umsim::cli
