#include "hip_backend/gpu/replay_runtime.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <vector>

#include "hip_backend/gpu/gpu_api.h"
#include "hip_backend/gpu/touch_kernels.h"
#include "hip_backend/gpu/um_counter_source.h"
#include "hip_backend/xnack_state.h"
#include "traces/page_touch.h"

namespace umsim::hip {

namespace {

using Clock = std::chrono::steady_clock;

std::uint64_t since_ns(Clock::time_point t0) {
  return static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - t0).count());
}

int device_of(Processor p) { return p.is_cpu() ? hipCpuDeviceId : p.gpu_index(); }

hipMemoryAdvise to_hip(trace::Advice a) {
  switch (a) {
    case trace::Advice::kSetReadMostly: return hipMemAdviseSetReadMostly;
    case trace::Advice::kUnsetReadMostly: return hipMemAdviseUnsetReadMostly;
    case trace::Advice::kSetPreferredLocation: return hipMemAdviseSetPreferredLocation;
    case trace::Advice::kUnsetPreferredLocation: return hipMemAdviseUnsetPreferredLocation;
    case trace::Advice::kSetAccessedBy: return hipMemAdviseSetAccessedBy;
    case trace::Advice::kUnsetAccessedBy: return hipMemAdviseUnsetAccessedBy;
  }
  return hipMemAdviseSetReadMostly;
}

std::uint64_t wall_clock_khz(int device) {
#if UMSIM_NVIDIA
  (void)device;
  return 0;
#else
  // ROCm 5.2 has no wall-clock-rate attribute; gfx90a / gfx908 run s_memrealtime at 100 MHz.
  (void)device;
  return 100000;
#endif
}

// Per-GPU resources that live in plain device memory (not measured).
struct GpuSide {
  std::uint64_t* entries = nullptr;
  std::uint64_t* shapes = nullptr;
  char** bases = nullptr;
  unsigned* sink = nullptr;
  std::uint64_t clock_khz = 0;
  int max_blocks = 0;  // resident blocks a touch kernel may use (shared by concurrent streams)
  int warp_size = 32;
};

constexpr int kThreads = 256;

class Runner {
 public:
  Runner(const Plan& plan, const ReplayOptions& opt) : plan_(plan), opt_(opt) {}

  Measurements run() {
    Measurements m;
    std::string why;
    if (opt_.counters && !counters_.start(&why)) m.hardware["counters_unavailable"] = why;
    int devices = 0;
    UMSIM_GPU_CHECK(hipGetDeviceCount(&devices));
    if (devices < plan_.gpus_used)
      throw GpuError(plan_.trace + ": the trace uses " + std::to_string(plan_.gpus_used) + " GPU(s), this machine has " +
                     std::to_string(devices));
    // Safety first: nothing is allocated before every used GPU passed the check.
    for (int g = 0; g < plan_.gpus_used; ++g) {
      UMSIM_GPU_CHECK(hipSetDevice(g));
      std::size_t free_b = 0, total_b = 0;
      UMSIM_GPU_CHECK(hipMemGetInfo(&free_b, &total_b));
      check_footprint(plan_, {free_b, total_b}, opt_.safe_fraction);
      m.hardware["gpu" + std::to_string(g) + "_free_bytes_before"] = free_b;
    }
    m.hardware["gpu"] = describe_gpu(0);
    if (counters_.active()) m.hardware["counters"] = "CUPTI unified-memory counter activity (" + counters_.library() + ")";
    setup();
    m.launch_overhead_ns = measure_launch_overhead();
    m.hardware["launch_overhead_ns"] = m.launch_overhead_ns;
    m.hardware["touch_kernel_max_blocks"] = gpus_[0].max_blocks;
    // Records from the setup (uploads, warm-up launches) are not part of the replay.
    std::vector<UmRecord> discard_records;
    std::vector<KernelActivity> discard_kernels;
    counters_.take(&discard_records, &discard_kernels);

    execute(m);
    collect(m);
    teardown();
    return m;
  }

