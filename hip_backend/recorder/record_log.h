// The recorder's raw log: what the LD_PRELOAD library (recorder_preload.cc)
// writes while the program runs, one record per line, and its parser. Times are
// nanoseconds in CUPTI's clock (cuptiGetTimestamp), so API calls, kernel
// activity and unified-memory fault records share one time base.
//
//   umsim-record 1
//   alloc T KIND PTR SIZE DEVICE        KIND: managed | device | pinned | mapped
//   free T PTR
//   prefetch T PTR SIZE DST STREAM      DST: -1 = CPU, else device index
//   advise T PTR SIZE ADVICE TARGET     ADVICE: cudaMemoryAdvise value (1..6); TARGET -1 = CPU
//   launch T CORRELATION                a kernel launch call (host order)
//   copy T DST SRC SIZE DEVICE STREAM ASYNC    cudaMemcpy[Async]: ASYNC 0 or 1; STREAM 0 for cudaMemcpy
//   memset T PTR SIZE DEVICE STREAM ASYNC      cudaMemset[Async]
//   peer T DEVICE PEER                  cudaDeviceEnablePeerAccess(PEER) on DEVICE
//   sync T device DEVICE | sync T stream STREAM
//   kernel CORRELATION START END DEVICE STREAM NAME     (CUPTI kernel activity)
//   um KIND START END ADDRESS VALUE FLAGS SRC DST       (CUPTI unified-memory counter)
//   end T
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "traces/event.h"

namespace umsim::recorder {

struct AllocRecord {
  std::uint64_t seq = 0;  // log line: the program order of equal timestamps
  std::uint64_t time = 0, ptr = 0, size = 0;
  trace::AllocKind kind = trace::AllocKind::kManaged;
  int device = 0;
};
struct FreeRecord {
  std::uint64_t seq = 0;  // log line: the program order of equal timestamps
  std::uint64_t time = 0, ptr = 0;
};
struct PrefetchRecord {
  std::uint64_t seq = 0;  // log line: the program order of equal timestamps
  std::uint64_t time = 0, ptr = 0, size = 0;
  int destination = 0;  // -1 = CPU
  std::uint32_t stream = 0;
};
struct AdviseRecord {
  std::uint64_t seq = 0;  // log line: the program order of equal timestamps
  std::uint64_t time = 0, ptr = 0, size = 0;
  int advice = 0;  // cudaMemoryAdvise
  int target = 0;  // -1 = CPU
};
struct LaunchRecord {
  std::uint64_t seq = 0;  // log line: the program order of equal timestamps
  std::uint64_t time = 0, correlation = 0;
};
struct CopyRecord {
  std::uint64_t seq = 0;  // log line: the program order of equal timestamps
  std::uint64_t time = 0, dst = 0, src = 0, size = 0;
  int device = 0;
  std::uint32_t stream = 0;
  bool async = false;
};
struct MemsetRecord {
  std::uint64_t seq = 0;  // log line: the program order of equal timestamps
  std::uint64_t time = 0, ptr = 0, size = 0;
  int device = 0;
  std::uint32_t stream = 0;
  bool async = false;
};
struct PeerRecord {
  std::uint64_t seq = 0;  // log line: the program order of equal timestamps
  std::uint64_t time = 0;
  int device = 0, peer = 0;
};
struct SyncRecord {
  std::uint64_t seq = 0;  // log line: the program order of equal timestamps
  std::uint64_t time = 0;
  bool stream_scope = false;
  std::uint32_t id = 0;  // device or stream
};
struct KernelRecord {
  std::uint64_t seq = 0;  // log line: the program order of equal timestamps
  std::uint64_t correlation = 0, start = 0, end = 0;
  int device = 0;
  std::uint32_t stream = 0;
  std::string name;
};
// Same numbering as CUpti_ActivityUnifiedMemoryCounterKind / ...AccessType.
inline constexpr std::uint32_t kUmCpuPageFault = 3;
inline constexpr std::uint32_t kUmGpuPageFault = 4;
inline constexpr std::uint32_t kUmAccessRead = 1, kUmAccessWrite = 2, kUmAccessAtomic = 3, kUmAccessPrefetch = 4;
struct UmRecord {
  std::uint64_t seq = 0;  // log line: the program order of equal timestamps
  std::uint32_t kind = 0;
  std::uint64_t start = 0, end = 0, address = 0, value = 0;
  std::uint32_t flags = 0, src = 0, dst = 0;
};

struct RecordLog {
  std::vector<AllocRecord> allocs;
  std::vector<FreeRecord> frees;
  std::vector<PrefetchRecord> prefetches;
  std::vector<AdviseRecord> advises;
  std::vector<LaunchRecord> launches;
  std::vector<SyncRecord> syncs;
  std::vector<CopyRecord> copies;
  std::vector<MemsetRecord> memsets;
  std::vector<PeerRecord> peers;
  std::vector<KernelRecord> kernels;
  std::vector<UmRecord> um;
  bool complete = false;  // the 'end' record was seen
};

// Parses a log; throws trace::TraceError naming path:line on malformed input.
RecordLog read_record_log(const std::string& path);
RecordLog parse_record_log(const std::string& text, const std::string& source);

}  // namespace umsim::recorder
