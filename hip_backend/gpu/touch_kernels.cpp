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

// One warp (wavefront) per access entry: the warp reads, writes, reads then
// writes back (rmw) or atomically adds exactly the bytes of the page the
// entry's TouchShape names (a whole page in 16-byte pieces in the common case;
// atomics add to one word per 16-byte piece or per strided word), so a
// sub-page touch moves only its sectors, also over remote mappings, and all
// lanes of a warp fault on the same page. Bits as in plan.h AccessEntry and
// TouchShape.
#if UMSIM_NVIDIA
constexpr int kLanes = 32;  // warp size
#else
constexpr int kLanes = 64;  // wavefront size on gfx90a / gfx908
#endif
constexpr int kPerLane = 4096 / 16 / kLanes;  // 16-byte pieces of a page per lane
constexpr std::uint64_t kWholePageShape = std::uint64_t{4096} << 12;  // TouchShape of a whole page (plan.h)

#if UMSIM_NVIDIA
// 256 threads, 8 blocks per SM: full occupancy (at most 32 registers a thread).
#define UMSIM_TOUCH_BOUNDS __launch_bounds__(256, 8)
#else
#define UMSIM_TOUCH_BOUNDS
#endif

// The bytes of a page a TouchShape (plan.h) names: contiguous bytes in the
// 16-byte pieces that overlap them, or 4-byte words at a stride, spread over
// the warp's lanes. Returns the xor of what was read.
static __device__ unsigned touch_part(char* page, unsigned type, std::uint64_t shape, unsigned lane) {
  const unsigned first = static_cast<unsigned>(shape & 0xfffu);
  const unsigned count = static_cast<unsigned>((shape >> 12) & 0x1fffu);
  const unsigned step = static_cast<unsigned>((shape >> 25) & 0x1fffu);
  unsigned acc = 0;
  if (step == 0) {
    const unsigned lo = first / 16, hi = (first + count + 15) / 16;
    uint4* p = reinterpret_cast<uint4*>(page);
    for (unsigned i = lo + lane; i < hi; i += kLanes) {
      if (type == 0) {
        const uint4 v = p[i];
        acc ^= v.x ^ v.y ^ v.z ^ v.w;
      } else if (type == 1) {
        p[i] = uint4{i, lane, 0, 0};
      } else if (type == 3) {  // read-modify-write: the store depends on the load
        const uint4 v = p[i];
        p[i] = uint4{v.x + 1u, v.y, v.z, v.w};
      } else {
        atomicAdd(reinterpret_cast<unsigned*>(p + i), 1u);
      }
    }
    return acc;
  }
  for (unsigned j = lane; j < count; j += kLanes) {
    unsigned* w = reinterpret_cast<unsigned*>(page + ((first + j * step) & ~3u));
    if (type == 0) acc ^= *w;
    else if (type == 1) *w = j;
    else if (type == 3) *w = *w + 1u;
    else atomicAdd(w, 1u);
  }
  return acc;
}

static __global__ void UMSIM_TOUCH_BOUNDS touch_kernel(TouchArgs a) {
  const unsigned lane = threadIdx.x % kLanes;
  const std::uint64_t warp = (static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x) / kLanes;
  const std::uint64_t warps = static_cast<std::uint64_t>(gridDim.x) * blockDim.x / kLanes;
  unsigned acc = 0;
  for (std::uint64_t i = warp; i < a.count; i += warps) {
    const std::uint64_t e = a.entries[i];
    const std::uint64_t shape = a.shapes[i];
    const unsigned type = static_cast<unsigned>(e & 3u);
    const unsigned slot = static_cast<unsigned>((e >> 2) & 4095u);
    const std::uint64_t page = e >> 14;
    char* base = a.bases[slot] + page * 4096ull;
    if (shape != kWholePageShape || type == 2) {
      acc ^= touch_part(base, type, shape, lane);
      continue;
    }
    // A whole page: every lane issues all its loads (or stores) before using
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