 private:
  void setup() {
    gpus_.resize(plan_.gpus_used);
    for (int g = 0; g < plan_.gpus_used; ++g) {
      UMSIM_GPU_CHECK(hipSetDevice(g));
      GpuSide& s = gpus_[g];
      const std::size_t n = std::max<std::size_t>(plan_.entries.size(), 1);
      UMSIM_GPU_CHECK(hipMalloc(reinterpret_cast<void**>(&s.entries), n * sizeof(std::uint64_t)));
      UMSIM_GPU_CHECK(hipMalloc(reinterpret_cast<void**>(&s.shapes), n * sizeof(std::uint64_t)));
      if (!plan_.entries.empty()) {
        UMSIM_GPU_CHECK(hipMemcpy(s.entries, plan_.entries.data(), plan_.entries.size() * sizeof(std::uint64_t),
                                  hipMemcpyHostToDevice));
        UMSIM_GPU_CHECK(hipMemcpy(s.shapes, plan_.shapes.data(), plan_.shapes.size() * sizeof(std::uint64_t),
                                  hipMemcpyHostToDevice));
      }
      UMSIM_GPU_CHECK(hipMalloc(reinterpret_cast<void**>(&s.bases), AccessEntry::kMaxSlots * sizeof(char*)));
      UMSIM_GPU_CHECK(hipMemset(s.bases, 0, AccessEntry::kMaxSlots * sizeof(char*)));
      UMSIM_GPU_CHECK(hipMalloc(reinterpret_cast<void**>(&s.sink), sizeof(unsigned)));
      hipDeviceProp_t prop;
      UMSIM_GPU_CHECK(hipGetDeviceProperties(&prop, g));
      // All blocks resident at once, so the spin after the accesses adds compute time once.
      // Streams that launch kernels on this GPU split the resident blocks, so
      // their kernels really run side by side.
      s.max_blocks = std::max(1, prop.multiProcessorCount * touch_kernel_blocks_per_sm(kThreads) /
                                     std::max(1, kernel_streams_on_gpu(plan_, g)));
      s.clock_khz = wall_clock_khz(g);
      s.warp_size = prop.warpSize;
    }
    host_ptrs_.assign(plan_.allocations.size(), nullptr);
    dev_ptrs_.assign(plan_.allocations.size(), nullptr);
    kernel_events_.resize(plan_.kernels.size());
    for (std::size_t k = 0; k < plan_.kernels.size(); ++k) {
      UMSIM_GPU_CHECK(hipSetDevice(plan_.kernels[k].gpu));
      UMSIM_GPU_CHECK(hipEventCreate(&kernel_events_[k].first));
      UMSIM_GPU_CHECK(hipEventCreate(&kernel_events_[k].second));
    }
    for (std::size_t e = 0; e < plan_.events.size(); ++e) named_events_.push_back(nullptr);
    UMSIM_GPU_CHECK(hipSetDevice(0));
    UMSIM_GPU_CHECK(hipEventCreate(&base_event_));
    // The copies' host buffers, written once so that their pages exist before the replay.
    if (plan_.pinned_staging_bytes > 0) {
      UMSIM_GPU_CHECK(hipHostMalloc(&pinned_staging_, plan_.pinned_staging_bytes, hipHostMallocDefault));
      std::memset(pinned_staging_, 1, plan_.pinned_staging_bytes);
    }
    if (plan_.pageable_staging_bytes > 0) pageable_staging_.assign(plan_.pageable_staging_bytes, 1);
  }

