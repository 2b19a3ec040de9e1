// Plans built from checked-in text traces (the validation suite) through
// open_trace: counts computed by hand from the trace text.
#include <gtest/gtest.h>

#include "hip_backend/plan.h"
#include "hip_backend/safety.h"
#include "traces/trace_reader.h"

namespace umsim::hip {
namespace {

Plan plan_of(const std::string& name) {
  auto reader = trace::open_trace("traces/validation/" + name + ".umt");
  return build_plan(*reader);
}

TEST(PlanTraceTest, PingPongHasFourKernelsOfTwoPassesOver64MiB) {
  const Plan p = plan_of("v06_cpu_gpu_pingpong");
  ASSERT_EQ(p.kernels.size(), 4u);
  for (const auto& k : p.kernels) {
    EXPECT_EQ(k.entry_count, 2u * 16384u);  // r + w over 64 MiB of 4 KiB pages
    EXPECT_EQ(k.compute_ns, 100000u);
    EXPECT_EQ(k.stream, 1u);
  }
  EXPECT_EQ(p.phases.size(), 9u);  // main + cpu0..3 + gpu0..3
  EXPECT_EQ(p.cpu_page_touches, 4u * 16384u);
  EXPECT_EQ(p.peak_managed_bytes, 64u << 20);
}

TEST(PlanTraceTest, TwoStreamPipelineUsesEventsAndBothStreams) {
  const Plan p = plan_of("v13_two_streams_overlap");
  EXPECT_EQ(p.streams, (std::vector<std::uint32_t>{1, 2}));
  EXPECT_EQ(p.events.size(), 4u);
  EXPECT_EQ(p.kernels.size(), 4u);
  int prefetches = 0;
  for (const auto& s : p.steps) prefetches += s.kind == StepKind::kPrefetch;
  EXPECT_EQ(prefetches, 4);
}

// Kernels on several streams of one GPU share its blocks (they run side by side);
// a single-stream trace keeps the whole GPU for each kernel.
TEST(PlanTraceTest, ConcurrentStreamTracesSplitTheGpuBetweenKernelStreams) {
  EXPECT_EQ(kernel_streams_on_gpu(plan_of("v15_two_streams_disjoint_halves"), 0), 2);
  EXPECT_EQ(kernel_streams_on_gpu(plan_of("v16_shared_read_beside_prefetch"), 0), 3);
  EXPECT_EQ(kernel_streams_on_gpu(plan_of("v17_three_stage_pipeline"), 0), 1);  // one compute stream
  EXPECT_EQ(kernel_streams_on_gpu(plan_of("v18_two_kernels_pingpong_cpu"), 0), 2);
  EXPECT_EQ(kernel_streams_on_gpu(plan_of("v19_compute_beside_faults"), 0), 2);
  EXPECT_EQ(kernel_streams_on_gpu(plan_of("v13_two_streams_overlap"), 0), 1);  // stream 2 only prefetches
  EXPECT_EQ(kernel_streams_on_gpu(plan_of("v13_two_streams_overlap"), 1), 0);
  const Plan p = plan_of("v17_three_stage_pipeline");
  EXPECT_EQ(p.streams, (std::vector<std::uint32_t>{1, 2, 3}));
  EXPECT_EQ(p.events.size(), 12u);
  EXPECT_EQ(p.kernels.size(), 6u);
  EXPECT_EQ(p.peak_managed_bytes, 768u << 20);
}

TEST(PlanTraceTest, RandomTraceTouchesEveryPageOnce) {
  const Plan p = plan_of("v02_random_first_touch");
  ASSERT_EQ(p.kernels.size(), 1u);
  EXPECT_EQ(p.entries.size(), 32768u);
  std::vector<bool> seen(32768, false);
  for (auto e : p.entries) seen[AccessEntry::page(e)] = true;
  for (bool s : seen) EXPECT_TRUE(s);
}

TEST(PlanTraceTest, EveryValidationTraceIsSafeOnAnH200) {
  // 139 GiB free on the H200 used for validation: every trace must stay far below half of it.
  for (const char* name : {"v01_sequential_first_touch", "v03_sparse_touch", "v13_two_streams_overlap", "v14_training_loop"}) {
    const Plan p = plan_of(name);
    EXPECT_NO_THROW(check_footprint(p, {139ull << 30, 141ull << 30})) << name;
    EXPECT_LE(p.peak_managed_bytes, 1ull << 30) << name;
  }
}

}  // namespace
}  // namespace umsim::hip
