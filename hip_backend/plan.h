// The execution plan: a trace translated into the steps the HIP runtime
// performs on a real GPU. Plain C++ (no GPU headers) so it is unit-tested in CI.
//
// Memory use is proportional to the pages the kernels touch (8 bytes per page
// access), not to the trace's event count: access ranges are expanded into
// page-granular entries once, so the GPU kernel can replay exactly those pages.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "traces/event.h"
#include "traces/page_touch.h"
#include "traces/trace_reader.h"

namespace umsim::hip {

using trace::AccessType;
using trace::AllocKind;
using trace::Bytes;
using trace::Nanos;
using trace::Processor;

// One allocation of the trace. A name freed and allocated again gets a new slot.
struct PlanAllocation {
  std::string name;
  AllocKind kind = AllocKind::kManaged;
  Bytes bytes = 0;
  Processor placement;  // where the trace placed it initially (none = driver's choice)
};

// A page-granular access the touch kernel performs: the bytes its TouchShape
// names, read, written, read then written back (rmw) or atomically added.
// Packed into 64 bits so the access list stays small in device memory:
//   bits 0-1 access type, bits 2-13 allocation slot, bits 14-63 page index.
struct AccessEntry {
  static constexpr int kTypeBits = 2;
  static constexpr int kSlotBits = 12;
  static constexpr std::uint32_t kMaxSlots = 1u << kSlotBits;
  static constexpr std::uint64_t kMaxPage = (std::uint64_t{1} << (64 - kTypeBits - kSlotBits)) - 1;

  static std::uint64_t pack(AccessType type, std::uint32_t slot, std::uint64_t page) {
    return static_cast<std::uint64_t>(type) | (std::uint64_t{slot} << kTypeBits) |
           (page << (kTypeBits + kSlotBits));
  }
  static AccessType type(std::uint64_t e) { return static_cast<AccessType>(e & 3u); }
  static std::uint32_t slot(std::uint64_t e) {
    return static_cast<std::uint32_t>((e >> kTypeBits) & (kMaxSlots - 1));
  }
  static std::uint64_t page(std::uint64_t e) { return e >> (kTypeBits + kSlotBits); }
};

// The bytes an access entry touches in its page (traces/page_touch.h), packed
// beside it in Plan::shapes: bits 0-11 first byte, 12-24 count (bytes when step
// is 0, else 4-byte words), 25-37 step in bytes (0: contiguous bytes).
struct TouchShape {
  static std::uint64_t pack(const trace::PageTouch& t) {
    return std::uint64_t{t.first} | (std::uint64_t{t.count} << 12) | (std::uint64_t{t.step} << 25);
  }
  static trace::PageTouch unpack(std::uint64_t s) {
    return {static_cast<std::uint32_t>(s & 0xfffu), static_cast<std::uint32_t>((s >> 12) & 0x1fffu),
            static_cast<std::uint32_t>((s >> 25) & 0x1fffu)};
  }
  static constexpr std::uint64_t kWholePage = std::uint64_t{4096} << 12;
};

enum class StepKind : std::uint8_t {
  kAlloc,
  kFree,
  kKernel,
  kCpuAccess,
  kPrefetch,
  kAdvise,
  kSync,
  kEventRecord,
  kEventWait,
  kPhase,
  kCopy,        // hipMemcpy / hipMemcpyAsync (format version 2)
  kMemset,      // hipMemset / hipMemsetAsync
  kPeerEnable,  // hipDeviceEnablePeerAccess, both ways
};
const char* to_string(StepKind k);

// One step, in trace order. Fields are used by kind (see StepKind comments in
// traces/event.h); indices refer to the plan's tables.
struct Step {
  StepKind kind = StepKind::kPhase;
  std::uint32_t slot = 0;        // allocation slot (alloc, free, accesses, prefetch, advise)
  std::uint32_t index = 0;       // kernel index, phase index or event index, by kind
  std::uint32_t stream = 0;      // trace stream id
  Processor processor;           // GPU of a kernel, copy or memset, prefetch destination, advise target, sync GPU
  std::uint8_t op = 0;           // AccessType, Advice, SyncScope, or a copy's / memset's op (CopyKind | async)
  std::uint32_t count = 1;       // CPU accesses: passes; copies between allocations: the source slot;
                                 // peer enable: the other GPU
  Bytes offset = 0;              // CPU access / prefetch / advise / copy / memset range
  Bytes length = 0;
  Bytes stride = 0;              // CPU access stride; copies between allocations: the source offset
};

// A kernel launch: its page accesses are entries [first_entry, first_entry + entry_count)
// of Plan::entries, in trace order (a range with count = n appears n times).
struct PlanKernel {
  std::string name;
  int gpu = 0;
  std::uint32_t stream = 0;
  Nanos compute_ns = 0;
  std::uint64_t first_entry = 0;
  std::uint64_t entry_count = 0;
  std::string position;  // where the kernel begins in the trace, for messages
};

struct Plan {
  std::string trace;  // source, as given
  std::vector<PlanAllocation> allocations;  // by slot
  std::vector<Step> steps;
  std::vector<PlanKernel> kernels;
  std::vector<std::string> phases;     // phase names; phase 0 is the implicit "main"
  std::vector<std::string> events;     // named hipEvents
  std::vector<std::uint32_t> streams;  // trace stream ids used, ascending
  std::vector<std::uint64_t> entries;  // packed AccessEntry values of all kernels
  std::vector<std::uint64_t> shapes;   // TouchShape of each entry (same index)
  int gpus_used = 0;                   // 1 + highest GPU index any step names
  std::uint64_t cpu_page_touches = 0;  // page accesses the CPU steps make (all passes)
  std::vector<std::string> warnings;   // steps the backend skips, with positions