  // hipMemcpy / hipMemcpyAsync of a copy step. A synchronous copy waits for its
  // stream's earlier work first (the replay's streams do not order with the
  // legacy default stream that hipMemcpy uses), then blocks the host until done.
  void copy(const Step& s) {
    const int gpu = s.processor.gpu_index();
    const auto kind = static_cast<trace::CopyKind>(s.op & trace::kCopyKindMask);
    const bool async = (s.op & trace::kAsyncBit) != 0;
    char* here = dev_ptrs_[s.slot] + s.offset;
    void* dst = here;
    const void* src = nullptr;
    hipMemcpyKind direction = hipMemcpyDefault;
    switch (kind) {
      case trace::CopyKind::kFromPinnedHost: src = pinned_staging_, direction = hipMemcpyHostToDevice; break;
      case trace::CopyKind::kFromPageableHost: src = pageable_staging_.data(), direction = hipMemcpyHostToDevice; break;
      case trace::CopyKind::kToPinnedHost: dst = pinned_staging_, src = here, direction = hipMemcpyDeviceToHost; break;
      case trace::CopyKind::kToPageableHost:
        dst = pageable_staging_.data(), src = here, direction = hipMemcpyDeviceToHost;
        break;
      case trace::CopyKind::kBetweenAllocations: src = dev_ptrs_[s.count] + s.stride; break;
    }
    hipStream_t st = stream(gpu, s.stream);
    UMSIM_GPU_CHECK(hipSetDevice(gpu));
    if (async) {
      UMSIM_GPU_CHECK(hipMemcpyAsync(dst, src, s.length, direction, st));
    } else {
      UMSIM_GPU_CHECK(hipStreamSynchronize(st));
      UMSIM_GPU_CHECK(hipMemcpy(dst, src, s.length, direction));
    }
  }

  void memset(const Step& s) {
    const int gpu = s.processor.gpu_index();
    hipStream_t st = stream(gpu, s.stream);
    UMSIM_GPU_CHECK(hipSetDevice(gpu));
    if ((s.op & trace::kAsyncBit) != 0) {
      UMSIM_GPU_CHECK(hipMemsetAsync(dev_ptrs_[s.slot] + s.offset, 0, s.length, st));
    } else {
      UMSIM_GPU_CHECK(hipStreamSynchronize(st));
      UMSIM_GPU_CHECK(hipMemset(dev_ptrs_[s.slot] + s.offset, 0, s.length));
    }
  }

  // hipDeviceEnablePeerAccess both ways; undone at teardown, so that a second
  // pass of the same plan starts without peer access again.
  void enable_peers(const Step& s) {
    const int a = s.processor.gpu_index(), b = static_cast<int>(s.count);
    for (auto [from, to] : {std::pair{a, b}, std::pair{b, a}}) {
      int can = 0;
      UMSIM_GPU_CHECK(hipDeviceCanAccessPeer(&can, from, to));
      if (!can) throw GpuError(plan_.trace + ": gpu" + std::to_string(from) + " cannot access gpu" + std::to_string(to) +
                               "'s memory (hipDeviceCanAccessPeer); 'peer enable' needs peer-capable GPUs");
      UMSIM_GPU_CHECK(hipSetDevice(from));
      const hipError_t e = hipDeviceEnablePeerAccess(to, 0);
      if (e == hipErrorPeerAccessAlreadyEnabled) {
        (void)hipGetLastError();
        continue;
      }
      UMSIM_GPU_CHECK(e);
      peers_enabled_.emplace_back(from, to);
    }
  }

  hipStream_t stream(int gpu, std::uint32_t id) {
    auto key = std::make_pair(gpu, id);
    auto it = streams_.find(key);
    if (it != streams_.end()) return it->second;
    UMSIM_GPU_CHECK(hipSetDevice(gpu));
    hipStream_t s;
    UMSIM_GPU_CHECK(hipStreamCreateWithFlags(&s, hipStreamNonBlocking));
    streams_[key] = s;
    return s;
  }

  void launch_touch(int gpu, hipStream_t s, std::uint64_t first, std::uint64_t count, std::uint64_t compute_ns) {
    const GpuSide& g = gpus_[gpu];
    TouchArgs a;
    a.entries = g.entries + first;
    a.shapes = g.shapes + first;
    a.count = count;
    a.bases = g.bases;
    a.compute_ns = compute_ns;
    a.wall_clock_khz = g.clock_khz;
    a.sink = g.sink;
    // One warp per page access.
    const std::uint64_t want = (count * g.warp_size + kThreads - 1) / kThreads;
    const int blocks = static_cast<int>(std::clamp<std::uint64_t>(want, 1, g.max_blocks));
    UMSIM_GPU_CHECK(launch_touch_kernel(a, blocks, kThreads, s));
  }

