// Selects the GPU runtime: real HIP (AMD, hipcc) or the HIP-on-CUDA layer (nvcc).
#pragma once

#if defined(__CUDACC__) || defined(UMSIM_HIP_ON_CUDA)
#define UMSIM_NVIDIA 1
#include "hip_backend/hip_on_cuda.h"
#elif defined(__HIPCC__)
#define UMSIM_NVIDIA 0
#include <hip/hip_runtime.h>
#else
// Host-only files compiled by the plain C++ compiler against ROCm's runtime API.
#define UMSIM_NVIDIA 0
#ifndef __HIP_PLATFORM_AMD__
#define __HIP_PLATFORM_AMD__ 1
#endif
#include <hip/hip_runtime_api.h>
#endif

#include <stdexcept>
#include <string>

namespace umsim::hip {

// Every runtime call is checked; a failure names the call and where it came from.
class GpuError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

inline void check(hipError_t e, const char* call, const char* file, int line) {
  if (e != hipSuccess)
    throw GpuError(std::string(call) + " failed: " + hipGetErrorString(e) + " (" + file + ":" + std::to_string(line) + ")");
}

}  // namespace umsim::hip

#define UMSIM_GPU_CHECK(call) ::umsim::hip::check((call), #call, __FILE__, __LINE__)
