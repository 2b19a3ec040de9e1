// Device code: the touch kernel that performs a kernel's page accesses from an
// access list in plain device memory, then spins for the kernel's compute time.
// This is the only translation unit compiled for the GPU (kept small on purpose).
#include "hip_backend/gpu/touch_kernels.h"

namespace umsim::hip {

static __device__ inline std::uint64_t device_now_ns(std::uint64_t wall_clock_khz) {
#if UMSIM_NVIDIA
  (void)wall_clock_khz;
  std::uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
#elif defined(__HIP_DEVICE_COMPILE__)
  // s_memrealtime: the constant "wall clock" (100 MHz on gfx9 parts).
  return __builtin_amdgcn_s_memrealtime() * 1000000ull / (wall_clock_khz ? wall_clock_khz : 100000ull);
#else
  (void)wall_clock_khz;
  return 0;
#endif
}

// Sleeps between clock reads: a warp polling the clock in a tight loop takes
// issue slots from the warps of its multiprocessor that are still accessing
// memory, and on an H200 that made a kernel's accesses up to 8x slower (128 MiB
// of resident pages: 30 us alone, 240 us beside spinning warps), so a kernel
// took far longer than its accesses plus its compute time. Sleeping warps leave
// the accesses at full speed and overshoot the compute time by about 1 us.
static __device__ inline void pause_warp() {
#if UMSIM_NVIDIA
  __nanosleep(1000);
#elif defined(__HIP_DEVICE_COMPILE__)
  __builtin_amdgcn_s_sleep(16);  // 16 x 64 clocks
#endif
}

static __device__ inline void spin_ns(std::uint64_t ns, std::uint64_t wall_clock_khz) {
  if (ns == 0) return;
  const std::uint64_t t0 = device_now_ns(wall_clock_khz);
  while (device_now_ns(wall_clock_khz) - t0 < ns) pause_warp();
}

// One warp (wavefront) per access entry: the warp reads, writes, or reads and
// then writes back (rmw) the whole 4 KiB page in 16-byte pieces (an atomic access adds to one word per lane), so
// a page access moves a page's worth of data also over remote mappings, and
// all lanes of a warp fault on the same page. Bits as in plan.h AccessEntry.
#if UMSIM_NVIDIA
constexpr int kLanes = 32;  // warp size
#else
constexpr int kLanes = 64;  // wavefront size on gfx90a / gfx908
#endif
constexpr int kPerLane = 4096 / 16 / kLanes;  // 16-byte pieces of a page per lane

#if UMSIM_NVIDIA
// 256 threads, 8 blocks per SM: full occupancy (at most 32 registers a thread).
#define UMSIM_TOUCH_BOUNDS __launch_bounds__(256, 8)
#else
#define UMSIM_TOUCH_BOUNDS
#endif

static __global__ void UMSIM_TOUCH_BOUNDS touch_kernel(TouchArgs a) {
  const unsigned lane = threadIdx.x % kLanes;
  const std::uint64_t warp = (static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x) / kLanes;
  const std::uint64_t warps = static_cast<std::uint64_t>(gridDim.x) * blockDim.x / kLanes;
  unsigned acc = 0;
  for (std::uint64_t i = warp; i < a.count; i += warps) {
    const std::uint64_t e = a.entries[i];
    const unsigned type = static_cast<unsigned>(e & 3u);
    const unsigned slot = static_cast<unsigned>((e >> 2) & 4095u);
    const std::uint64_t page = e >> 14;
    char* base = a.bases[slot] + page * 4096ull;
    if (type == 2) {
      atomicAdd(reinterpret_cast<unsigned*>(base) + lane, 1u);
      continue;
    }
    // Every lane issues all its loads (or stores) of the page before using
    // them, so resident pages are read at memory speed, not latency-bound.
    uint4* p = reinterpret_cast<uint4*>(base) + lane;
    if (type == 0) {
      uint4 v[kPerLane];
#pragma unroll
      for (int u = 0; u < kPerLane; ++u) v[u] = p[u * kLanes];
#pragma unroll
      for (int u = 0; u < kPerLane; ++u) acc ^= v[u].x ^ v[u].y ^ v[u].z ^ v[u].w;
    } else if (type == 3) {
      // Read-modify-write: every store depends on its load, as in x[i] += 1.
      uint4 v[kPerLane];
#pragma unroll
      for (int u = 0; u < kPerLane; ++u) v[u] = p[u * kLanes];
#pragma unroll
      for (int u = 0; u < kPerLane; ++u) p[u * kLanes] = uint4{v[u].x + 1u, v[u].y, v[u].z, v[u].w};
    } else {
#pragma unroll
      for (int u = 0; u < kPerLane; ++u) p[u * kLanes] = uint4{static_cast<unsigned>(i), lane, static_cast<unsigned>(u), 0};
    }
  }
  spin_ns(a.compute_ns, a.wall_clock_khz);
  if (acc == 0x9e3779b9u) *a.sink = acc;
}

int touch_kernel_blocks_per_sm(int threads) {
  int n = 0;
  if (hipOccupancyMaxActiveBlocksPerMultiprocessor(&n, touch_kernel, threads, 0) != hipSuccess) {
    (void)hipGetLastError();
    return 1;
  }
  return n > 0 ? n : 1;
}

hipError_t launch_touch_kernel(const TouchArgs& args, int blocks, int threads, hipStream_t stream) {
  hipLaunchKernelGGL(touch_kernel, dim3(blocks), dim3(threads), 0, stream, args);
  return hipGetLastError();
}

}  // namespace umsim::hip