  // Median time of an empty touch kernel on gpu0: subtracted from kernel times to estimate stall.
  std::uint64_t measure_launch_overhead() {
    UMSIM_GPU_CHECK(hipSetDevice(0));
    hipStream_t s = stream(0, plan_.streams.empty() ? 0 : plan_.streams.front());
    hipEvent_t a, b;
    UMSIM_GPU_CHECK(hipEventCreate(&a));
    UMSIM_GPU_CHECK(hipEventCreate(&b));
    std::vector<std::uint64_t> t;
    for (int i = 0; i < 21; ++i) {
      UMSIM_GPU_CHECK(hipEventRecord(a, s));
      launch_touch(0, s, 0, 0, 0);
      UMSIM_GPU_CHECK(hipEventRecord(b, s));
      UMSIM_GPU_CHECK(hipEventSynchronize(b));
      float ms = 0;
      UMSIM_GPU_CHECK(hipEventElapsedTime(&ms, a, b));
      t.push_back(static_cast<std::uint64_t>(ms * 1e6));
    }
    UMSIM_GPU_CHECK(hipEventDestroy(a));
    UMSIM_GPU_CHECK(hipEventDestroy(b));
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
  }

  void sync_all() {
    for (int g = 0; g < plan_.gpus_used; ++g) {
      UMSIM_GPU_CHECK(hipSetDevice(g));
      UMSIM_GPU_CHECK(hipDeviceSynchronize());
    }
  }

  void allocate(const Step& s) {
    const PlanAllocation& a = plan_.allocations[s.slot];
    void* host = nullptr;
    void* dev = nullptr;
    switch (a.kind) {
      case AllocKind::kManaged:
        UMSIM_GPU_CHECK(hipMallocManaged(&host, a.bytes, hipMemAttachGlobal));
        dev = host;
        // A placement (on=gpuN) populates the pages there before the trace goes on.
        if (a.placement.is_gpu()) {
          UMSIM_GPU_CHECK(hipSetDevice(a.placement.gpu_index()));
          UMSIM_GPU_CHECK(hipMemPrefetchAsync(host, a.bytes, a.placement.gpu_index(), stream(a.placement.gpu_index(), 0)));
          UMSIM_GPU_CHECK(hipStreamSynchronize(stream(a.placement.gpu_index(), 0)));
        }
        break;
      case AllocKind::kDevice:
        UMSIM_GPU_CHECK(hipSetDevice(a.placement.is_gpu() ? a.placement.gpu_index() : 0));
        UMSIM_GPU_CHECK(hipMalloc(&dev, a.bytes));
        break;
      case AllocKind::kSystem:
        // malloc memory: a GPU reaches it only through HMM / XNACK page faults.
        host = std::aligned_alloc(4096, (a.bytes + 4095) / 4096 * 4096);
        if (!host) throw std::runtime_error("cannot allocate " + std::to_string(a.bytes) + " bytes of system memory");
        dev = host;
        break;
      case AllocKind::kPinned:
      case AllocKind::kMapped:
        UMSIM_GPU_CHECK(hipHostMalloc(&host, a.bytes, a.kind == AllocKind::kMapped ? hipHostMallocMapped
                                                                                   : hipHostMallocDefault));
        if (hipHostGetDevicePointer(&dev, host, 0) != hipSuccess) {
          (void)hipGetLastError();
          dev = host;  // unified addressing: the host pointer is valid on the GPU
        }
        break;
    }
    host_ptrs_[s.slot] = static_cast<char*>(host);
    dev_ptrs_[s.slot] = static_cast<char*>(dev);
    for (int g = 0; g < plan_.gpus_used; ++g) {
      UMSIM_GPU_CHECK(hipSetDevice(g));
      UMSIM_GPU_CHECK(hipMemcpy(gpus_[g].bases + s.slot, &dev_ptrs_[s.slot], sizeof(char*), hipMemcpyHostToDevice));
    }
  }

