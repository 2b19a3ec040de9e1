// A thin HIP-on-CUDA layer: the HIP names the backend uses, mapped onto the
// CUDA runtime, so the same runtime code builds with nvcc for NVIDIA GPUs.
// ROCm's own NVIDIA-platform headers are not packaged on Debian; this covers
// exactly what hip_backend/gpu/ calls and nothing more.
//
// CUDA 13 changed cudaMemPrefetchAsync and cudaMemAdvise to take a
// cudaMemLocation instead of a device ordinal; the wrappers below translate
// HIP's ordinal (hipCpuDeviceId = -1 for the host).
#pragma once

#include <cuda_runtime.h>

using hipError_t = cudaError_t;
using hipStream_t = cudaStream_t;
using hipEvent_t = cudaEvent_t;
using hipDeviceProp_t = cudaDeviceProp;
using hipMemoryAdvise = cudaMemoryAdvise;
using hipMemcpyKind = cudaMemcpyKind;

inline constexpr hipError_t hipSuccess = cudaSuccess;
inline constexpr int hipCpuDeviceId = cudaCpuDeviceId;
inline constexpr unsigned hipMemAttachGlobal = cudaMemAttachGlobal;
inline constexpr unsigned hipStreamNonBlocking = cudaStreamNonBlocking;
inline constexpr unsigned hipEventDefault = cudaEventDefault;
inline constexpr unsigned hipEventDisableTiming = cudaEventDisableTiming;
inline constexpr unsigned hipHostMallocDefault = cudaHostAllocDefault;
inline constexpr unsigned hipHostMallocMapped = cudaHostAllocMapped;
inline constexpr cudaMemcpyKind hipMemcpyHostToDevice = cudaMemcpyHostToDevice;
inline constexpr cudaMemcpyKind hipMemcpyDeviceToHost = cudaMemcpyDeviceToHost;
inline constexpr cudaMemcpyKind hipMemcpyDeviceToDevice = cudaMemcpyDeviceToDevice;
inline constexpr cudaMemcpyKind hipMemcpyDefault = cudaMemcpyDefault;
inline constexpr cudaMemoryAdvise hipMemAdviseSetReadMostly = cudaMemAdviseSetReadMostly;
inline constexpr cudaMemoryAdvise hipMemAdviseUnsetReadMostly = cudaMemAdviseUnsetReadMostly;
inline constexpr cudaMemoryAdvise hipMemAdviseSetPreferredLocation = cudaMemAdviseSetPreferredLocation;
inline constexpr cudaMemoryAdvise hipMemAdviseUnsetPreferredLocation = cudaMemAdviseUnsetPreferredLocation;
inline constexpr cudaMemoryAdvise hipMemAdviseSetAccessedBy = cudaMemAdviseSetAccessedBy;
inline constexpr cudaMemoryAdvise hipMemAdviseUnsetAccessedBy = cudaMemAdviseUnsetAccessedBy;

inline const char* hipGetErrorString(hipError_t e) { return cudaGetErrorString(e); }
inline hipError_t hipGetLastError() { return cudaGetLastError(); }
inline hipError_t hipGetDeviceCount(int* n) { return cudaGetDeviceCount(n); }
inline hipError_t hipSetDevice(int d) { return cudaSetDevice(d); }
inline hipError_t hipGetDevice(int* d) { return cudaGetDevice(d); }
inline hipError_t hipGetDeviceProperties(hipDeviceProp_t* p, int d) { return cudaGetDeviceProperties(p, d); }
inline hipError_t hipDriverGetVersion(int* v) { return cudaDriverGetVersion(v); }
inline hipError_t hipRuntimeGetVersion(int* v) { return cudaRuntimeGetVersion(v); }
inline hipError_t hipMemGetInfo(size_t* free_bytes, size_t* total_bytes) { return cudaMemGetInfo(free_bytes, total_bytes); }
inline hipError_t hipDeviceSynchronize() { return cudaDeviceSynchronize(); }

