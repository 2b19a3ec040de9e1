// libumsim_recorder.so: loaded into a CUDA program with LD_PRELOAD by
// `umsim-hip record`. It subscribes to CUPTI's runtime-API callbacks (so it
// sees cudaMallocManaged / cudaMalloc / cudaHostAlloc / cudaFree /
// cudaMemPrefetchAsync / cudaMemAdvise / cudaMemcpy[Async] / cudaMemset[Async] /
// cudaDeviceEnablePeerAccess / kernel launches / syncs whether the
// program links the CUDA runtime statically or dynamically, which plain symbol
// interposition would not) and to CUPTI activity records (kernels and
// unified-memory counters with GPU and CPU page-fault addresses), and writes
// them to the log named by UMSIM_RECORD_LOG in the format of record_log.h.
//
// Built outside Bazel by build.sh (needs the CUDA headers and CUPTI).
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <cupti.h>
#include <unistd.h>

#include <cerrno>
#include <cstdarg>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

namespace {

std::mutex g_mutex;
FILE* g_log = nullptr;
const char* g_log_path = nullptr;
int g_write_error = 0;  // the first failed write's errno (a full disk), reported at exit
bool g_finished = false;
CUpti_SubscriberHandle g_subscriber;

std::uint64_t now() {
  std::uint64_t t = 0;
  cuptiGetTimestamp(&t);
  return t;
}

void emit(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
void emit(const char* fmt, ...) {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (g_log == nullptr || g_finished) return;
  va_list ap;
  va_start(ap, fmt);
  if (std::vfprintf(g_log, fmt, ap) < 0 && g_write_error == 0) g_write_error = errno;
  va_end(ap);
}

void check(CUptiResult r, const char* what) {
  if (r == CUPTI_SUCCESS) return;
  const char* s = nullptr;
  cuptiGetResultString(r, &s);
  std::fprintf(stderr, "umsim recorder: %s failed: %s\n", what, s ? s : "?");
}

// ---- activity buffers ------------------------------------------------------

constexpr std::size_t kBufferSize = 8 << 20;

void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, kBufferSize));
  *size = kBufferSize;
  *max_records = 0;
}

void CUPTIAPI buffer_completed(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid) {
  CUpti_Activity* rec = nullptr;
  while (cuptiActivityGetNextRecord(buffer, valid, &rec) == CUPTI_SUCCESS) {
    if (rec->kind == CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER) {
      const auto* u = reinterpret_cast<const CUpti_ActivityUnifiedMemoryCounter3*>(rec);
      emit("um %u %llu %llu 0x%llx %llu %u %u %u\n", static_cast<unsigned>(u->counterKind),
           static_cast<unsigned long long>(u->start), static_cast<unsigned long long>(u->end),
           static_cast<unsigned long long>(u->address), static_cast<unsigned long long>(u->value), u->flags, u->srcId,
           u->dstId);
    } else if (rec->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL || rec->kind == CUPTI_ACTIVITY_KIND_KERNEL) {
      const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(rec);
      emit("kernel %u %llu %llu %u %u %s\n", k->correlationId, static_cast<unsigned long long>(k->start),
           static_cast<unsigned long long>(k->end), k->deviceId, k->streamId, k->name ? k->name : "kernel");
    }
  }
  std::free(buffer);
}

bool g_um_enabled = false;

void enable_um_counters(bool report) {
  if (g_um_enabled) return;
  CUpti_ActivityUnifiedMemoryCounterConfig config[2] = {};
  config[0].scope = CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_SCOPE_PROCESS_SINGLE_DEVICE;
  config[0].kind = CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_GPU_PAGE_FAULT;
  config[0].deviceId = 0;
  config[0].enable = 1;
  config[1] = config[0];
  config[1].kind = CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_CPU_PAGE_FAULT_COUNT;
  CUptiResult r = cuptiActivityConfigureUnifiedMemoryCounter(config, 2);
  if (r == CUPTI_SUCCESS) r = cuptiActivityEnable(CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER);
  if (r == CUPTI_SUCCESS) {
    g_um_enabled = true;
  } else if (report) {
    check(r, "enabling unified-memory counter activity (no fault addresses will be recorded)");
    // CUPTI reads the UVM driver's tools node; containers and VMs often lack it.
    if (access("/dev/nvidia-uvm-tools", R_OK | W_OK) != 0)
      std::fprintf(stderr, "umsim recorder: /dev/nvidia-uvm-tools is missing or not accessible; CUPTI needs it for "
                           "unified-memory counters (create it as nvidia-modprobe does: same major as nvidia-uvm, minor 1)\n");
  }
}

// ---- runtime API callbacks -------------------------------------------------