  void release(std::uint32_t slot) {
    const PlanAllocation& a = plan_.allocations[slot];
    if (a.kind == AllocKind::kManaged || a.kind == AllocKind::kDevice) {
      if (dev_ptrs_[slot]) UMSIM_GPU_CHECK(hipFree(dev_ptrs_[slot]));
    } else if (a.kind == AllocKind::kSystem) {
      std::free(host_ptrs_[slot]);
    } else if (host_ptrs_[slot]) {
      UMSIM_GPU_CHECK(hipHostFree(host_ptrs_[slot]));
    }
    host_ptrs_[slot] = dev_ptrs_[slot] = nullptr;
  }

  // The CPU reads, writes or atomically updates the whole 4 KiB page (the GPU
  // side does the same), so resident-page costs compare like for like.
  void cpu_access(const Step& s) {
    char* base = host_ptrs_[s.slot];
    trace::Event e;
    e.offset = s.offset;
    e.length = s.length;
    e.stride = s.stride;
    const auto type = static_cast<AccessType>(s.op);
    std::uint64_t acc = 0;
    constexpr std::size_t kWords = trace::kPageSize / sizeof(std::uint64_t);
    // Exactly the bytes the trace names (traces/page_touch.h): the 8-byte
    // words a contiguous touch overlaps, or the 4-byte words of a strided one.
    for (std::uint32_t pass = 0; pass < s.count; ++pass)
      trace::for_each_page_once(e, [&](std::uint64_t page) {
        char* const pg = base + page * trace::kPageSize;
        const trace::PageTouch t = trace::page_touch(e, page);
        if (t.step == 0) {
          auto* p = reinterpret_cast<volatile std::uint64_t*>(pg);
          const std::size_t lo = t.first / 8, hi = std::min<std::size_t>(kWords, (t.first + t.count + 7) / 8);
          if (type == AccessType::kRead) {
            for (std::size_t w = lo; w < hi; ++w) acc += p[w];
          } else if (type == AccessType::kReadModifyWrite) {
            for (std::size_t w = lo; w < hi; ++w) p[w] = p[w] + 1;
          } else if (type == AccessType::kWrite) {
            for (std::size_t w = lo; w < hi; ++w) p[w] = page + w;
          } else {
            for (std::size_t w = lo; w < hi; ++w) __atomic_fetch_add(const_cast<std::uint64_t*>(p + w), 1, __ATOMIC_RELAXED);
          }
          return;
        }
        for (std::uint32_t j = 0; j < t.count; ++j) {
          auto* w = reinterpret_cast<volatile std::uint32_t*>(pg + ((t.first + std::size_t{j} * t.step) & ~std::size_t{3}));
          if (type == AccessType::kRead) acc += *w;
          else if (type == AccessType::kReadModifyWrite) *w = *w + 1;
          else if (type == AccessType::kWrite) *w = static_cast<std::uint32_t>(page + j);
          else __atomic_fetch_add(const_cast<std::uint32_t*>(w), 1u, __ATOMIC_RELAXED);
        }
      });
    cpu_sink_ += acc;
  }

  void close_phase(Measurements& m, std::size_t phase) {
    sync_all();
    m.phases[phase].time_ns = since_ns(t0_) - m.phases[phase].start_ns;
    m.phases[phase].counter_window.end = counters_.now();
  }

  void open_phase(Measurements& m, std::size_t phase) {
    m.phases[phase].start_ns = since_ns(t0_);
    m.phases[phase].counter_window.start = counters_.now();
  }

