#include "hip_backend/gpu/um_counter_source.h"

#include "hip_backend/gpu/gpu_api.h"

#if UMSIM_NVIDIA
#include <dlfcn.h>

#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <mutex>

#include <cupti.h>
#endif

namespace umsim::hip {

UmCounterSource& UmCounterSource::instance() {
  static UmCounterSource source;
  return source;
}

#if UMSIM_NVIDIA

namespace {

// CUPTI entry points, resolved with dlsym so the binary needs no link-time CUPTI.
struct Cupti {
  void* handle = nullptr;
  std::string path;
  decltype(&cuptiActivityRegisterCallbacks) register_callbacks = nullptr;
  decltype(&cuptiActivityConfigureUnifiedMemoryCounter) configure_um = nullptr;
  decltype(&cuptiActivityEnable) enable = nullptr;
  decltype(&cuptiActivityDisable) disable = nullptr;
  decltype(&cuptiActivityFlushAll) flush_all = nullptr;
  decltype(&cuptiActivityGetNextRecord) next_record = nullptr;
  decltype(&cuptiGetTimestamp) timestamp = nullptr;
  decltype(&cuptiGetResultString) result_string = nullptr;
  decltype(&cuptiActivityFlushPeriod) flush_period = nullptr;                // optional
  decltype(&cuptiActivityGetNumDroppedRecords) dropped_records = nullptr;  // optional
};

// Completed activity buffers, parsed in take(). CUPTI calls back from its own thread.
struct Buffers {
  std::mutex mutex;
  std::vector<std::pair<std::uint8_t*, std::size_t>> completed;
};
Buffers& buffers() {
  static Buffers b;
  return b;
}

constexpr std::size_t kBufferBytes = 32u << 20;

void CUPTIAPI buffer_requested(std::uint8_t** buffer, std::size_t* size, std::size_t* max_records) {
  *buffer = static_cast<std::uint8_t*>(std::aligned_alloc(8, kBufferBytes));
  *size = *buffer ? kBufferBytes : 0;
  *max_records = 0;
}

void CUPTIAPI buffer_completed(CUcontext, std::uint32_t, std::uint8_t* buffer, std::size_t, std::size_t valid) {
  std::lock_guard<std::mutex> lock(buffers().mutex);
  buffers().completed.emplace_back(buffer, valid);
}

bool debug() { return std::getenv("UMSIM_DEBUG") != nullptr; }

template <typename T>
bool resolve(void* h, const char* name, T* out) {
  *out = reinterpret_cast<T>(dlsym(h, name));
  return *out != nullptr;
}

}  // namespace

struct UmCounterSource::Impl {
  Cupti api;
  bool active = false;
  bool started = false;
  std::string why;
  std::uint64_t dropped = 0;
};

UmCounterSource::UmCounterSource() : impl_(std::make_unique<Impl>()) {}
// Collection is left running to the end of the process on purpose: flushing
// from a static destructor could call back into already destroyed statics.
UmCounterSource::~UmCounterSource() = default;

bool UmCounterSource::active() const { return impl_->active; }
std::string UmCounterSource::library() const { return impl_->api.path; }

bool UmCounterSource::start(std::string* why) {
  if (impl_->started) {
    *why = impl_->why;
    return impl_->active;
  }
  impl_->started = true;
  const bool ok = start_once(&impl_->why);
  *why = impl_->why;
  return ok;
}

// Tries each candidate library until one enables the unified-memory counters:
// machines often carry several CUPTIs (the toolkit's, a profiler's older one).
bool UmCounterSource::start_once(std::string* why) {
  if (std::getenv("UMSIM_NO_COUNTERS")) {
    *why = "unified-memory counters disabled (UMSIM_NO_COUNTERS is set)";
    return false;
  }
  std::vector<std::string> candidates;
  if (const char* env = std::getenv("UMSIM_CUPTI_LIB")) {
    std::string list = env;
    for (std::size_t pos = 0; pos <= list.size();) {
      const std::size_t colon = std::min(list.find(':', pos), list.size());
      if (colon > pos) candidates.push_back(list.substr(pos, colon - pos));
      pos = colon + 1;
    }
  }
  for (const char* p : {"libcupti.so", "libcupti.so.13", "/usr/local/cuda/extras/CUPTI/lib64/libcupti.so",
                        "/usr/local/cuda/lib64/libcupti.so", "/usr/local/cuda/targets/x86_64-linux/lib/libcupti.so"})
    candidates.push_back(p);
  // Only the first loadable candidate is tried: two CUPTIs in one process do not
  // coexist (a failed one cannot be unloaded cleanly). `umsim-hip probe` checks
  // candidates one process each; device_run.sh exports the first that works.
  std::string reasons;
  for (const auto& path : candidates) {
    void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
    if (!h) h = dlopen(path.c_str(), RTLD_LAZY | RTLD_LOCAL);
    if (!h) continue;
    dlclose(h);
    std::string reason;
    if (debug()) std::fprintf(stderr, "umsim-hip: trying CUPTI %s\n", path.c_str());
    if (try_library(path, &reason)) return true;
    reasons = path + ": " + reason;
    break;
  }
  *why = "no usable CUPTI (set UMSIM_CUPTI_LIB to the toolkit's libcupti.so); unified-memory counters are not "
         "measured [" + reasons + "]";
  return false;
}

bool UmCounterSource::try_library(const std::string& path, std::string* why) {
  Cupti& c = impl_->api;
  c = Cupti{};
  c.handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!c.handle) {
    *why = "not loadable";
    return false;
  }
  c.path = path;
  auto give_up = [&](std::string reason) {
    dlclose(c.handle);
    c = Cupti{};
    *why = std::move(reason);
    return false;
  };
  if (!resolve(c.handle, "cuptiActivityRegisterCallbacks", &c.register_callbacks) ||
      !resolve(c.handle, "cuptiActivityConfigureUnifiedMemoryCounter", &c.configure_um) ||
      !resolve(c.handle, "cuptiActivityEnable", &c.enable) || !resolve(c.handle, "cuptiActivityDisable", &c.disable) ||
      !resolve(c.handle, "cuptiActivityFlushAll", &c.flush_all) ||
      !resolve(c.handle, "cuptiActivityGetNextRecord", &c.next_record) ||
      !resolve(c.handle, "cuptiGetTimestamp", &c.timestamp) ||
      !resolve(c.handle, "cuptiGetResultString", &c.result_string))
    return give_up("lacks the activity API");
  auto fail = [&](const char* what, CUptiResult r) {
    const char* s = nullptr;
    c.result_string(r, &s);
    return give_up(std::string(what) + " failed: " + (s ? s : "?"));
  };
  auto step = [](const char* what) {
    if (debug()) std::fprintf(stderr, "umsim-hip: CUPTI %s\n", what);
  };
  step("register callbacks");
  CUptiResult r = c.register_callbacks(buffer_requested, buffer_completed);
  if (r != CUPTI_SUCCESS) return fail("cuptiActivityRegisterCallbacks", r);
  std::vector<CUpti_ActivityUnifiedMemoryCounterConfig> config;
  for (auto kind : {CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_HTOD,
                    CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_DTOH,
                    CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_CPU_PAGE_FAULT_COUNT,
                    CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_GPU_PAGE_FAULT,
                    CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_THRASHING,
                    CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_THROTTLING,
                    CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_REMOTE_MAP,
                    CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_DTOD}) {
    CUpti_ActivityUnifiedMemoryCounterConfig k{};
    k.scope = CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_SCOPE_PROCESS_SINGLE_DEVICE;
    k.kind = kind;
    k.deviceId = 0;
    k.enable = 1;
    config.push_back(k);
  }
  // The unified-memory counter configuration needs an initialized driver.
  step("initialize the CUDA driver");
  if (hipSetDevice(0) != hipSuccess || hipFree(nullptr) != hipSuccess) return give_up("the GPU runtime did not initialize");
  step("configure unified-memory counters");
  r = c.configure_um(config.data(), static_cast<std::uint32_t>(config.size()));
  if (r != CUPTI_SUCCESS) return fail("cuptiActivityConfigureUnifiedMemoryCounter", r);
  step("enable unified-memory counter activity");
  r = c.enable(CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER);
  if (r != CUPTI_SUCCESS) return fail("cuptiActivityEnable(UNIFIED_MEMORY_COUNTER)", r);
  step("enable kernel activity");
  r = c.enable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  if (r != CUPTI_SUCCESS) return fail("cuptiActivityEnable(CONCURRENT_KERNEL)", r);
  // Drain the driver's event queue every millisecond: demand paging produces
  // thousands of small-transfer records per millisecond.
  resolve(c.handle, "cuptiActivityFlushPeriod", &c.flush_period);
  resolve(c.handle, "cuptiActivityGetNumDroppedRecords", &c.dropped_records);
  if (c.flush_period) c.flush_period(1);
  step("enabled");
  impl_->active = true;
  return true;
}