// Driver API only: the program may link its own (static) CUDA runtime, whose
// state a second runtime in this library would not share.
int current_device() {
  CUdevice d = 0;
  if (cuCtxGetDevice(&d) != CUDA_SUCCESS) return 0;
  return static_cast<int>(d);
}

std::uint32_t stream_id(CUcontext ctx, cudaStream_t stream) {
  std::uint32_t id = 0;
  if (cuptiGetStreamIdEx(ctx, reinterpret_cast<CUstream>(stream), 0, &id) != CUPTI_SUCCESS) return 0;
  return id;
}

int location_device(const cudaMemLocation& l) {
  return l.type == cudaMemLocationTypeDevice ? l.id : -1;  // host, host NUMA: the CPU
}

void record_alloc(const char* kind, void** ptr, size_t size) {
  if (ptr == nullptr || *ptr == nullptr) return;
  emit("alloc %llu %s 0x%llx %zu %d\n", static_cast<unsigned long long>(now()), kind,
       static_cast<unsigned long long>(reinterpret_cast<std::uintptr_t>(*ptr)), size, current_device());
}

void record_free(const void* ptr) {
  if (ptr == nullptr) return;
  emit("free %llu 0x%llx\n", static_cast<unsigned long long>(now()),
       static_cast<unsigned long long>(reinterpret_cast<std::uintptr_t>(ptr)));
}

unsigned long long address(const void* p) { return static_cast<unsigned long long>(reinterpret_cast<std::uintptr_t>(p)); }

void record_copy(const void* dst, const void* src, size_t size, std::uint32_t stream, bool async) {
  emit("copy %llu 0x%llx 0x%llx %zu %d %u %d\n", static_cast<unsigned long long>(now()), address(dst), address(src), size,
       current_device(), stream, async ? 1 : 0);
}

void record_memset(const void* ptr, size_t size, std::uint32_t stream, bool async) {
  emit("memset %llu 0x%llx %zu %d %u %d\n", static_cast<unsigned long long>(now()), address(ptr), size,
       current_device(), stream, async ? 1 : 0);
}

void CUPTIAPI on_runtime_api(void*, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* data) {
  if (domain == CUPTI_CB_DOMAIN_RESOURCE) {
    if (cbid == CUPTI_CBID_RESOURCE_CONTEXT_CREATED) enable_um_counters(true);
    if (cbid == CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING) cuptiActivityFlushAll(1);
    return;
  }
  const auto* d = static_cast<const CUpti_CallbackData*>(data);
  const bool exit = d->callbackSite == CUPTI_API_EXIT;
  const bool ok = !exit || d->functionReturnValue == nullptr ||
                  *static_cast<const cudaError_t*>(d->functionReturnValue) == cudaSuccess;
  if (!ok) return;
  const void* p = d->functionParams;
  switch (cbid) {
    case CUPTI_RUNTIME_TRACE_CBID_cudaMallocManaged_v6000:
      if (exit) {
        const auto* a = static_cast<const cudaMallocManaged_v6000_params*>(p);
        record_alloc("managed", a->devPtr, a->size);
      }
      break;
    case CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020:
      if (exit) {
        const auto* a = static_cast<const cudaMalloc_v3020_params*>(p);
        record_alloc("device", a->devPtr, a->size);
      }
      break;
    case CUPTI_RUNTIME_TRACE_CBID_cudaMallocHost_v3020:
      if (exit) {
        const auto* a = static_cast<const cudaMallocHost_v3020_params*>(p);
        record_alloc("pinned", a->ptr, a->size);
      }
      break;
    case CUPTI_RUNTIME_TRACE_CBID_cudaHostAlloc_v3020:
      if (exit) {
        const auto* a = static_cast<const cudaHostAlloc_v3020_params*>(p);
        record_alloc((a->flags & cudaHostAllocMapped) ? "mapped" : "pinned", a->pHost, a->size);
      }
      break;
    case CUPTI_RUNTIME_TRACE_CBID_cudaFree_v3020:
      if (!exit) record_free(static_cast<const cudaFree_v3020_params*>(p)->devPtr);
      break;
    case CUPTI_RUNTIME_TRACE_CBID_cudaFreeHost_v3020:
      if (!exit) record_free(static_cast<const cudaFreeHost_v3020_params*>(p)->ptr);
      break;
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemPrefetchAsync_v12020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemPrefetchAsync_ptsz_v12020:
      if (!exit) {
        const auto* a = static_cast<const cudaMemPrefetchAsync_v12020_params*>(p);
        emit("prefetch %llu 0x%llx %zu %d %u\n", static_cast<unsigned long long>(now()),
             static_cast<unsigned long long>(reinterpret_cast<std::uintptr_t>(a->devPtr)), a->count,
             location_device(a->location), stream_id(d->context, a->stream));
      }
      break;
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemAdvise_v12020:
      if (!exit) {
        const auto* a = static_cast<const cudaMemAdvise_v12020_params*>(p);
        emit("advise %llu 0x%llx %zu %d %d\n", static_cast<unsigned long long>(now()),
             static_cast<unsigned long long>(reinterpret_cast<std::uintptr_t>(a->devPtr)), a->count,
             static_cast<int>(a->advice), location_device(a->location));
      }
      break;
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000:
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000:
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060:
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060:
    case CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000:
      if (!exit) emit("launch %llu %u\n", static_cast<unsigned long long>(now()), d->correlationId);
      break;
    // Explicit copies, memsets and peer access (trace format version 2), at the call.
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_ptds_v7000:
      if (!exit) {
        const auto* a = static_cast<const cudaMemcpy_v3020_params*>(p);
        record_copy(a->dst, a->src, a->count, 0, false);
      }
      break;
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_ptsz_v7000:
      if (!exit) {
        const auto* a = static_cast<const cudaMemcpyAsync_v3020_params*>(p);
        record_copy(a->dst, a->src, a->count, stream_id(d->context, a->stream), true);
      }
      break;
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemset_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemset_ptds_v7000:
      if (!exit) {
        const auto* a = static_cast<const cudaMemset_v3020_params*>(p);
        record_memset(a->devPtr, a->count, 0, false);
      }
      break;
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemsetAsync_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemsetAsync_ptsz_v7000:
      if (!exit) {
        const auto* a = static_cast<const cudaMemsetAsync_v3020_params*>(p);
        record_memset(a->devPtr, a->count, stream_id(d->context, a->stream), true);
      }
      break;
    case CUPTI_RUNTIME_TRACE_CBID_cudaDeviceEnablePeerAccess_v4000:
      if (exit)
        emit("peer %llu %d %d\n", static_cast<unsigned long long>(now()), current_device(),
             static_cast<const cudaDeviceEnablePeerAccess_v4000_params*>(p)->peerDevice);
      break;
    case CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020:
      if (exit) emit("sync %llu device %d\n", static_cast<unsigned long long>(now()), current_device());
      break;
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_ptsz_v7000:
      if (exit)
        emit("sync %llu stream %u\n", static_cast<unsigned long long>(now()),
             stream_id(d->context, static_cast<const cudaStreamSynchronize_v3020_params*>(p)->stream));
      break;
    default:
      break;
  }
}