  // Every stream and named event the replay uses, created before the timing
  // starts, as a program creates them up front: created at first use (before
  // session 103), a stream's creation added its host time, about 0.2 ms, to
  // the phase that first used it, which no trace statement asks for.
  void create_streams_and_events() {
    for (const Step& s : plan_.steps) {
      switch (s.kind) {
        case StepKind::kKernel: {
          const PlanKernel& k = plan_.kernels[s.index];
          stream(k.gpu, k.stream);
          break;
        }
        case StepKind::kPrefetch: stream(s.processor.is_gpu() ? s.processor.gpu_index() : 0, s.stream); break;
        case StepKind::kCopy:
        case StepKind::kMemset: stream(s.processor.gpu_index(), s.stream); break;
        case StepKind::kEventRecord:
        case StepKind::kEventWait: stream(0, s.stream); break;
        default: break;
      }
    }
    UMSIM_GPU_CHECK(hipSetDevice(0));
    for (hipEvent_t& ev : named_events_)
      if (!ev) UMSIM_GPU_CHECK(hipEventCreateWithFlags(&ev, hipEventDisableTiming));
  }

  void execute(Measurements& m) {
    m.kernels.resize(plan_.kernels.size());
    m.phases.resize(plan_.phases.size());
    create_streams_and_events();
    sync_all();
    UMSIM_GPU_CHECK(hipSetDevice(0));
    UMSIM_GPU_CHECK(hipEventRecord(base_event_, stream(0, plan_.streams.empty() ? 0 : plan_.streams.front())));
    t0_ = Clock::now();
    std::size_t phase = 0;
    excluded_.assign(plan_.phases.size(), 0);
    open_phase(m, 0);
    for (const Step& s : plan_.steps) {
      switch (s.kind) {
        // Allocation and free calls cost host time the model does not charge
        // (pinning, page-table teardown): timed and excluded from phase and total
        // times. hipFree synchronizes the device anyway; syncing first keeps the
        // kernels' time out of the excluded span.
        case StepKind::kAlloc: {
          const auto t = Clock::now();
          allocate(s);
          excluded_[phase] += since_ns(t);
          break;
        }
        case StepKind::kFree: {
          sync_all();
          const auto t = Clock::now();
          release(s.slot);
          excluded_[phase] += since_ns(t);
          break;
        }
        case StepKind::kKernel: {
          const PlanKernel& k = plan_.kernels[s.index];
          hipStream_t st = stream(k.gpu, k.stream);
          UMSIM_GPU_CHECK(hipSetDevice(k.gpu));
          UMSIM_GPU_CHECK(hipEventRecord(kernel_events_[s.index].first, st));
          launch_touch(k.gpu, st, k.first_entry, k.entry_count, k.compute_ns);
          UMSIM_GPU_CHECK(hipEventRecord(kernel_events_[s.index].second, st));
          break;
        }
        case StepKind::kCpuAccess: cpu_access(s); break;
        case StepKind::kPrefetch: {
          const int gpu = s.processor.is_gpu() ? s.processor.gpu_index() : 0;
          UMSIM_GPU_CHECK(hipSetDevice(gpu));
          UMSIM_GPU_CHECK(hipMemPrefetchAsync(dev_ptrs_[s.slot] + s.offset, s.length, device_of(s.processor),
                                              stream(gpu, s.stream)));
          break;
        }
        case StepKind::kAdvise: {
          const auto advice = static_cast<trace::Advice>(s.op);
          const int device = s.processor.is_none() ? 0 : device_of(s.processor);
          UMSIM_GPU_CHECK(hipMemAdvise(dev_ptrs_[s.slot] + s.offset, s.length, to_hip(advice), device));
          break;
        }
        case StepKind::kSync:
          switch (static_cast<trace::SyncScope>(s.op)) {
            case trace::SyncScope::kAll: sync_all(); break;
            case trace::SyncScope::kGpu:
              UMSIM_GPU_CHECK(hipSetDevice(s.processor.gpu_index()));
              UMSIM_GPU_CHECK(hipDeviceSynchronize());
              break;
            case trace::SyncScope::kStream:
              for (int g = 0; g < plan_.gpus_used; ++g)
                if (streams_.count({g, s.stream})) UMSIM_GPU_CHECK(hipStreamSynchronize(streams_[{g, s.stream}]));
              break;
          }
          break;
        case StepKind::kEventRecord: {
          hipEvent_t& ev = named_events_[s.index];
          UMSIM_GPU_CHECK(hipSetDevice(0));
          if (!ev) UMSIM_GPU_CHECK(hipEventCreateWithFlags(&ev, hipEventDisableTiming));
          UMSIM_GPU_CHECK(hipEventRecord(ev, stream(0, s.stream)));
          break;
        }
        case StepKind::kEventWait:
          UMSIM_GPU_CHECK(hipStreamWaitEvent(stream(0, s.stream), named_events_[s.index], 0));
          break;
        case StepKind::kPhase:
          close_phase(m, phase);
          phase = s.index;
          open_phase(m, phase);
          break;
        case StepKind::kCopy: copy(s); break;
        case StepKind::kMemset: memset(s); break;
        case StepKind::kPeerEnable: {
          // Enabling maps every existing allocation on the peer: host time the model does not charge.
          const auto t = Clock::now();
          enable_peers(s);
          excluded_[phase] += since_ns(t);
          break;
        }
      }
    }
    close_phase(m, phase);
    m.total_ns = since_ns(t0_);
    std::uint64_t excluded = 0;
    for (std::size_t p = 0; p < m.phases.size(); ++p) {
      m.phases[p].time_ns -= std::min(m.phases[p].time_ns, excluded_[p]);
      excluded += excluded_[p];
    }
    m.total_ns -= std::min(m.total_ns, excluded);
    m.hardware["alloc_free_ns_excluded"] = excluded;
  }

