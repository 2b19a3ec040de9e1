#include "hip_backend/gpu/calibrate.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <map>
#include <memory>
#include <set>
#include <vector>

#include "hip_backend/calibration_traces.h"
#include "hip_backend/gpu/gpu_api.h"
#include "hip_backend/gpu/replay_runtime.h"
#include "hip_backend/gpu/um_counter_source.h"
#include "hip_backend/plan.h"
#include "traces/memory_trace_reader.h"

namespace umsim::hip {

namespace {

constexpr Bytes KiB = 1024, MiB = 1024 * KiB, GiB = 1024 * MiB;

// A calibration microbenchmark (hip_backend/calibration_traces.h) as a replay plan.
Plan plan_of(trace::BuiltTrace t, const std::string& name) {
  trace::MemoryTraceReader reader(std::make_shared<const trace::BuiltTrace>(std::move(t)), "calibration:" + name);
  return build_plan(reader);
}

struct WindowStats {
  std::uint64_t batches = 0, va_block_services = 0, fault_pages = 0, gpu_faults = 0, cpu_faults = 0;
  std::uint64_t bytes_h2d = 0, bytes_d2h = 0, bytes_prefetched = 0;
  std::map<std::uint64_t, std::uint64_t> h2d_sizes, d2h_sizes;
};

WindowStats stats_in(const std::vector<UmRecord>& records, Window w) {
  WindowStats s;
  std::set<std::uint64_t> ends;
  std::set<std::pair<std::uint64_t, std::uint64_t>> blocks, pages;
  for (const auto& r : records) {
    if (!w.contains(r.start)) continue;
    switch (r.kind) {
      case UmKind::kGpuPageFault:
        ends.insert(r.end);
        blocks.insert({r.end, r.address >> 21});
        pages.insert({r.end, r.address >> 12});
        s.gpu_faults += std::max<std::uint64_t>(1, r.value);
        break;
      case UmKind::kCpuPageFault: ++s.cpu_faults; break;
      case UmKind::kBytesH2D:
        s.bytes_h2d += r.value;
        ++s.h2d_sizes[r.value];
        break;
      case UmKind::kBytesD2H:
        s.bytes_d2h += r.value;
        ++s.d2h_sizes[r.value];
        break;
      default: break;
    }
    const auto cause = static_cast<MigrationCause>(r.flags);
    if ((r.kind == UmKind::kBytesH2D || r.kind == UmKind::kBytesD2H) &&
        (cause == MigrationCause::kUser || cause == MigrationCause::kPrefetch))
      s.bytes_prefetched += r.value;
  }
  s.batches = ends.size();
  s.va_block_services = blocks.size();
  s.fault_pages = pages.size();
  return s;
}

nlohmann::ordered_json hist(const std::map<std::uint64_t, std::uint64_t>& h) {
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  for (const auto& [size, n] : h) j[std::to_string(size)] = n;
  return j;
}

void say(const CalibrateOptions& o, const std::string& s) {
  if (o.verbose) std::fprintf(stderr, "calibrate: %s\n", s.c_str());
}

std::uint64_t event_ns(hipEvent_t a, hipEvent_t b) {
  float ms = 0;
  UMSIM_GPU_CHECK(hipEventElapsedTime(&ms, a, b));
  return static_cast<std::uint64_t>(static_cast<double>(ms) * 1e6);
}

std::uint64_t median(std::vector<std::uint64_t> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Times asynchronous operations on a stream of its own, with a pair of events.
class StreamTimer {
 public:
  StreamTimer() {
    UMSIM_GPU_CHECK(hipStreamCreateWithFlags(&stream_, hipStreamNonBlocking));
    UMSIM_GPU_CHECK(hipEventCreate(&begin_));
    UMSIM_GPU_CHECK(hipEventCreate(&end_));
  }
  ~StreamTimer() {
    (void)hipEventDestroy(begin_);
    (void)hipEventDestroy(end_);
    (void)hipStreamDestroy(stream_);
  }
  StreamTimer(const StreamTimer&) = delete;
  StreamTimer& operator=(const StreamTimer&) = delete;

  // The time of what `issue` enqueues on the stream.
  template <typename F>
  std::uint64_t once(F issue) {
    UMSIM_GPU_CHECK(hipEventRecord(begin_, stream_));
    UMSIM_GPU_CHECK(issue(stream_));
    UMSIM_GPU_CHECK(hipEventRecord(end_, stream_));
    UMSIM_GPU_CHECK(hipEventSynchronize(end_));
    return event_ns(begin_, end_);
  }
  // The median of `reps` timings after one warm-up.
  template <typename F>
  std::uint64_t median_of(int reps, F issue) {
    once(issue);
    std::vector<std::uint64_t> t;
    for (int r = 0; r < reps; ++r) t.push_back(once(issue));
    return median(t);
  }

 private:
  hipStream_t stream_ = nullptr;
  hipEvent_t begin_ = nullptr, end_ = nullptr;
};

ReplayOptions with_counters(bool on) {
  ReplayOptions o;
  o.counters = on;
  return o;
}

// Two GPUs (gpu0 -> gpu1): explicit peer copies by size (the peer link), peer
// prefetches by size (the driver's per-VA-block cost of a peer migration) and
// gpu1 reading gpu0-resident memory through AccessedBy (remote peer reads).
nlohmann::ordered_json peer_calibration(const CalibrateOptions& o) {
  nlohmann::ordered_json peer;
  int can01 = 0, can10 = 0;
  UMSIM_GPU_CHECK(hipDeviceCanAccessPeer(&can01, 0, 1));
  UMSIM_GPU_CHECK(hipDeviceCanAccessPeer(&can10, 1, 0));
  peer["can_access_peer"] = can01 && can10;
  const Bytes largest = o.quick ? 128 * MiB : 512 * MiB;
  for (int d : {0, 1}) {
    std::size_t free_b = 0, total_b = 0;
    UMSIM_GPU_CHECK(hipSetDevice(d));
    UMSIM_GPU_CHECK(hipMemGetInfo(&free_b, &total_b));
    if (2 * largest > safe_managed_limit(free_b))
      throw UnsafeTraceError("peer calibration needs " + std::to_string(2 * largest >> 20) + " MiB on gpu" +
                             std::to_string(d) + ", more than half of its free memory");
  }

  say(o, "peer copies");
  const Bytes copy_max = 256 * MiB;
  void* src = nullptr;
  void* dst = nullptr;
  UMSIM_GPU_CHECK(hipSetDevice(0));
  UMSIM_GPU_CHECK(hipMalloc(&src, copy_max));
  UMSIM_GPU_CHECK(hipMemset(src, 1, copy_max));
  UMSIM_GPU_CHECK(hipSetDevice(1));
  UMSIM_GPU_CHECK(hipMalloc(&dst, copy_max));
  if (can10) {
    const hipError_t e = hipDeviceEnablePeerAccess(0, 0);
    if (e != hipSuccess && e != hipErrorPeerAccessAlreadyEnabled) UMSIM_GPU_CHECK(e);
    (void)hipGetLastError();
  }
  {
    StreamTimer timer;
    peer["copies"] = nlohmann::ordered_json::array();
    for (Bytes size = 4 * KiB; size <= copy_max; size *= 4) {
      const std::uint64_t ns = timer.median_of(o.quick ? 2 : 6, [&](hipStream_t st) {
        return hipMemcpyPeerAsync(dst, 1, src, 0, size, st);
      });
      peer["copies"].push_back({{"bytes", size}, {"time_ns", ns}});
    }
  }
  UMSIM_GPU_CHECK(hipFree(dst));
  UMSIM_GPU_CHECK(hipSetDevice(0));
  UMSIM_GPU_CHECK(hipFree(src));

  say(o, "peer prefetch");
  peer["prefetch"] = nlohmann::ordered_json::array();
  for (Bytes size = 2 * MiB; size <= largest; size *= 4) {
    const Plan plan = plan_of(peer_prefetch_trace(size), "peer_prefetch");
    for (int rep = 0; rep < (o.quick ? 2 : 3); ++rep) {
      const Measurements r = replay_plan(plan, with_counters(false));
      peer["prefetch"].push_back({{"bytes", size},
                                  {"blocks", (size + 2 * MiB - 1) / (2 * MiB)},
                                  {"time_ns", r.phases[kPeerPrefetchPhase].time_ns}});
    }
  }

  say(o, "peer remote reads");
  const Bytes remote_bytes = 256 * MiB;
  const Measurements r = replay_plan(plan_of(peer_remote_trace(remote_bytes, 3), "peer_remote"), with_counters(false));
  peer["remote"] = nlohmann::ordered_json::array();
  for (const auto& k : r.kernels)
    peer["remote"].push_back(
        {{"bytes", remote_bytes}, {"time_ns", k.time_ns}, {"launch_overhead_ns", r.launch_overhead_ns}});
  return peer;
}

}  // namespace

int probe_counters() {
  std::string why;
  if (!UmCounterSource::instance().start(&why)) {
    std::cout << "counters unavailable: " << why << "\n";
    return 1;
  }
  const Plan probe = plan_of(fault_trace({"sequential", 8 * MiB}), "probe");
  const Measurements r = replay_plan_two_pass(probe, {});
  const WindowStats s = stats_in(r.records, {0, ~std::uint64_t{0}});
  std::cout << "counters " << (r.counters_available ? "work" : "missing") << ": " << r.records.size() << " records, "
            << s.bytes_h2d << " bytes H2D, " << s.batches << " fault batches, library "
            << UmCounterSource::instance().library() << "\n";
  return r.counters_available && s.bytes_h2d > 0 ? 0 : 1;
}

// Sub-page touches (resident and remote, by sectors per page), isolated
// faults, CPU word touches and the ReadMostly collapse (calibration_traces.h):
// timing runs, no counters.
void extra_calibration_runs(const CalibrateOptions& o, nlohmann::ordered_json& raw) {
  {
    say(o, "sub-page touches");
    const Measurements r = replay_plan(plan_of(subpage_trace(kSubpageRunBytes, 3), "subpage"), with_counters(false));
    const std::vector<SubpageShape> shapes = subpage_shapes();
    raw["subpage"] = nlohmann::ordered_json::array();
    for (std::size_t k = 0; k < r.kernels.size(); ++k) {
      const SubpageShape& s = shapes[(k / 2) % shapes.size()];
      raw["subpage"].push_back({{"memory", k % 2 ? "pinned" : "resident"},
                                {"shape", s.name},
                                {"stride", s.stride},
                                {"bytes", kSubpageRunBytes},
                                {"time_ns", r.kernels[k].time_ns},
                                {"launch_overhead_ns", r.launch_overhead_ns}});
    }
  }
  {
    say(o, "isolated faults");
    raw["isolated"] = nlohmann::ordered_json::array();
    for (int rep = 0; rep < 3; ++rep) {
      const Measurements r =
          replay_plan(plan_of(isolated_fault_trace(kIsolatedFaults), "isolated"), with_counters(false));
      std::vector<std::uint64_t> t;
      for (const auto& k : r.kernels) t.push_back(k.time_ns);
      raw["isolated"].push_back({{"kernels", t.size()}, {"median_ns", median(t)}, {"times_ns", t}});
    }
  }
  {
    say(o, "cold faults");
    const Measurements r = replay_plan(plan_of(cold_fault_trace(kColdFaultRounds), "cold_faults"), with_counters(false));
    raw["cold_faults"] = nlohmann::ordered_json::array();
    const std::vector<ColdFaultGap> gaps = cold_fault_gaps();
    for (std::size_t k = 0; k < r.kernels.size(); ++k) {  // per gap: the kernel after it, then a warm one
      const std::string& gap = gaps[(k / 2) % gaps.size()].name;
      // The gap's own time: its phase (phase 0 is "main") less the two kernels in it.
      const std::size_t pair = k - k % 2;
      const std::uint64_t phase = r.phases[1 + k / 2].time_ns, kernels = r.kernels[pair].time_ns + r.kernels[pair + 1].time_ns;
      raw["cold_faults"].push_back({{"gap", gap},
                                    {"test", k % 2 ? "warm" : "cold"},
                                    {"time_ns", r.kernels[k].time_ns},
                                    {"gap_ns", phase > kernels ? phase - kernels : 0}});
    }
  }
  {
    say(o, "fresh prefetches");
    raw["prefetch_fresh"] = nlohmann::ordered_json::array();
    for (int rep = 0; rep < 3; ++rep) {
      const Measurements r = replay_plan(plan_of(fresh_prefetch_trace(), "fresh_prefetch"), with_counters(false));
      for (const FreshPrefetchTest& t : fresh_prefetch_tests())
        raw["prefetch_fresh"].push_back({{"test", t.name},
                                         {"bytes", t.bytes},
                                         {"blocks", t.blocks},
                                         {"time_ns", r.phases[t.phase].time_ns}});
    }
  }
  {
    say(o, "cpu word touches");
    const Measurements r = replay_plan(plan_of(cpu_word_trace(kCpuWordRunBytes), "cpu_words"), with_counters(false));
    raw["cpu_words"] = nlohmann::ordered_json::array();
    for (const auto& [p, test] : cpu_word_trace_tests())
      raw["cpu_words"].push_back(
          {{"test", test}, {"pages", kCpuWordRunBytes / trace::kPageSize}, {"time_ns", r.phases[p].time_ns}});
  }
  {
    say(o, "read-mostly collapse");
    raw["read_mostly_collapse"] = nlohmann::ordered_json::array();
    for (int rep = 0; rep < 3; ++rep) {
      const Measurements r =
          replay_plan(plan_of(read_mostly_collapse_trace(kCollapseRunBytes), "collapse"), with_counters(false));
      for (const auto& [p, test] : read_mostly_collapse_tests())
        raw["read_mostly_collapse"].push_back(
            {{"test", test}, {"bytes", kCollapseRunBytes}, {"time_ns", r.phases[p].time_ns}});
    }
  }
  {
    say(o, "read-duplicate revocation");
    raw["read_mostly_rmw"] = nlohmann::ordered_json::array();
    for (int rep = 0; rep < 3; ++rep) {
      const Measurements r = replay_plan(plan_of(read_mostly_rmw_trace(kRevokeRunBytes), "revoke"), with_counters(false));
      for (const auto& [p, test] : read_mostly_rmw_tests())
        raw["read_mostly_rmw"].push_back({{"test", test}, {"bytes", kRevokeRunBytes}, {"time_ns", r.phases[p].time_ns}});
    }
  }
}

// All timing runs come first, with no counters enabled anywhere in the process
// (CUPTI's UM counters slow the driver's fault path and later kernel launches);
// then the counters are enabled and the fault and CPU runs repeated for counts.
nlohmann::ordered_json run_calibration(const CalibrateOptions& o) {
  nlohmann::ordered_json raw;
  raw["schema"] = "umsim-calibration-1";
  raw["gpu"] = describe_gpu(0);
  std::size_t free_b = 0, total_b = 0;
  UMSIM_GPU_CHECK(hipMemGetInfo(&free_b, &total_b));
  const Bytes largest = o.quick ? 256 * MiB : 1 * GiB;
  if (largest > safe_managed_limit(free_b)) throw UnsafeTraceError("calibration needs 1 GiB, less than half of free memory");

  const std::vector<FaultRun> runs = fault_runs(o.quick);
  std::vector<Plan> fault_plans;
  for (const FaultRun& r : runs) fault_plans.push_back(plan_of(fault_trace(r), "faults:" + r.pattern));
  const Plan cpu_plan = plan_of(cpu_trace(kCpuRunBytes), "cpu");

  // 1. Timing, no counters. Demand-fault times vary by tens of percent from run
  // to run, so every fault run is repeated in rounds (drift spreads over all
  // runs) and the median is the run's time.
  constexpr int kFaultRounds = 3;
  std::vector<std::vector<Measurements>> fault_times(runs.size());
  for (int round = 0; round < kFaultRounds; ++round) {
    for (std::size_t i = 0; i < runs.size(); ++i) {
      say(o, "faults " + runs[i].pattern + " " + std::to_string(runs[i].bytes >> 20) + " MiB, round " +
                 std::to_string(round + 1));
      fault_times[i].push_back(replay_plan(fault_plans[i], with_counters(false)));
    }
  }
  raw["launch_overhead_ns"] = fault_times.back().back().launch_overhead_ns;
  {
    const std::vector<Nanos> spins = {0, 10000, 100000, 1000000};
    const Measurements r = replay_plan(plan_of(spin_trace(spins), "spin"), with_counters(false));
    raw["spin"] = nlohmann::ordered_json::array();
    for (std::size_t i = 0; i < spins.size(); ++i)
      raw["spin"].push_back({{"requested_ns", spins[i]}, {"measured_ns", r.kernels[i].time_ns}});
  }
  say(o, "cpu");
  const Measurements cpu_time = replay_plan(cpu_plan, with_counters(false));
  {
    say(o, "remote");
    const Bytes bytes = 256 * MiB;
    const Plan remote = plan_of(remote_trace(bytes, 3), "remote");
    const Measurements r = replay_plan(remote, with_counters(false));
    raw["remote"] = nlohmann::ordered_json::array();
    const char* kinds[] = {"pinned", "mapped", "accessed_by"};
    for (std::size_t k = 0; k < r.kernels.size(); ++k)
      raw["remote"].push_back({{"memory", kinds[k % 3]}, {"bytes", bytes}, {"time_ns", r.kernels[k].time_ns}});
  }
  {
    // Resident access: a prefetched buffer read and written whole by kernels
    // (gpu.access_gbps: the model's cost of touching resident pages).
    say(o, "resident");
    const Bytes bytes = largest / 2;
    const Plan resident = plan_of(resident_trace(bytes, 3), "resident");
    const Measurements r = replay_plan(resident, with_counters(false));
    raw["resident"] = nlohmann::ordered_json::array();
    for (std::size_t k = 0; k < r.kernels.size(); ++k)
      raw["resident"].push_back({{"access", k % 2 ? "write" : "read"},
                                 {"bytes", bytes},
                                 {"time_ns", r.kernels[k].time_ns},
                                 {"launch_overhead_ns", r.launch_overhead_ns}});
  }
  {
    // Read duplication: a CPU-written ReadMostly buffer read by a kernel (each
    // page becomes a read-only copy; faults.duplicate_va_block_cost). Its twin
    // without the advice is the "sequential" fault run of the same size.
    say(o, "read_mostly");
    const Bytes bytes = kReadMostlyRunBytes;
    const Plan read_mostly = plan_of(read_mostly_trace(bytes), "read_mostly");
    raw["read_mostly"] = nlohmann::ordered_json::array();
    for (int rep = 0; rep < 3; ++rep) {
      const Measurements r = replay_plan(read_mostly, with_counters(false));
      raw["read_mostly"].push_back({{"bytes", bytes},
                                    {"time_ns", r.kernels[0].time_ns},
                                    {"launch_overhead_ns", r.launch_overhead_ns}});
    }
  }
  {
    // Compute beside faults (gpu.fault_compute_overlap, hip_backend/compute_overlap_fit.h):
    // the same compute on resident pages, demand faults alone, and both.
    say(o, "compute_overlap");
    const Plan overlap = plan_of(compute_overlap_trace(kComputeOverlapBytes, kComputeOverlapNs), "compute_overlap");
    raw["compute_overlap"] = nlohmann::ordered_json::array();
    for (int rep = 0; rep < 3; ++rep) {
      const Measurements r = replay_plan(overlap, with_counters(false));
      raw["compute_overlap"].push_back({{"compute_ns", kComputeOverlapNs},
                                        {"compute_only_ns", r.kernels[0].time_ns},
                                        {"faults_only_ns", r.kernels[1].time_ns},
                                        {"both_ns", r.kernels[2].time_ns}});
    }
  }
  {
    say(o, "copies");
    const Bytes max_bytes = 256 * MiB;
    void* pinned = nullptr;
    void* dev = nullptr;
    UMSIM_GPU_CHECK(hipHostMalloc(&pinned, max_bytes, hipHostMallocDefault));
    UMSIM_GPU_CHECK(hipMalloc(&dev, max_bytes));
    std::vector<char> pageable(max_bytes, 1);
    std::memset(pinned, 1, max_bytes);
    StreamTimer timer;
    raw["copies"] = nlohmann::ordered_json::array();
    for (const char* memory : {"pinned", "pageable"})
      for (const char* dir : {"h2d", "d2h"})
        for (Bytes size = 4 * KiB; size <= max_bytes; size *= 4) {
          if (std::string(memory) == "pageable" && size < 1 * MiB) continue;
          void* host = std::string(memory) == "pinned" ? pinned : static_cast<void*>(pageable.data());
          const bool h2d = std::string(dir) == "h2d";
          const std::uint64_t ns = timer.median_of(o.quick ? 2 : 6, [&](hipStream_t st) {
            return h2d ? hipMemcpyAsync(dev, host, size, hipMemcpyHostToDevice, st)
                       : hipMemcpyAsync(host, dev, size, hipMemcpyDeviceToHost, st);
          });
          raw["copies"].push_back({{"memory", memory}, {"direction", dir}, {"bytes", size}, {"time_ns", ns}});
        }

    say(o, "prefetch");
    const Bytes pbytes = o.quick ? 128 * MiB : 512 * MiB;
    char* u = nullptr;
    UMSIM_GPU_CHECK(hipMallocManaged(reinterpret_cast<void**>(&u), pbytes, hipMemAttachGlobal));
    std::memset(u, 1, pbytes);
    raw["prefetch"] = nlohmann::ordered_json::array();
    for (Bytes size = 64 * KiB; size <= pbytes; size *= 4)
      for (int rep = 0; rep < (o.quick ? 2 : 3); ++rep)
        for (const char* dir : {"h2d", "d2h"}) {
          const int to = std::string(dir) == "h2d" ? 0 : hipCpuDeviceId;
          const std::uint64_t ns = timer.once([&](hipStream_t st) { return hipMemPrefetchAsync(u, size, to, st); });
          raw["prefetch"].push_back({{"direction", dir},
                                     {"bytes", size},
                                     {"blocks", (size + 2 * MiB - 1) / (2 * MiB)},
                                     {"time_ns", ns}});
        }
    UMSIM_GPU_CHECK(hipFree(u));
    UMSIM_GPU_CHECK(hipHostFree(pinned));
    UMSIM_GPU_CHECK(hipFree(dev));
  }

  {
    // The same copies as a trace (calibration_traces.h copy_trace), replayed
    // like any trace, so the simulator's copy model is checked phase by phase.
    say(o, "copy trace");
    const Plan copies = plan_of(copy_trace(), "copies");
    raw["copy_trace"] = nlohmann::ordered_json::array();
    for (int rep = 0; rep < (o.quick ? 1 : 3); ++rep) {
      const Measurements r = replay_plan(copies, with_counters(false));
      for (const CopyTest& t : copy_trace_tests())
        raw["copy_trace"].push_back({{"test", t.name}, {"bytes", t.bytes}, {"time_ns", r.phases[t.phase].time_ns}});
    }
  }
  extra_calibration_runs(o, raw);

  int devices = 0;
  UMSIM_GPU_CHECK(hipGetDeviceCount(&devices));
  if (devices >= 2) raw["peer"] = peer_calibration(o);

  // 2. Counts, with UM counters (times of these passes are not used).
  std::string why;
  const bool counters = UmCounterSource::instance().start(&why);
  if (!counters) raw["counters_unavailable"] = why;
  raw["faults"] = nlohmann::ordered_json::array();
  for (std::size_t i = 0; i < runs.size(); ++i) {
    WindowStats s;
    if (counters) {
      say(o, "counting faults " + runs[i].pattern);
      const Measurements c = replay_plan(fault_plans[i], with_counters(true));
      s = stats_in(c.records, c.kernels[0].counter_window);
    }
    std::vector<std::uint64_t> times;
    for (const Measurements& t : fault_times[i]) times.push_back(t.kernels[0].time_ns);
    raw["faults"].push_back({{"pattern", runs[i].pattern},
                             {"bytes", runs[i].bytes},
                             {"pages_touched", fault_plans[i].entries.size()},
                             {"time_ns", median(times)},
                             {"times_ns", times},
                             {"launch_overhead_ns", fault_times[i].front().launch_overhead_ns},
                             {"batches", s.batches},
                             {"va_block_services", s.va_block_services},
                             {"fault_pages", s.fault_pages},
                             {"gpu_faults", s.gpu_faults},
                             {"bytes_h2d", s.bytes_h2d},
                             {"bytes_prefetched", s.bytes_prefetched},
                             {"transfers", hist(s.h2d_sizes)}});
  }
  Measurements cpu_count;
  if (counters) cpu_count = replay_plan(cpu_plan, with_counters(true));
  raw["cpu"] = nlohmann::ordered_json::array();
  for (const auto& [p, test] : cpu_trace_tests()) {
    WindowStats s;
    if (counters) s = stats_in(cpu_count.records, cpu_count.phases[p].counter_window);
    raw["cpu"].push_back({{"test", test},
                          {"pages", kCpuRunBytes / trace::kPageSize},
                          {"time_ns", cpu_time.phases[p].time_ns},
                          {"cpu_faults", s.cpu_faults},
                          {"bytes_d2h", s.bytes_d2h},
                          {"transfers", hist(s.d2h_sizes)}});
  }
  return raw;
}

}  // namespace umsim::hip
