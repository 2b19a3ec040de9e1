// Synthetic traces shared by the trace benchmarks.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <random>
#include <string>

#include "traces/trace_writer.h"

namespace umsim::trace {

// A replay-like trace: a few allocations, kernels of mostly sequential page
// accesses with some strided and random ones, occasional prefetches and syncs.
inline void write_synthetic_trace(const std::string& path, Encoding encoding, std::size_t accesses) {
  auto w = create_trace_writer(path, encoding);
  const char* names[] = {"weights", "activations", "grads", "scratch"};
  constexpr Bytes kSize = 1ull << 32;
  Event alloc;
  alloc.kind = EventKind::kAlloc;
  alloc.length = kSize;
  for (const char* n : names) w->write(alloc, n);
  std::mt19937_64 rng(42);
  Bytes cursor[4] = {};
  std::size_t written = 0;
  int kernel = 0;
  while (written < accesses) {
    Event k;
    k.kind = EventKind::kKernelBegin;
    k.processor = Processor::gpu(0);
    k.stream = 1;
    k.duration = 50000;
    w->write(k, "kernel" + std::to_string(kernel++ % 16));
    for (int i = 0; i < 1000 && written < accesses; ++i, ++written) {
      Event e;
      e.kind = EventKind::kGpuAccess;
      const unsigned a = rng() % 4;
      e.op = static_cast<std::uint8_t>(rng() % 8 == 0 ? AccessType::kWrite : AccessType::kRead);
      const unsigned pattern = rng() % 16;
      if (pattern < 12) {  // sequential pages
        e.offset = cursor[a];
        e.length = kPageSize;
      } else if (pattern < 15) {  // strided range
        e.offset = cursor[a];
        e.length = 64 * kPageSize;
        e.stride = 2 * kPageSize;
      } else {  // random page
        e.offset = (rng() % (kSize / kPageSize)) * kPageSize;
        e.length = kPageSize;
      }
      cursor[a] = (e.offset + e.length) % (kSize - 64 * kPageSize);
      w->write(e, names[a]);
    }
    Event end;
    end.kind = EventKind::kKernelEnd;
    w->write(end, "");
  }
  w->finish();
}

inline std::string temp_path(const char* name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  return (std::filesystem::path(dir != nullptr ? dir : std::filesystem::temp_directory_path().c_str()) / name)
      .string();
}

}  // namespace umsim::trace