  void collect(Measurements& m) {
    for (std::size_t k = 0; k < plan_.kernels.size(); ++k) {
      float ms = 0, from_base = 0;
      UMSIM_GPU_CHECK(hipEventElapsedTime(&ms, kernel_events_[k].first, kernel_events_[k].second));
      if (plan_.kernels[k].gpu == 0) (void)hipEventElapsedTime(&from_base, base_event_, kernel_events_[k].first);
      m.kernels[k].time_ns = static_cast<std::uint64_t>(static_cast<double>(ms) * 1e6);
      m.kernels[k].start_ns = static_cast<std::uint64_t>(std::max(0.0, static_cast<double>(from_base) * 1e6));
    }
    if (!opt_.counters || !counters_.active()) return;
    std::vector<KernelActivity> activity;
    const std::uint64_t dropped_before = counters_.dropped();
    counters_.take(&m.records, &activity);
    m.hardware["counter_records"] = m.records.size();
    m.hardware["counter_records_dropped"] = counters_.dropped() - dropped_before;
    std::sort(activity.begin(), activity.end(), [](const auto& a, const auto& b) { return a.correlation < b.correlation; });
    // The replay's kernels are the last ones launched, in order.
    if (activity.size() >= plan_.kernels.size()) {
      const std::size_t skip = activity.size() - plan_.kernels.size();
      for (std::size_t k = 0; k < plan_.kernels.size(); ++k)
        m.kernels[k].counter_window = {activity[skip + k].start, activity[skip + k].end, activity[skip + k].device};
      m.counters_available = true;
    } else {
      m.hardware["counters_unavailable"] = "kernel activity records missing (" + std::to_string(activity.size()) + " of " +
                                           std::to_string(plan_.kernels.size()) + ")";
    }
  }

  void teardown() {
    for (std::uint32_t slot = 0; slot < plan_.allocations.size(); ++slot)
      if (host_ptrs_[slot] || dev_ptrs_[slot]) release(slot);
    for (auto& [key, s] : streams_) (void)hipStreamDestroy(s);
    for (auto& [a, b] : kernel_events_) {
      (void)hipEventDestroy(a);
      (void)hipEventDestroy(b);
    }
    for (auto& e : named_events_)
      if (e) (void)hipEventDestroy(e);
    (void)hipEventDestroy(base_event_);
    for (auto& g : gpus_) {
      (void)hipFree(g.entries);
      (void)hipFree(g.shapes);
      (void)hipFree(g.bases);
      (void)hipFree(g.sink);
    }
    for (auto [from, to] : peers_enabled_) {
      (void)hipSetDevice(from);
      (void)hipDeviceDisablePeerAccess(to);
    }
    if (pinned_staging_) (void)hipHostFree(pinned_staging_);
  }