std::uint64_t UmCounterSource::now() const {
  if (!impl_->active) return 0;
  std::uint64_t t = 0;
  impl_->api.timestamp(&t);
  return t;
}

void UmCounterSource::take(std::vector<UmRecord>* records, std::vector<KernelActivity>* kernels) {
  if (!impl_->active) return;
  if (debug()) std::fprintf(stderr, "umsim-hip: CUPTI flush\n");
  impl_->api.flush_all(1);
  std::vector<std::pair<std::uint8_t*, std::size_t>> done;
  {
    std::lock_guard<std::mutex> lock(buffers().mutex);
    done.swap(buffers().completed);
  }
  for (auto& [buffer, valid] : done) {
    CUpti_Activity* rec = nullptr;
    while (impl_->api.next_record(buffer, valid, &rec) == CUPTI_SUCCESS) {
      if (rec->kind == CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER) {
        const auto* u = reinterpret_cast<const CUpti_ActivityUnifiedMemoryCounter3*>(rec);
        UmRecord r;
        r.kind = static_cast<UmKind>(u->counterKind);
        r.value = u->value;
        r.start = u->start;
        r.end = u->end;
        r.flags = u->flags;
        r.address = u->address;
        r.device = device_of_record(r.kind, u->srcId, u->dstId);
        records->push_back(r);
      } else if (rec->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL || rec->kind == CUPTI_ACTIVITY_KIND_KERNEL) {
        const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(rec);
        kernels->push_back({k->correlationId, k->start, k->end, static_cast<std::int32_t>(k->deviceId)});
      }
    }
    std::free(buffer);
  }
  if (impl_->api.dropped_records) {
    std::size_t dropped = 0;
    if (impl_->api.dropped_records(nullptr, 0, &dropped) == CUPTI_SUCCESS) impl_->dropped += dropped;
  }
}

std::uint64_t UmCounterSource::dropped() const { return impl_->dropped; }

#else  // AMD: timing only

struct UmCounterSource::Impl {};
UmCounterSource::UmCounterSource() : impl_(std::make_unique<Impl>()) {}
UmCounterSource::~UmCounterSource() = default;
bool UmCounterSource::start_once(std::string* why) { return start(why); }
bool UmCounterSource::start(std::string* why) {
  *why = "ROCm exposes no per-event unified-memory counters to user space; results carry timing only";
  return false;
}
bool UmCounterSource::active() const { return false; }
std::uint64_t UmCounterSource::now() const { return 0; }
void UmCounterSource::take(std::vector<UmRecord>*, std::vector<KernelActivity>*) {}
std::string UmCounterSource::library() const { return {}; }
std::uint64_t UmCounterSource::dropped() const { return 0; }

#endif

}  // namespace umsim::hip
