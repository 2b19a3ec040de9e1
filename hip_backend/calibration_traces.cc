#include "hip_backend/calibration_traces.h"

#include <algorithm>
#include <numeric>
#include <random>
#include <set>
#include <stdexcept>

namespace umsim::hip {

using trace::Advice;
using trace::AllocKind;
using trace::Bytes;
using trace::BuiltTrace;
using trace::Processor;
using trace::TraceBuilder;
using namespace trace::literals;

std::vector<FaultRun> fault_runs(bool quick) {
  const Bytes largest = quick ? 256_MiB : 1_GiB;
  // Small sequential runs pin the per-batch cost (few VA blocks, few batches);
  // the large ones the per-block and per-page costs.
  std::vector<FaultRun> runs = {{"sequential", 4_MiB}, {"sequential", 16_MiB}, {"sequential", 64_MiB},
                                {"sequential", 256_MiB}, {"random", 64_MiB},    {"stride64k", 256_MiB},
                                {"stride2m", largest},   {"write", 64_MiB},     {"gpu_fresh", 256_MiB}};
  if (!quick) {
    runs.push_back({"sequential", 1_GiB});
    runs.push_back({"random", 256_MiB});
    runs.push_back({"stride64k", 1_GiB});
    runs.push_back({"gpu_fresh", 1_GiB});
  }
  return runs;
}

BuiltTrace fault_trace(const FaultRun& run) {
  TraceBuilder b;
  b.alloc("A", run.bytes);
  if (run.pattern != "gpu_fresh") b.cpu_write("A");
  b.phase("gpu").kernel("touch");
  if (run.pattern == "sequential") {
    b.read("A");
  } else if (run.pattern == "random") {
    std::vector<std::uint64_t> order(run.bytes / trace::kPageSize);
    std::iota(order.begin(), order.end(), std::uint64_t{0});
    std::shuffle(order.begin(), order.end(), std::mt19937_64(12345));
    for (std::uint64_t p : order) b.read("A", p * trace::kPageSize, trace::kPageSize);
  } else if (run.pattern == "stride64k") {
    b.read("A", 0, TraceBuilder::kWhole, 64_KiB);
  } else if (run.pattern == "stride2m") {
    b.read("A", 0, TraceBuilder::kWhole, 2_MiB);
  } else if (run.pattern == "write" || run.pattern == "gpu_fresh") {
    b.write("A");
  } else {
    throw std::invalid_argument("unknown calibration fault pattern '" + run.pattern + "'");
  }
  return b.end().sync().free("A").build();
}

BuiltTrace cpu_trace(Bytes bytes) {
  return TraceBuilder()
      .alloc("A", bytes)
      .phase("first_touch").cpu_write("A")
      .phase("resident").cpu_write("A")
      .phase("resident_read").cpu_read("A")
      .phase("to_gpu").prefetch("A", Processor::gpu(0)).sync()
      .phase("fault").cpu_write("A")
      .phase("to_gpu_again").prefetch("A", Processor::gpu(0)).sync()
      .phase("fault_read").cpu_read("A")
      .phase("end").free("A")
      .build();
}

std::vector<std::pair<std::size_t, std::string>> cpu_trace_tests() {
  return {{1, "first_touch"}, {2, "resident"}, {3, "resident_read"}, {5, "fault"}, {7, "fault_read"}};
}

BuiltTrace read_mostly_trace(Bytes bytes) {
  return TraceBuilder()
      .alloc("A", bytes)
      .cpu_write("A")
      .advise("A", Advice::kSetReadMostly)
      .phase("gpu").kernel("touch").read("A").end()
      .sync().free("A")
      .build();
}

BuiltTrace resident_trace(Bytes bytes, int reps) {
  TraceBuilder b;
  b.alloc("A", bytes).cpu_write("A").prefetch("A", Processor::gpu(0)).sync();
  for (int r = 0; r < reps; ++r) b.kernel("read").read("A").end().kernel("write").write("A").end();
  return b.sync().free("A").build();
}

BuiltTrace remote_trace(Bytes bytes, int reps) {
  TraceBuilder b;
  b.alloc("P", bytes, AllocKind::kPinned).alloc("M", bytes, AllocKind::kMapped).alloc("U", bytes)
      .cpu_write("P").cpu_write("M").cpu_write("U")
      .advise("U", Advice::kSetPreferredLocation, Processor::cpu())
      .advise("U", Advice::kSetAccessedBy, Processor::gpu(0));
  for (int r = 0; r < reps; ++r)
    b.kernel("pinned").read("P").end().kernel("mapped").read("M").end().kernel("accessed_by").read("U").end();
  return b.sync().free("P").free("M").free("U").build();
}

BuiltTrace peer_prefetch_trace(Bytes bytes) {
  return TraceBuilder()
      .alloc("A", bytes)
      .cpu_write("A")
      .phase("to_gpu0").prefetch("A", Processor::gpu(0)).sync()
      .phase("to_gpu1").prefetch("A", Processor::gpu(1)).sync()
      .phase("end").free("A")
      .build();
}

BuiltTrace peer_remote_trace(Bytes bytes, int reps) {
  TraceBuilder b;
  b.alloc("A", bytes).cpu_write("A")
      .advise("A", Advice::kSetPreferredLocation, Processor::gpu(0))
      .advise("A", Advice::kSetAccessedBy, Processor::gpu(1))
      .prefetch("A", Processor::gpu(0)).sync();
  for (int r = 0; r < reps; ++r) b.kernel("peer_read", 1).read("A").end();
  return b.sync().free("A").build();
}

// ---- copies and memsets ---------------------------------------------------

std::vector<Bytes> copy_trace_sizes() { return {64_KiB, 1_MiB, 16_MiB, 256_MiB}; }

namespace {

// Calls copy_trace's measurements in order: f(name, bytes, builder) adds one phase's statements.
template <typename F>
void for_each_copy_test(F&& f) {
  using trace::CopyKind;
  const Bytes managed_bytes = 16_MiB;
  for (const char* host : {"pinned", "pageable"})
    for (const char* dir : {"h2d", "d2h"})
      for (Bytes size : copy_trace_sizes()) {
        const bool pinned = std::string(host) == "pinned", h2d = std::string(dir) == "h2d";
        const CopyKind kind = h2d ? (pinned ? CopyKind::kFromPinnedHost : CopyKind::kFromPageableHost)
                                  : (pinned ? CopyKind::kToPinnedHost : CopyKind::kToPageableHost);
        f(std::string("copy_") + host + "_" + dir + "_" + std::to_string(size), size,
          [=](TraceBuilder& b) { b.copy_host(kind, "D", 0, size); });
      }
  for (Bytes size : copy_trace_sizes())
    f("copy_d2d_" + std::to_string(size), size, [=](TraceBuilder& b) { b.copy("E", 0, "D", 0, size); });
  f("copy_pinned_h2d_managed_" + std::to_string(managed_bytes), managed_bytes,
    [=](TraceBuilder& b) { b.copy_host(CopyKind::kFromPinnedHost, "M", 0, managed_bytes); });
  for (Bytes size : copy_trace_sizes())
    f("memset_device_" + std::to_string(size), size, [=](TraceBuilder& b) { b.memset("D", 0, size); });
  f("memset_managed_" + std::to_string(managed_bytes), managed_bytes,
    [=](TraceBuilder& b) { b.memset("N", 0, managed_bytes); });
}

}  // namespace

BuiltTrace copy_trace() {
  const Bytes largest = copy_trace_sizes().back();
  TraceBuilder b;
  b.alloc("D", largest, AllocKind::kDevice, Processor::gpu(0))
      .alloc("E", largest, AllocKind::kDevice, Processor::gpu(0))
      .alloc("M", 16_MiB)
      .alloc("N", 16_MiB);
  for_each_copy_test([&](const std::string& name, Bytes, auto&& add) {
    b.phase(name);
    add(b);
  });
  return b.phase("end").free("D").free("E").free("M").free("N").build();
}

std::vector<CopyTest> copy_trace_tests() {
  std::vector<CopyTest> tests;
  for_each_copy_test([&](const std::string& name, Bytes bytes, auto&&) {
    tests.push_back({tests.size() + 1, name, bytes});  // phase 0 is the implicit "main"
  });
  return tests;
}

BuiltTrace spin_trace(const std::vector<trace::Nanos>& compute_ns) {
  TraceBuilder b;
  for (trace::Nanos ns : compute_ns) b.kernel("spin", 0, ns).end();
  return b.sync().build();
}

// --- Sub-page touches, isolated faults, CPU word touches, ReadMostly collapse ---

std::vector<SubpageShape> subpage_shapes() { return {{"page", 0}, {"w32", 32}, {"w128", 128}, {"w4k", 4_KiB}}; }

BuiltTrace subpage_trace(Bytes bytes, int reps) {
  TraceBuilder b;
  b.alloc("A", bytes).alloc("P", bytes, AllocKind::kPinned).cpu_write("A").cpu_write("P")
      .prefetch("A", Processor::gpu(0)).sync();
  for (int r = 0; r < reps; ++r)
    for (const SubpageShape& s : subpage_shapes()) {
      b.kernel("res_" + s.name).read("A", 0, TraceBuilder::kWhole, s.stride).end();
      b.kernel("rem_" + s.name).read("P", 0, TraceBuilder::kWhole, s.stride).end();
    }
  return b.sync().free("A").free("P").build();
}

BuiltTrace isolated_fault_trace(int n) {
  TraceBuilder b;
  b.alloc("A", static_cast<Bytes>(n) * 2_MiB).cpu_write("A");
  for (int k = 0; k < n; ++k) b.kernel("isolated").read("A", static_cast<Bytes>(k) * 2_MiB + 1_MiB, 4).end();
  return b.sync().free("A").build();
}

std::vector<ColdFaultGap> cold_fault_gaps() {
  return {{"cpu", "CPU writes of a resident 256 MiB buffer"},
          {"cpu_short", "CPU writes of 8 MiB of it"},
          {"cpu_mid", "CPU writes of 64 MiB of it"},
          {"cpu_faults", "CPU reads of 64 MiB prefetched to the GPU just before"}};
}

BuiltTrace cold_fault_trace(int rounds) {
  const std::vector<ColdFaultGap> gaps = cold_fault_gaps();
  TraceBuilder b;
  b.alloc("A", static_cast<Bytes>(2 * rounds * gaps.size()) * 2_MiB).alloc("G", 256_MiB).alloc("H", 64_MiB);
  b.cpu_write("A").cpu_write("G").cpu_write("H");
  Bytes block = 0;
  for (int r = 0; r < rounds; ++r) {
    for (const ColdFaultGap& g : gaps) {
      b.phase("gap_" + g.name);
      if (g.name == "cpu") b.cpu_write("G");
      if (g.name == "cpu_short") b.cpu_write("G", 0, 8_MiB);
      if (g.name == "cpu_mid") b.cpu_write("G", 0, 64_MiB);
      if (g.name == "cpu_faults") b.prefetch("H", Processor::gpu(0)).sync().cpu_read("H");
      b.kernel(g.name).read("A", block + 1_MiB, 4).end();
      b.kernel("warm").read("A", block + 2_MiB + 1_MiB, 4).end().sync();
      block += 4_MiB;
    }
  }
  return b.free("A").free("G").free("H").build();
}

std::vector<FreshPrefetchTest> fresh_prefetch_tests() {
  // Phase 0 is the implicit "main" (the allocation and the CPU's first touch).
  return {{1, "first", 64_KiB, 1},   {2, "p128KiB", 128_KiB, 1}, {3, "p512KiB", 512_KiB, 1},
          {4, "p64KiB", 64_KiB, 1},  {5, "p4MiB", 4_MiB, 2},     {6, "p32MiB", 32_MiB, 16},
          {8, "sparse", 32_MiB, 16}, {9, "p128MiB", 128_MiB, 64}};
}

BuiltTrace fresh_prefetch_trace() {
  // Regions on block boundaries: first, 128K, 512K, 64K at blocks 0-3, 4 MiB
  // at 8 MiB, 32 MiB at 16 MiB, 128 MiB at 64 MiB; 192 MiB in all.
  const Bytes offsets[] = {0, 2_MiB, 4_MiB, 6_MiB, 8_MiB, 16_MiB};
  TraceBuilder b;
  b.alloc("A", 192_MiB).cpu_write("A");
  const std::vector<FreshPrefetchTest> tests = fresh_prefetch_tests();
  for (std::size_t i = 0; i < 6; ++i)
    b.phase(tests[i].name).prefetch("A", Processor::gpu(0), 1, offsets[i], tests[i].bytes).sync();
  b.phase("sparse_setup").cpu_write("A", 16_MiB, 32_MiB, 2_MiB);
  b.phase("sparse").prefetch("A", Processor::gpu(0), 1, 16_MiB, 32_MiB).sync();
  b.phase("p128MiB").prefetch("A", Processor::gpu(0), 1, 64_MiB, 128_MiB).sync();
  return b.phase("end").free("A").build();
}

BuiltTrace cpu_word_trace(Bytes bytes) {
  return TraceBuilder()
      .alloc("A", bytes)
      .phase("first_touch").cpu_write("A")
      .phase("word_write").cpu_write("A", 0, TraceBuilder::kWhole, 4_KiB)
      .phase("word_read").cpu_read("A", 0, TraceBuilder::kWhole, 4_KiB)
      .phase("end").free("A")
      .build();
}

std::vector<std::pair<std::size_t, std::string>> cpu_word_trace_tests() {
  return {{1, "first_touch"}, {2, "word_write"}, {3, "word_read"}};
}

BuiltTrace read_mostly_collapse_trace(Bytes bytes) {
  return TraceBuilder()
      .alloc("A", bytes)
      .alloc("B", bytes)
      .cpu_write("A")
      .cpu_write("B")
      .advise("A", Advice::kSetReadMostly)
      .kernel("duplicate").read("A").end()
      .sync()
      .phase("collapse").cpu_write("A")
      .phase("reprefetch").prefetch("A", Processor::gpu(0)).sync()
      .phase("plain_prefetch").prefetch("B", Processor::gpu(0)).sync()
      .phase("end").free("A").free("B")
      .build();
}

std::vector<std::pair<std::size_t, std::string>> read_mostly_collapse_tests() {
  return {{1, "collapse"}, {2, "reprefetch"}, {3, "plain_prefetch"}};
}

BuiltTrace read_mostly_rmw_trace(Bytes bytes) {
  return TraceBuilder()
      .alloc("A", bytes)
      .cpu_write("A")
      .advise("A", Advice::kSetReadMostly)
      .phase("read").kernel("read").read("A").end().sync()
      .phase("cpu").cpu_write("A")
      .phase("rmw").kernel("rmw").read_modify_write("A").end().sync()
      .phase("end").free("A")
      .build();
}

std::vector<std::pair<std::size_t, std::string>> read_mostly_rmw_tests() { return {{1, "read"}, {3, "rmw"}}; }

std::vector<std::pair<std::string, BuiltTrace>> tuner_traces() {
  std::vector<std::pair<std::string, BuiltTrace>> out;
  std::set<std::string> written;
  for (bool quick : {false, true})  // a quick calibration has a run of its own (stride2m over 256 MiB)
    for (const FaultRun& r : fault_runs(quick)) {
      const std::string file = "faults_" + r.pattern + "_" + std::to_string(r.bytes) + ".umt";
      if (written.insert(file).second) out.emplace_back(file, fault_trace(r));
    }
  out.emplace_back("read_mostly_" + std::to_string(kReadMostlyRunBytes) + ".umt", read_mostly_trace(kReadMostlyRunBytes));
  out.emplace_back("cpu_" + std::to_string(kCpuRunBytes) + ".umt", cpu_trace(kCpuRunBytes));
  out.emplace_back("copies.umt", copy_trace());
  out.emplace_back("isolated_" + std::to_string(kIsolatedFaults) + ".umt", isolated_fault_trace(kIsolatedFaults));
  out.emplace_back("subpage_" + std::to_string(kSubpageRunBytes) + ".umt", subpage_trace(kSubpageRunBytes, 3));
  out.emplace_back("cpu_words_" + std::to_string(kCpuWordRunBytes) + ".umt", cpu_word_trace(kCpuWordRunBytes));
  out.emplace_back("collapse_" + std::to_string(kCollapseRunBytes) + ".umt", read_mostly_collapse_trace(kCollapseRunBytes));
  out.emplace_back("revoke_" + std::to_string(kRevokeRunBytes) + ".umt", read_mostly_rmw_trace(kRevokeRunBytes));
  out.emplace_back("fresh_prefetch.umt", fresh_prefetch_trace());
  out.emplace_back("cold_faults_" + std::to_string(kColdFaultRounds) + ".umt", cold_fault_trace(kColdFaultRounds));
  return out;
}

// ---- compute beside faults (gpu.fault_compute_overlap) ----

BuiltTrace compute_overlap_trace(Bytes bytes, trace::Nanos compute_ns) {
  TraceBuilder b;
  for (const char* name : {"R", "F", "G"}) b.alloc(name, bytes).cpu_write(name);
  b.prefetch("R", Processor::gpu(0)).sync();
  b.phase("compute_only").kernel("compute_only", 0, compute_ns).read("R").end().sync();
  b.phase("faults_only").kernel("faults_only", 0, 0).read("F").end().sync();
  b.phase("both").kernel("both", 0, compute_ns).read("G").end().sync();
  return b.free("R").free("F").free("G").build();
}

}  // namespace umsim::hip