  const Plan& plan_;
  ReplayOptions opt_;
  UmCounterSource& counters_ = UmCounterSource::instance();
  std::vector<GpuSide> gpus_;
  std::vector<char*> host_ptrs_, dev_ptrs_;
  std::map<std::pair<int, std::uint32_t>, hipStream_t> streams_;
  std::vector<std::pair<hipEvent_t, hipEvent_t>> kernel_events_;
  std::vector<hipEvent_t> named_events_;
  hipEvent_t base_event_ = nullptr;
  Clock::time_point t0_;
  std::uint64_t cpu_sink_ = 0;
  std::vector<std::uint64_t> excluded_;  // per phase: host time inside alloc / free calls
  void* pinned_staging_ = nullptr;        // host buffer of pinned copies (hipHostMalloc)
  std::vector<char> pageable_staging_;    // host buffer of pageable copies (plain memory)
  std::vector<std::pair<int, int>> peers_enabled_;  // (gpu, peer) pairs this replay enabled
};

}  // namespace

nlohmann::ordered_json describe_gpu(int device) {
  hipDeviceProp_t prop;
  UMSIM_GPU_CHECK(hipGetDeviceProperties(&prop, device));
  int driver = 0, runtime = 0;
  (void)hipDriverGetVersion(&driver);
  (void)hipRuntimeGetVersion(&runtime);
  nlohmann::ordered_json j;
  j["name"] = prop.name;
  j["memory_bytes"] = static_cast<std::uint64_t>(prop.totalGlobalMem);
  j["multiprocessors"] = prop.multiProcessorCount;
  j["driver_version"] = driver;
  j["runtime_version"] = runtime;
  j["platform"] = UMSIM_NVIDIA ? "nvidia" : "amd";
#if !UMSIM_NVIDIA
  // XNACK decides the AMD semantics (docs/hip_backend.md): the device's mode
  // from its target id, HSA_XNACK as this process saw it, and the matching
  // `umsim replay --vendor` preset.
  j["xnack"] = xnack_json(prop.gcnArchName, std::getenv("HSA_XNACK"), prop.integrated != 0);
#endif
  return j;
}

Measurements replay_plan(const Plan& plan, const ReplayOptions& options) {
  Runner r(plan, options);
  return r.run();
}

// Collecting UM counters slows kernels (CUPTI re-arms its buffers after each
// flush) and the driver's fault path, so times come from a pass without
// counters and the counters from a second pass of the same plan.
Measurements replay_plan_two_pass(const Plan& plan, const ReplayOptions& options,
                                  const std::function<void()>& between_passes) {
  ReplayOptions timing = options;
  timing.counters = false;
  Measurements m = replay_plan(plan, timing);
  if (between_passes) between_passes();
  if (!options.counters) return m;
  ReplayOptions counting = options;
  counting.counters = true;
  Measurements c = replay_plan(plan, counting);
  if (!c.counters_available) {
    m.hardware["counters_unavailable"] = c.hardware.value("counters_unavailable", std::string("unknown reason"));
    return m;
  }
  m.counters_available = true;
  m.records = std::move(c.records);
  for (std::size_t k = 0; k < m.kernels.size(); ++k) m.kernels[k].counter_window = c.kernels[k].counter_window;
  for (std::size_t p = 0; p < m.phases.size(); ++p) m.phases[p].counter_window = c.phases[p].counter_window;
  m.hardware["counters"] = c.hardware["counters"];
  m.hardware["counter_records"] = c.hardware["counter_records"];
  m.hardware["counter_records_dropped"] = c.hardware["counter_records_dropped"];
  nlohmann::ordered_json pass;
  pass["total_ns"] = c.total_ns;
  pass["kernel_ns"] = nlohmann::ordered_json::array();
  for (const auto& k : c.kernels) pass["kernel_ns"].push_back(k.time_ns);
  m.hardware["counter_pass_times"] = pass;
  return m;
}

}  // namespace umsim::hip