inline hipError_t hipMallocManaged(void** p, size_t n, unsigned flags = hipMemAttachGlobal) {
  return cudaMallocManaged(p, n, flags);
}
inline hipError_t hipMalloc(void** p, size_t n) { return cudaMalloc(p, n); }
inline hipError_t hipFree(void* p) { return cudaFree(p); }
inline hipError_t hipHostMalloc(void** p, size_t n, unsigned flags) { return cudaHostAlloc(p, n, flags); }
inline hipError_t hipHostFree(void* p) { return cudaFreeHost(p); }
inline hipError_t hipHostGetDevicePointer(void** d, void* h, unsigned flags) { return cudaHostGetDevicePointer(d, h, flags); }
inline hipError_t hipHostRegister(void* p, size_t n, unsigned flags) { return cudaHostRegister(p, n, flags); }
inline hipError_t hipHostUnregister(void* p) { return cudaHostUnregister(p); }
inline hipError_t hipMemcpy(void* d, const void* s, size_t n, cudaMemcpyKind k) { return cudaMemcpy(d, s, n, k); }
inline hipError_t hipMemcpyAsync(void* d, const void* s, size_t n, cudaMemcpyKind k, hipStream_t st) {
  return cudaMemcpyAsync(d, s, n, k, st);
}
inline hipError_t hipMemset(void* p, int v, size_t n) { return cudaMemset(p, v, n); }
inline hipError_t hipMemsetAsync(void* p, int v, size_t n, hipStream_t st) { return cudaMemsetAsync(p, v, n, st); }
inline hipError_t hipMemcpyPeerAsync(void* d, int dd, const void* s, int sd, size_t n, hipStream_t st) {
  return cudaMemcpyPeerAsync(d, dd, s, sd, n, st);
}
inline hipError_t hipDeviceCanAccessPeer(int* can, int d, int peer) { return cudaDeviceCanAccessPeer(can, d, peer); }
inline hipError_t hipDeviceEnablePeerAccess(int peer, unsigned flags) { return cudaDeviceEnablePeerAccess(peer, flags); }
inline constexpr hipError_t hipErrorPeerAccessAlreadyEnabled = cudaErrorPeerAccessAlreadyEnabled;
inline hipError_t hipDeviceDisablePeerAccess(int peer) { return cudaDeviceDisablePeerAccess(peer); }

// HIP takes a device ordinal (hipCpuDeviceId for the host); CUDA 13 a location.
inline cudaMemLocation umsim_cuda_location(int device) {
  cudaMemLocation loc{};
  if (device == cudaCpuDeviceId) {
    loc.type = cudaMemLocationTypeHost;
    loc.id = 0;
  } else {
    loc.type = cudaMemLocationTypeDevice;
    loc.id = device;
  }
  return loc;
}
inline hipError_t hipMemPrefetchAsync(const void* p, size_t n, int device, hipStream_t st = nullptr) {
  return cudaMemPrefetchAsync(p, n, umsim_cuda_location(device), 0, st);
}
inline hipError_t hipMemAdvise(const void* p, size_t n, hipMemoryAdvise advice, int device) {
  return cudaMemAdvise(p, n, advice, umsim_cuda_location(device));
}

inline hipError_t hipStreamCreateWithFlags(hipStream_t* s, unsigned flags) { return cudaStreamCreateWithFlags(s, flags); }
inline hipError_t hipStreamDestroy(hipStream_t s) { return cudaStreamDestroy(s); }
inline hipError_t hipStreamSynchronize(hipStream_t s) { return cudaStreamSynchronize(s); }
inline hipError_t hipStreamWaitEvent(hipStream_t s, hipEvent_t e, unsigned flags) { return cudaStreamWaitEvent(s, e, flags); }
inline hipError_t hipEventCreate(hipEvent_t* e) { return cudaEventCreate(e); }
inline hipError_t hipEventCreateWithFlags(hipEvent_t* e, unsigned flags) { return cudaEventCreateWithFlags(e, flags); }
inline hipError_t hipEventRecord(hipEvent_t e, hipStream_t s = nullptr) { return cudaEventRecord(e, s); }
inline hipError_t hipEventSynchronize(hipEvent_t e) { return cudaEventSynchronize(e); }
inline hipError_t hipEventElapsedTime(float* ms, hipEvent_t a, hipEvent_t b) { return cudaEventElapsedTime(ms, a, b); }
inline hipError_t hipEventDestroy(hipEvent_t e) { return cudaEventDestroy(e); }

template <typename Kernel>
inline hipError_t hipOccupancyMaxActiveBlocksPerMultiprocessor(int* blocks, Kernel kernel, int threads, size_t shmem) {
  return cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks, kernel, threads, shmem);
}

#define hipLaunchKernelGGL(kernel, grid, block, shmem, stream, ...) \
  kernel<<<(grid), (block), (shmem), (stream)>>>(__VA_ARGS__)
