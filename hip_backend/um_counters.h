// Unified-memory counter records (as CUPTI's unified-memory counter activity
// reports them on NVIDIA) and their attribution to kernels, phases and the
// whole run by timestamp. Plain C++ so the attribution is unit-tested in CI;
// the CUPTI side only copies records into UmRecord.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/result.h"

namespace umsim::hip {

// Same numbering as CUpti_ActivityUnifiedMemoryCounterKind.
enum class UmKind : std::uint32_t {
  kBytesH2D = 1,
  kBytesD2H = 2,
  kCpuPageFault = 3,
  kGpuPageFault = 4,
  kThrashing = 5,
  kThrottling = 6,
  kRemoteMap = 7,
  kBytesD2D = 8,
};

// Same numbering as CUpti_ActivityUnifiedMemoryMigrationCause (flags of transfers).
enum class MigrationCause : std::uint32_t {
  kUnknown = 0,
  kUser = 1,       // explicit prefetch (hipMemPrefetchAsync)
  kCoherence = 2,  // demand migration on a fault
  kPrefetch = 3,   // the driver's speculative prefetcher
  kEviction = 4,
  kAccessCounters = 5,
};

struct UmRecord {
  UmKind kind = UmKind::kBytesH2D;
  std::uint64_t value = 0;  // bytes (transfers, thrashing, remote map), fault groups (GPU faults)
  std::uint64_t start = 0;  // ns, in the counter clock
  std::uint64_t end = 0;    // GPU faults: when the driver queued the replay (one per serviced batch)
  std::uint32_t flags = 0;  // MigrationCause for transfers, access type for faults
  std::uint64_t address = 0;  // faulting page / first byte transferred
  // The GPU the record concerns (device_of_record()), -1 where it names none.
  std::int32_t device = -1;
};

// The GPU a record concerns, from CUPTI's source and destination ids: the
// faulting (or throttled) GPU; the GPU a transfer fills (host-to-device,
// peer) or empties (device-to-host, an eviction); -1 for CPU faults,
// thrashing (CUPTI gives a mask of the GPUs there) and remote maps.
std::int32_t device_of_record(UmKind kind, std::uint32_t src_id, std::uint32_t dst_id);

// A closed time interval [start, end] in the counter clock.
struct Window {
  std::uint64_t start = 0;
  std::uint64_t end = 0;
  std::int32_t device = -1;  // a kernel's GPU (CUPTI device id); -1 for phases and where unknown
  bool contains(std::uint64_t t) const { return t >= start && t <= end; }
};

struct Attributed {
  Counters total;
  std::vector<Counters> kernels;  // same order as the kernel windows
  std::vector<Counters> phases;   // same order as the phase windows
  std::uint64_t remote_maps = 0;  // REMOTE_MAP records (no counter in the schema)
};

// Adds each record to the total, to the phase whose window holds its start, and
// to the kernel whose window holds its start (the first such kernel on the
// record's GPU where both are known: kernels of two GPUs run at the same
// time), except explicit prefetches (cause kUser), which belong to no kernel. GPU fault
// records of one scope are grouped into batches by their replay timestamp.
Attributed attribute(const std::vector<UmRecord>& records, const std::vector<Window>& kernels,
                     const std::vector<Window>& phases);

// Summary of the raw fault records for the hardware section of a result.
nlohmann::ordered_json fault_record_summary(const std::vector<UmRecord>& records);

// Every record as one CSV line, in start-time order, for diagnostics of the
// fault service's structure (`umsim-hip replay --um-records`): kind, start and
// end (ns, counter clock, relative to the first kernel window's start), value,
// flags, address, the record's GPU and the kernel whose window holds its start
// (-1 for none; attribute()'s rule, the first kernel on the record's GPU).
std::string um_records_csv(const std::vector<UmRecord>& records, const std::vector<Window>& kernels);

}  // namespace umsim::hip
