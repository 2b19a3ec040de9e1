// Per-page metadata (8 bytes per 4 KiB page, well under the 32-byte budget),
// kept in flat per-allocation arrays: the hot path is one load and a bit test.
// Only what the model reads is kept here: a page-granular replay over a large
// footprint waits on this record's cache miss, and 8-byte records put 1 GiB's
// pages in 2 MiB, none straddling a cache line.
#pragma once

#include <cstdint>

#include "sim/types.h"

namespace umsim::sim {

// Processor masks: bit 0 = CPU, bit 1 + g = GPU g (processor_bit()).
using ProcessorMask = std::uint16_t;
inline constexpr ProcessorMask kCpuBit = 1;

enum PageFlag : std::uint8_t {
  kDirty = 1 << 0,          // written since it last moved
  kReadMostly = 1 << 1,     // ReadMostly advice
  kInFaultBuffer = 1 << 2,  // a GPU fault on the page waits in the fault buffer
  kFaultWrite = 1 << 3,     // ... and one of its entries writes (coalesced access type)
  kPinned = 1 << 4,         // pinned by the thrashing policy where it is resident (until BlockState::pin_until)
  kPolicyDuplicate = 1 << 5,  // a migration policy made read-only duplicates (without ReadMostly advice)
  kCpuReadOnly = 1 << 6,      // ReadMostly advice revoked the CPU's write permission to its sole copy (until the CPU writes or loses it)
};

struct PageState {
  ProcessorMask copies = 0;       // processors holding a valid copy (several only if read-mostly)
  ProcessorMask mapped = 0;       // processors mapping it: copies (local) plus remote mappings
  ProcessorMask accessed_by = 0;  // AccessedBy advice
  std::int8_t preferred = -1;     // PreferredLocation advice (Processor code), -1 unset
  std::uint8_t flags = 0;         // PageFlag bits

  // The CPU holds the only copy and may still write it: duplicating the page
  // elsewhere revokes that permission first (the ReadMostly advice revokes it
  // up front, kCpuReadOnly; a CPU write gives it back).
  bool cpu_writes_sole_copy() const { return copies == kCpuBit && !(flags & kCpuReadOnly); }
  // Any advice that changes where a fault on the page is served.
  bool advised() const { return preferred >= 0 || accessed_by != 0 || (flags & kReadMostly); }
};
static_assert(sizeof(PageState) == 8, "the page record is the replay's hot load: keep it to 8 bytes");

// Per 2 MiB VA block: timing and policy responses that apply to the block.
struct BlockState {
  Nanos ready_at = 0;            // data of an in-flight migration arrives
  ProcessorMask ready_for = 0;   // ... for these processors (their hits wait for it; others' do not)
  Nanos throttle_until = 0;      // thrashing throttle: faults wait until then
  Nanos pin_until = 0;           // thrashing pin expiry
  Nanos map_remote_until = 0;    // thrashing map-remote expiry
  std::uint32_t fault_migrations = 0;  // consecutive faulted pages migrated to last_destination
  std::int16_t last_destination = -1;
  ProcessorMask map_remote_mask = 0;   // processors that map remotely instead of migrating
};

inline constexpr std::uint32_t kNoSlot = 0xffffffffu;

inline int popcount16(ProcessorMask m) { return __builtin_popcount(m); }

// Lowest processor code in a non-empty mask.
inline Processor first_processor(ProcessorMask m) {
  return Processor{static_cast<std::int16_t>(__builtin_ctz(m))};
}

// The processor holding the page's only copy with write permission (the CPU
// where it may still write, a GPU holding it alone), or none: the one a read
// duplication of the page revokes.
inline Processor sole_writer(const PageState& st) {
  if (st.cpu_writes_sole_copy()) return Processor::cpu();
  if (popcount16(st.copies) == 1 && st.copies != kCpuBit) return first_processor(st.copies);
  return Processor::none();
}

}  // namespace umsim::sim
