// The work a stream carries on the engine's timeline (docs/model.md, "Streams
// on one timeline"): kernels, prefetches and event records / waits, queued in
// issue order. The scheduler (stream_scheduler.cc) always steps the stream
// whose next work is earliest in simulated time; issue order breaks ties.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <string>

#include "sim/result.h"
#include "sim/types.h"
#include "traces/event.h"

namespace umsim::sim {

// A kernel while it runs: the engine's current kernel, or one saved on its
// stream while another stream's kernel takes a step.
struct KernelState {
  bool open = false;
  std::string name;
  int gpu = 0;
  trace::StreamId stream = 0;
  std::size_t launch = 0;  // launch order: its index in Result::kernels
  Nanos start = 0;
  Nanos now = 0;        // kernel-local time: start + stalls so far
  Nanos compute = 0;
  Nanos compute_from = 0;  // when its compute begins, its accesses done (kernel_end_time)
  Nanos idle_start = 0;  // gpu.idle_start_cost where it started on an idle GPU
  // Interleaved slices its range accesses sweep (gpu.access_lanes; a managed
  // memset's fill kernel: gpu.fill_lanes).
  std::uint32_t lanes = 1;
  bool write_faulted = false;  // a store of it faulted (gpu.resident_kernels_wait_for_faults)
  // Touches of a range access its warps hold at once (gpu.access_window; 0:
  // the whole range): the lanes sweep one window, then the next.
  std::uint64_t window = 0;
  Bytes remote_host_bytes = 0;   // bytes over remote mappings, in remote.access_unit units
  Bytes remote_host_write_bytes = 0;  // of them, stores' (remote.gpu_write_to_host_gbps)
  std::uint64_t remote_host_requests = 0;  // remote.request_unit lines read from host memory
  Bytes remote_peer_bytes = 0;
  // Transaction units (gpu.access_unit) the kernel's touches cover, all of
  // them and those served remotely: the rest are charged at gpu.access_gbps.
  std::uint64_t touched_units = 0;
  std::uint64_t remote_touched_units = 0;
  // Units of read-modify-write stores to the GPU's own memory (gpu.rmw_cost).
  std::uint64_t rmw_store_units = 0;
};

// Where a kernel's range access stands while it replays in parts (streams on
// one timeline: a range access of a kernel with other streams beside it
// advances a few lane steps at a time, so that kernels running together
// interleave their touches).
struct RangeCursor {
  std::uint64_t pass = 0;  // passes done (the access's count)
  std::uint64_t step = 0;  // lane steps done in this pass
  bool whole = false;      // set by the scheduler: replay the rest at once
  bool more = false;       // set by the replay: parts remain
  // Every page of the access was resident on the kernel's GPU when it began
  // (Engine::resident_access_waits).
  bool hits_only = false;
  bool started() const { return pass != 0 || step != 0; }
};

enum class StreamWorkKind : std::uint8_t { kKernel, kPrefetch, kRecord, kWait };

struct StreamWork {
  StreamWorkKind kind = StreamWorkKind::kKernel;
  std::uint64_t order = 0;  // issue order in the trace: the tie-break
  trace::Event event;       // the kernel_begin, prefetch, record or wait statement
  // Kernels: their GPU accesses, window indices [first, end); `closed` once
  // kernel_end was read; their place in Result::kernels (launch order).
  std::uint64_t first = 0, end = 0;
  bool closed = false;
  RangeCursor cursor;  // the access at `first`, while it replays in parts
  std::size_t result_index = 0;
  // Waits: the issue order of the record they wait for (0: none pending).
  std::uint64_t record = 0;
  // Kernels: the earliest start the host's launch allows (Engine::launch_not_before).
  Nanos not_before = 0;
  // The host's time when it issued the work, which starts no earlier: the host
  // may move on before the work runs (a queued prefetch call's cost).
  Nanos issued_at = 0;
};

struct StreamActor {
  trace::StreamId stream = 0;
  std::deque<StreamWork> queue;
  // The front kernel has started: its state while another stream runs.
  bool running = false;
  KernelState kernel;
  Counters counters;
  std::uint64_t accesses = 0;   // page accesses replayed so far
  bool waits_for_batch = false; // has entries in its GPU's open fault batch
  // Its kernel's accesses are done and its compute runs until `ends_at` as far
  // as the faults replayed so far tell (gpu.compute_beside_faults).
  bool computing = false;
  Nanos ends_at = 0;
  // Its kernel has faulted (on writes) and still has accesses to replay:
  // counted in its GPU's faulting_kernels (write_faulting_kernels)
  // (gpu.resident_kernels_wait_for_faults).
  bool counted_faulting = false;
  bool counted_write_faulting = false;
  // Its kernel has not faulted and waits for the faulting kernels beside it:
  // to finish their accesses (its own accesses wait) or their faults (its
  // accesses done, its end waits). The scheduler passes it by until then.
  bool held = false;
  // It made an access beside a faulting kernel, so it ends no earlier than
  // that kernel's last fault service (end_not_before once known).
  bool ends_after_faults = false;
  Nanos end_not_before = 0;
};

}  // namespace umsim::sim
