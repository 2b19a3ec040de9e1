// Measurements + plan -> the shared result schema (producer "umsim-hip").
#include "hip_backend/hip_result.h"

#include <gtest/gtest.h>

namespace umsim::hip {
namespace {

Plan two_phase_plan() {
  trace::NameTable names;
  PlanBuilder b("p.umt");
  auto add = [&](trace::Event e) { b.add(e, names, "p.umt"); };
  trace::Event a;
  a.kind = trace::EventKind::kAlloc;
  a.name = names.intern("A");
  a.length = 1 << 20;
  add(a);
  trace::Event cpu;
  cpu.kind = trace::EventKind::kCpuAccess;
  cpu.name = a.name;
  cpu.op = static_cast<std::uint8_t>(AccessType::kWrite);
  cpu.length = 1 << 20;  // 256 pages
  add(cpu);
  trace::Event ph;
  ph.kind = trace::EventKind::kPhase;
  ph.name = names.intern("gpu");
  add(ph);
  trace::Event k;
  k.kind = trace::EventKind::kKernelBegin;
  k.name = names.intern("k");
  k.processor = Processor::gpu(0);
  k.duration = 1000;
  add(k);
  trace::Event r = cpu;
  r.kind = trace::EventKind::kGpuAccess;
  r.op = static_cast<std::uint8_t>(AccessType::kRead);
  r.length = 64 * 4096;
  add(r);
  trace::Event end;
  end.kind = trace::EventKind::kKernelEnd;
  add(end);
  return b.finish();
}

TEST(HipResultTest, FillsTimesCountersAccessesAndStall) {
  const Plan plan = two_phase_plan();
  Measurements m;
  m.total_ns = 50000;
  m.launch_overhead_ns = 500;
  m.kernels = {{100, 4000, {10, 20}}};
  m.phases = {{0, 30000, {0, 9}}, {30000, 20000, {10, 30}}};
  m.counters_available = true;
  UmRecord f;
  f.kind = UmKind::kGpuPageFault;
  f.value = 1;
  f.start = 12;
  f.end = 15;
  UmRecord t;
  t.kind = UmKind::kBytesH2D;
  t.value = 262144;
  t.start = 13;
  t.flags = static_cast<std::uint32_t>(MigrationCause::kCoherence);
  m.records = {f, t};
  const Result r = make_result(plan, m, {{"backend", "umsim-hip"}});
  EXPECT_EQ(r.producer, "umsim-hip");
  EXPECT_EQ(r.trace, "p.umt");
  ASSERT_EQ(r.kernels.size(), 1u);
  EXPECT_EQ(r.kernels[0].name, "k");
  EXPECT_EQ(r.kernels[0].gpu, 0);
  EXPECT_EQ(r.kernels[0].counters.time_ns, 4000u);
  EXPECT_EQ(r.kernels[0].counters.stall_ns, 2500u);  // 4000 - 1000 compute - 500 launch
  EXPECT_EQ(r.kernels[0].counters.accesses, 64u);
  EXPECT_EQ(r.kernels[0].counters.bytes_h2d, 262144u);
  EXPECT_EQ(r.kernels[0].counters.fault_batches, 1u);
  ASSERT_EQ(r.phases.size(), 2u);
  EXPECT_EQ(r.phases[0].name, "main");
  EXPECT_EQ(r.phases[0].counters.accesses, 256u);
  EXPECT_EQ(r.phases[1].counters.accesses, 64u);
  EXPECT_EQ(r.phases[1].counters.stall_ns, 2500u);
  EXPECT_EQ(r.phases[1].counters.bytes_h2d, 262144u);
  EXPECT_EQ(r.total.time_ns, 50000u);
  EXPECT_EQ(r.total.accesses, 320u);
  EXPECT_EQ(r.unmeasured, (std::vector<std::string>{"evictions", "remote_accesses"}));
  // The schema round-trips.
  EXPECT_EQ(result_from_json(to_json(r)).kernels, r.kernels);
}

TEST(HipResultTest, WithoutCountersListsEveryUnmeasuredCounter) {
  const Plan plan = two_phase_plan();
  Measurements m;
  m.kernels = {{0, 10, {}}};
  m.phases = {{0, 1, {}}, {1, 1, {}}};
  const Result r = make_result(plan, m, {});
  EXPECT_EQ(r.unmeasured.size(), 13u);
  EXPECT_EQ(r.kernels[0].counters.stall_ns, 0u);  // never negative
}

TEST(HipResultTest, RejectsMeasurementsOfAnotherShape) {
  const Plan plan = two_phase_plan();
  Measurements m;
  m.phases = {{}, {}};
  EXPECT_THROW(make_result(plan, m, {}), std::logic_error);
}

}  // namespace
}  // namespace umsim::hip