  // Largest sum of live managed allocations at any point of the trace (bytes).
  Bytes peak_managed_bytes = 0;
  // Same for device (hipMalloc) and host (pinned + mapped) allocations.
  Bytes peak_device_bytes = 0;
  Bytes peak_host_bytes = 0;
  // Host buffers of explicit copies (one pinned, one pageable), sized by the
  // largest copy of each kind; allocated before the replay and counted by the safety check.
  Bytes pinned_staging_bytes = 0;
  Bytes pageable_staging_bytes = 0;
};

// Limits that keep a plan's host and device memory small.
struct PlanLimits {
  std::uint64_t max_entries = std::uint64_t{1} << 28;  // 2 GiB of access list
};

// Translates a whole trace, reading it batch by batch. Throws trace::TraceError
// naming the trace position for anything the backend cannot replay (unknown or
// freed allocation, access outside an allocation, kernel without end, CPU access
// to device memory, ...).
Plan build_plan(trace::TraceReader& reader, const PlanLimits& limits = {});

// How many streams launch kernels on `gpu`. Kernels on different streams may
// run at the same time, so the backend gives each of them a share of the GPU's
// resident blocks (a touch kernel that filled every SM with spinning blocks
// would keep a concurrent kernel from starting until it ended).
int kernel_streams_on_gpu(const Plan& plan, int gpu);

// Incremental form used by build_plan and by tests that build events in code.
class PlanBuilder {
 public:
  explicit PlanBuilder(std::string source, PlanLimits limits = {});
  // `position` names the event's place in the trace for error messages.
  void add(const trace::Event& e, const trace::NameTable& names, const std::string& position);
  // Checks the trace ended cleanly (no open kernel) and returns the plan.
  Plan finish();

 private:
  std::uint32_t live_slot(const trace::Event& e, const trace::NameTable& names, const std::string& pos) const;
  void check_range(const trace::Event& e, std::uint32_t slot, const std::string& pos) const;
  void note_stream(std::uint32_t s);
  void note_processor(Processor p, const std::string& pos);
  void update_peaks();

  Plan plan_;
  PlanLimits limits_;
  std::vector<std::pair<std::string, std::uint32_t>> live_;  // name -> slot of live allocations
  std::vector<bool> freed_;
  bool in_kernel_ = false;
  std::string kernel_position_;
  Bytes live_managed_ = 0, live_device_ = 0, live_host_ = 0;
};

}  // namespace umsim::hip
