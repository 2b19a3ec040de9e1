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

static __device__ inline void spin_ns(std::uint64_t ns, std::uint64_t wall_clock_khz) {
  if (ns == 0) return;
  const std::uint64_t t0 = device_now_ns(wall_clock_khz);
  while (device_now_ns(wall_clock_khz) - t0 < ns) {
  }
}

// One warp (wavefront) per access entry: the warp reads or writes the whole
// 4 KiB page in 16-byte pieces (an atomic access adds to one word per lane), so
// a page access moves a page's worth of data also over remote mappings, and
// all lanes of a warp fault on the same page. Bits as in plan.h AccessEntry.
static __global__ void touch_kernel(TouchArgs a) {
  const unsigned lane = threadIdx.x % warpSize;
  const std::uint64_t warp = (static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x) / warpSize;
  const std::uint64_t warps = static_cast<std::uint64_t>(gridDim.x) * blockDim.x / warpSize;
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
    uint4* p = reinterpret_cast<uint4*>(base);
    for (unsigned j = lane; j < 4096 / sizeof(uint4); j += warpSize) {
      if (type == 0) {
        const uint4 v = p[j];
        acc ^= v.x ^ v.y ^ v.z ^ v.w;
      } else {
        p[j] = uint4{static_cast<unsigned>(i), lane, j, 0};
      }
    }
  }
  spin_ns(a.compute_ns, a.wall_clock_khz);
  if (acc == 0x9e3779b9u) *a.sink = acc;
}

hipError_t launch_touch_kernel(const TouchArgs& args, int blocks, int threads, hipStream_t stream) {
  hipLaunchKernelGGL(touch_kernel, dim3(blocks), dim3(threads), 0, stream, args);
  return hipGetLastError();
}

}  // namespace umsim::hip
