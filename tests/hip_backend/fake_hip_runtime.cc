// A fake HIP runtime for testing umsim-hip without a GPU: one device whose free
// memory is $UMSIM_FAKE_FREE_BYTES (default 1 GiB). Every call is logged to
// stderr as "fake hip: NAME"; every call past the device queries fails with
// hipErrorNotSupported, so a test sees exactly how far the backend went (an
// allocation, "fake hip: hipMalloc", must never follow a refusal).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "hip_backend/gpu/gpu_api.h"
#include "hip_backend/gpu/touch_kernels.h"

namespace {

hipError_t called(const char* name, hipError_t result = hipErrorNotSupported) {
  std::fprintf(stderr, "fake hip: %s\n", name);
  return result;
}

std::uint64_t free_bytes() {
  const char* v = std::getenv("UMSIM_FAKE_FREE_BYTES");
  return v ? std::strtoull(v, nullptr, 10) : std::uint64_t{1} << 30;
}

}  // namespace

extern "C" {

// Device queries: answered.
hipError_t hipGetDeviceCount(int* count) {
  *count = 1;
  return called("hipGetDeviceCount", hipSuccess);
}
hipError_t hipSetDevice(int) { return called("hipSetDevice", hipSuccess); }
hipError_t hipMemGetInfo(size_t* free, size_t* total) {
  *free = free_bytes();
  *total = 2 * free_bytes();
  return called("hipMemGetInfo", hipSuccess);
}
hipError_t hipRuntimeGetVersion(int* v) {
  *v = 50200000;
  return called("hipRuntimeGetVersion", hipSuccess);
}
hipError_t hipDriverGetVersion(int* v) {
  *v = 50200000;
  return called("hipDriverGetVersion", hipSuccess);
}
const char* hipGetErrorString(hipError_t) { return "not supported by the fake device"; }
hipError_t hipGetLastError() { return hipSuccess; }

// Everything else fails, after saying it was reached.
hipError_t hipMalloc(void**, size_t) { return called("hipMalloc"); }
hipError_t hipMallocManaged(void**, size_t, unsigned int) { return called("hipMallocManaged"); }
hipError_t hipHostMalloc(void**, size_t, unsigned int) { return called("hipHostMalloc"); }
hipError_t hipFree(void*) { return called("hipFree"); }
hipError_t hipHostFree(void*) { return called("hipHostFree"); }
hipError_t hipHostGetDevicePointer(void**, void*, unsigned int) { return called("hipHostGetDevicePointer"); }
hipError_t hipMemcpy(void*, const void*, size_t, hipMemcpyKind) { return called("hipMemcpy"); }
hipError_t hipMemcpyAsync(void*, const void*, size_t, hipMemcpyKind, hipStream_t) { return called("hipMemcpyAsync"); }
hipError_t hipMemcpyPeerAsync(void*, int, const void*, int, size_t, hipStream_t) { return called("hipMemcpyPeerAsync"); }
hipError_t hipMemset(void*, int, size_t) { return called("hipMemset"); }
hipError_t hipMemsetAsync(void*, int, size_t, hipStream_t) { return called("hipMemsetAsync"); }
hipError_t hipMemAdvise(const void*, size_t, hipMemoryAdvise, int) { return called("hipMemAdvise"); }
hipError_t hipMemPrefetchAsync(const void*, size_t, int, hipStream_t) { return called("hipMemPrefetchAsync"); }
hipError_t hipGetDeviceProperties(hipDeviceProp_t* prop, int) {
  *prop = hipDeviceProp_t{};
  std::snprintf(prop->name, sizeof prop->name, "fake device");
  prop->totalGlobalMem = 2 * free_bytes();
  prop->multiProcessorCount = 4;
  return called("hipGetDeviceProperties", hipSuccess);
}
hipError_t hipDeviceCanAccessPeer(int*, int, int) { return called("hipDeviceCanAccessPeer"); }
hipError_t hipDeviceEnablePeerAccess(int, unsigned int) { return called("hipDeviceEnablePeerAccess"); }
hipError_t hipDeviceDisablePeerAccess(int) { return called("hipDeviceDisablePeerAccess"); }
hipError_t hipDeviceSynchronize() { return called("hipDeviceSynchronize"); }
hipError_t hipStreamCreateWithFlags(hipStream_t*, unsigned int) { return called("hipStreamCreateWithFlags"); }
hipError_t hipStreamDestroy(hipStream_t) { return called("hipStreamDestroy"); }
hipError_t hipStreamSynchronize(hipStream_t) { return called("hipStreamSynchronize"); }
hipError_t hipStreamWaitEvent(hipStream_t, hipEvent_t, unsigned int) { return called("hipStreamWaitEvent"); }
hipError_t hipEventCreate(hipEvent_t*) { return called("hipEventCreate"); }
hipError_t hipEventCreateWithFlags(hipEvent_t*, unsigned) { return called("hipEventCreateWithFlags"); }
hipError_t hipEventDestroy(hipEvent_t) { return called("hipEventDestroy"); }
hipError_t hipEventRecord(hipEvent_t, hipStream_t) { return called("hipEventRecord"); }
hipError_t hipEventSynchronize(hipEvent_t) { return called("hipEventSynchronize"); }
hipError_t hipEventElapsedTime(float*, hipEvent_t, hipEvent_t) { return called("hipEventElapsedTime"); }

}  // extern "C"

namespace umsim::hip {

hipError_t launch_touch_kernel(const TouchArgs&, int, int, hipStream_t) { return called("launch_touch_kernel"); }
int touch_kernel_blocks_per_sm(int) { return 1; }

}  // namespace umsim::hip
