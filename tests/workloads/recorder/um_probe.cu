// A small CUDA program with known managed-memory behaviour, recorded by
// run_on_gpu.sh to test `umsim-hip record` on a real GPU:
//   A, B: 4 MiB managed; D: 1 MiB device memory.
//   1. the CPU writes the first 2 MiB of A            (CPU first touch: no CPU faults on fresh pages)
//   2. touch<<<>>> reads all of A and writes all of B  (GPU faults on A and B)
//   3. the CPU reads the first 1 MiB of B              (CPU faults: pages now on the GPU)
//   4. B advised ReadMostly; A prefetched to the GPU on a stream
//   5. copy<<<>>> on that stream reads A (resident: no faults) and writes D
#include <cstdio>
#include <cuda_runtime.h>

#define CHECK(x)                                                                  \
  do {                                                                            \
    cudaError_t e = (x);                                                          \
    if (e != cudaSuccess) {                                                       \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e)); \
      return 1;                                                                   \
    }                                                                             \
  } while (0)

__global__ void touch(const int* a, int* b, size_t n) {
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) b[i] = a[i] + 1;
}

__global__ void copy(const int* a, int* d, size_t n) {
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) d[i] = a[i];
}

int main() {
  const size_t bytes = 4 << 20, n = bytes / sizeof(int);
  int *a = nullptr, *b = nullptr, *d = nullptr;
  CHECK(cudaMallocManaged(&a, bytes));
  CHECK(cudaMallocManaged(&b, bytes));
  CHECK(cudaMalloc(&d, 1 << 20));
  for (size_t i = 0; i < n / 2; ++i) a[i] = int(i);
  touch<<<64, 256>>>(a, b, n);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  long sum = 0;
  for (size_t i = 0; i < (1 << 20) / sizeof(int); i += 1024) sum += b[i];
  cudaStream_t s;
  CHECK(cudaStreamCreate(&s));
  cudaMemLocation gpu{};
  gpu.type = cudaMemLocationTypeDevice;
  gpu.id = 0;
  CHECK(cudaMemAdvise(b, bytes, cudaMemAdviseSetReadMostly, gpu));
  CHECK(cudaMemPrefetchAsync(a, bytes, gpu, 0, s));
  copy<<<64, 256, 0, s>>>(a, d, (1 << 20) / sizeof(int));
  CHECK(cudaStreamSynchronize(s));
  CHECK(cudaStreamDestroy(s));
  CHECK(cudaFree(d));
  CHECK(cudaFree(b));
  CHECK(cudaFree(a));
  std::printf("um_probe done (checksum %ld)\n", sum);
  return 0;
}