void finish() {
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    if (g_log == nullptr || g_finished) return;
  }
  cuptiActivityFlushAll(1);
  std::lock_guard<std::mutex> lock(g_mutex);
  if (g_finished) return;
  if (std::fprintf(g_log, "end %llu\n", static_cast<unsigned long long>(now())) < 0 && g_write_error == 0)
    g_write_error = errno;
  if (std::fclose(g_log) != 0 && g_write_error == 0) g_write_error = errno;
  g_finished = true;
  // The launcher then reports the log as cut short; this says why.
  if (g_write_error != 0)
    std::fprintf(stderr, "umsim recorder: %s: write error: %s\n", g_log_path, std::strerror(g_write_error));
}

__attribute__((constructor)) void start() {
  const char* path = std::getenv("UMSIM_RECORD_LOG");
  if (path == nullptr || *path == '\0') return;  // loaded by a child that is not being recorded
  g_log = std::fopen(path, "w");
  if (g_log == nullptr) {
    std::fprintf(stderr, "umsim recorder: %s: cannot create: %s\n", path, std::strerror(errno));
    return;
  }
  g_log_path = strdup(path);  // the variable is unset below
  unsetenv("UMSIM_RECORD_LOG");  // child processes would overwrite the log
  std::fprintf(g_log, "umsim-record 1\n");
  check(cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed), "cuptiActivityRegisterCallbacks");
  // CUPTI answers NOT_READY to unified-memory counter configuration before
  // the driver is initialised: initialise it here (cuInit is idempotent), and
  // retry when the program creates its context if this still fails.
  if (cuInit(0) == CUDA_SUCCESS) enable_um_counters(false);
  check(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL), "cuptiActivityEnable(CONCURRENT_KERNEL)");
  check(cuptiSubscribe(&g_subscriber, on_runtime_api, nullptr), "cuptiSubscribe");
  check(cuptiEnableDomain(1, g_subscriber, CUPTI_CB_DOMAIN_RUNTIME_API), "cuptiEnableDomain(RUNTIME_API)");
  check(cuptiEnableCallback(1, g_subscriber, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_CONTEXT_CREATED),
        "cuptiEnableCallback(CONTEXT_CREATED)");
  check(cuptiEnableCallback(1, g_subscriber, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING),
        "cuptiEnableCallback(CONTEXT_DESTROY_STARTING)");
  std::atexit(finish);
}

__attribute__((destructor)) void stop() { finish(); }

}  // namespace
