// --gpu-mem resolution shared by replay, sweep and demo: the trace's GPU
// footprint in 2 MiB chunks, and percentages rounded to the nearest chunk.
#include "tools/gpu_memory_spec.h"

#include <gtest/gtest.h>

namespace umsim::cli {
namespace {

constexpr std::uint64_t MiB = 1 << 20;

TraceFootprint footprint_of(const std::string& text) {
  return trace_footprint(*trace::open_trace_from_memory("umsim-trace 1\n" + text));
}

TEST(GpuMemorySpec, FootprintCountsWholeChunksOfLiveManagedAndDeviceAllocations) {
  // a: 3 MiB -> 2 chunks; b: 5 MiB -> 3 chunks; 8 MiB as allocated, 10 MiB in chunks.
  auto f = footprint_of("alloc a 3MiB managed\nalloc b 5MiB managed\n");
  EXPECT_EQ(f.managed_bytes, 8 * MiB);
  EXPECT_EQ(f.gpu_bytes, 10 * MiB);
  // Device memory takes GPU chunks too; pinned and mapped host memory does not.
  f = footprint_of("alloc a 1MiB managed\nalloc d 1KiB device on=gpu0\nalloc h 64MiB pinned\nalloc m 8MiB mapped\n");
  EXPECT_EQ(f.managed_bytes, 1 * MiB);
  EXPECT_EQ(f.gpu_bytes, 4 * MiB);
  // The peak, not the sum: a (4 MiB) is freed before c (6 MiB) arrives beside b (2 MiB).
  f = footprint_of("alloc a 4MiB managed\nalloc b 2MiB managed\nfree a\nalloc c 6MiB managed\nfree b\nfree c\n");
  EXPECT_EQ(f.managed_bytes, 8 * MiB);
  EXPECT_EQ(f.gpu_bytes, 8 * MiB);
  EXPECT_EQ(footprint_of("alloc h 4MiB pinned\n").gpu_bytes, 0u);
}

TEST(GpuMemorySpec, PercentagesRoundToTheNearestChunk) {
  EXPECT_EQ(resolve_gpu_memory("", 64 * MiB), 0u);
  EXPECT_EQ(resolve_gpu_memory("100%", 64 * MiB), 64 * MiB);   // exactly the footprint
  EXPECT_EQ(resolve_gpu_memory("100%", 2 * MiB), 2 * MiB);
  EXPECT_EQ(resolve_gpu_memory("125%", 64 * MiB), 52 * MiB);   // 51.2 MiB = 25.6 chunks -> 26
  EXPECT_EQ(resolve_gpu_memory("150%", 64 * MiB), 42 * MiB);   // 42.67 MiB = 21.33 chunks -> 21
  EXPECT_EQ(resolve_gpu_memory("200%", 58 * MiB), 30 * MiB);   // 29 MiB = 14.5 chunks -> 15 (ties up)
  EXPECT_EQ(resolve_gpu_memory("200%", 60 * MiB), 30 * MiB);
  EXPECT_EQ(resolve_gpu_memory("50%", 10 * MiB), 20 * MiB);    // undersubscription
  EXPECT_EQ(resolve_gpu_memory("1000%", 4 * MiB), 2 * MiB);    // never below one chunk
  EXPECT_EQ(resolve_gpu_memory("3GiB", 64 * MiB), 3ull << 30); // sizes as given
  EXPECT_EQ(resolve_gpu_memory("100%", 1ull << 62), 1ull << 62);  // no overflow
}

TEST(GpuMemorySpec, BadSpecsSayWhatWasExpected) {
  auto error = [](const std::string& spec, std::uint64_t footprint) -> std::string {
    try {
      resolve_gpu_memory(spec, footprint);
    } catch (const std::runtime_error& e) {
      return e.what();
    }
    return "(no error)";
  };
  EXPECT_EQ(error("0%", 64 * MiB), "--gpu-mem: expected a positive percentage like 150%, got '0%'");
  EXPECT_EQ(error("-5%", 64 * MiB), "--gpu-mem: expected a positive percentage like 150%, got '-5%'");
  EXPECT_EQ(error("1.5%", 64 * MiB), "--gpu-mem: expected a positive percentage like 150%, got '1.5%'");
  EXPECT_EQ(error("150%", 0), "--gpu-mem 150%: the trace allocates no managed or device memory to oversubscribe");
  EXPECT_EQ(error("1MiB", 64 * MiB), "--gpu-mem: must be at least 2MiB, got 1MiB");
  EXPECT_NE(error("12GB", 64 * MiB).find("--gpu-mem: "), std::string::npos);
  EXPECT_TRUE(is_oversubscription("150%"));
  EXPECT_FALSE(is_oversubscription("16GiB"));
  EXPECT_FALSE(is_oversubscription(""));
}

}  // namespace
}  // namespace umsim::cli
