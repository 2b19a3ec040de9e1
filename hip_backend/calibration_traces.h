// The calibration microbenchmarks as traces: `umsim-hip calibrate` replays them
// on the GPU, and hip_backend/tune_profile.py replays the same traces in the
// simulator (written by the calibration_traces tool), so the two cannot drift.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "traces/event.h"
#include "traces/trace_builder.h"

namespace umsim::hip {

// One demand-fault microbenchmark: `pattern` over a managed buffer of `bytes`.
// Patterns: sequential, random (every page once, seeded order), stride64k,
// stride2m, write (over CPU-written data), gpu_fresh (a write of untouched memory).
struct FaultRun {
  std::string pattern;
  trace::Bytes bytes = 0;
};

// The fault runs of a calibration; `quick` keeps the smaller ones.
std::vector<FaultRun> fault_runs(bool quick);

// A kernel "touch" in phase "gpu" faulting with the run's pattern.
trace::BuiltTrace fault_trace(const FaultRun& run);

// CPU costs: phases first_touch, resident (writes), resident_read, to_gpu,
// fault (writes of GPU-resident pages), to_gpu_again, fault_read, end.
trace::BuiltTrace cpu_trace(trace::Bytes bytes);
// The phase index of each measured CPU test in cpu_trace (0 is the implicit "main").
std::vector<std::pair<std::size_t, std::string>> cpu_trace_tests();

// A CPU-written ReadMostly buffer read by one kernel (read duplication).
trace::BuiltTrace read_mostly_trace(trace::Bytes bytes);

// A prefetched buffer read and written whole by kernels, `reps` times each.
trace::BuiltTrace resident_trace(trace::Bytes bytes, int reps);

// Zero-copy reads: kernels "pinned", "mapped" and "accessed_by", `reps` rounds.
trace::BuiltTrace remote_trace(trace::Bytes bytes, int reps);

// Two GPUs: a CPU-written buffer prefetched to gpu0 (phase "to_gpu0"), then
// to gpu1 (phase "to_gpu1": a peer migration), phase "end" frees it.
trace::BuiltTrace peer_prefetch_trace(trace::Bytes bytes);
// The phase index of "to_gpu1" in peer_prefetch_trace.
constexpr std::size_t kPeerPrefetchPhase = 2;

// Two GPUs: a buffer resident on gpu0 (preferred location) read by gpu1
// through AccessedBy, i.e. over a remote peer mapping: kernels "peer_read".
trace::BuiltTrace peer_remote_trace(trace::Bytes bytes, int reps);

// Explicit copies and memsets (format version 2), one phase per measurement,
// named copy_<pinned|pageable>_<h2d|d2h>_<bytes>, copy_d2d_<bytes>,
// copy_pinned_h2d_managed_<bytes> (into untouched managed memory),
// memset_device_<bytes> and memset_managed_<bytes>. Synchronous calls on gpu0.
trace::BuiltTrace copy_trace();
// The sizes copy_trace measures host copies at (64 KiB .. 256 MiB).
std::vector<trace::Bytes> copy_trace_sizes();
// The measured phases of copy_trace: (phase index, phase name, bytes).
struct CopyTest {
  std::size_t phase = 0;
  std::string name;
  trace::Bytes bytes = 0;
};
std::vector<CopyTest> copy_trace_tests();

// Kernels with no accesses and the given compute times (spin accuracy).
trace::BuiltTrace spin_trace(const std::vector<trace::Nanos>& compute_ns);

// --- Sub-page touches, isolated faults, CPU word touches, ReadMostly collapse ---

// A touch shape of the sub-page runs: kernels read one 4-byte word every
// `stride` bytes (0: whole pages), so their sectors per page differ.
struct SubpageShape {
  std::string name;
  trace::Bytes stride = 0;
};
// page (stride 0: 128 sectors), w32 (a word per sector: 128), w128 (32), w4k (1).
std::vector<SubpageShape> subpage_shapes();
// A prefetched managed buffer A and a pinned buffer P, both read with every
// shape `reps` times: kernels "res_<shape>" (resident) and "rem_<shape>"
// (remote, over the link), in that order per shape and round.
trace::BuiltTrace subpage_trace(trace::Bytes bytes, int reps);

// `n` kernels "isolated", each touching one word of its own CPU-written VA block:
// one fault, one page, nothing for the prefetcher (isolated fault cost).
trace::BuiltTrace isolated_fault_trace(int n);

// The fault path's cold start: `rounds` times, for each gap of
// cold_fault_gaps(), a phase "gap_<name>" without GPU faults, then kernel
// "<name>" and right after it kernel "warm", each with one isolated fault in
// a CPU-written VA block of its own. Kernels alternate gap, warm.
trace::BuiltTrace cold_fault_trace(int rounds);
struct ColdFaultGap {
  std::string name;
  std::string what;
};
// "cpu": the CPU writes a resident 256 MiB buffer (tens of ms), which gives
// faults.cold_start_cost; "cpu_short" 8 MiB and "cpu_mid" 64 MiB of it (about
// 1.5 and 11 ms: where the path turns cold); "cpu_faults": a 64 MiB buffer
// prefetched to the GPU is read back by the CPU (its faults migrate it home:
// does driver work for the GPU's memory keep the path warm?).
std::vector<ColdFaultGap> cold_fault_gaps();

// CPU touches of one word per page: phases first_touch (whole-page writes),
// word_write and word_read (one word per page of the resident buffer), end.
trace::BuiltTrace cpu_word_trace(trace::Bytes bytes);
std::vector<std::pair<std::size_t, std::string>> cpu_word_trace_tests();

// ReadMostly collapse: A is read-duplicated on gpu0 by a kernel, then phase
// "collapse" (a CPU write of A), "reprefetch" (A prefetched to gpu0) and
// "plain_prefetch" (the same prefetch of a never-advised twin B).
trace::BuiltTrace read_mostly_collapse_trace(trace::Bytes bytes);
std::vector<std::pair<std::size_t, std::string>> read_mostly_collapse_tests();

// GPU writes ending read duplication: A (ReadMostly, written by the CPU) is
// read by kernel "read" (duplicated), written by the CPU (collapsed back), then
// loaded and stored by kernel "rmw" (duplicated, then each store revokes the
// CPU's copy). Phases: read, cpu, rmw, end.
trace::BuiltTrace read_mostly_rmw_trace(trace::Bytes bytes);
std::vector<std::pair<std::size_t, std::string>> read_mostly_rmw_tests();

// Prefetches to gpu0 of CPU-written memory never migrated before, as a program
// prefetches its input (the "prefetch" runs of the calibration move one buffer
// back and forth instead). One phase per prefetch, each over a region of its
// own starting on a 2 MiB VA block: "first" (the replay's first prefetch, 64
// KiB), then 128 KiB, 512 KiB, 64 KiB again, 4 MiB (2 blocks), 32 MiB (16
// blocks), "sparse" (the 32 MiB again after the CPU wrote one word of each of
// its blocks: 16 blocks with a few pages each, which tells the work per block
// from the call's) and 128 MiB (64 blocks).
trace::BuiltTrace fresh_prefetch_trace();
struct FreshPrefetchTest {
  std::size_t phase = 0;
  std::string name;
  trace::Bytes bytes = 0;     // the prefetch's range
  std::uint64_t blocks = 0;   // VA blocks it migrates pages of
};
std::vector<FreshPrefetchTest> fresh_prefetch_tests();

constexpr trace::Bytes kSubpageRunBytes = trace::Bytes{256} << 20;
constexpr int kIsolatedFaults = 64;
constexpr int kColdFaultRounds = 4;
constexpr trace::Bytes kCpuWordRunBytes = trace::Bytes{256} << 20;
constexpr trace::Bytes kCollapseRunBytes = trace::Bytes{64} << 20;
constexpr trace::Bytes kRevokeRunBytes = trace::Bytes{16} << 20;  // ~0.1 s of revocations on an H200

// The traces tune_profile.py replays, by file name: faults_<pattern>_<bytes>.umt
// for every fault run, read_mostly_<bytes>.umt, cpu_<bytes>.umt, copies.umt,
// isolated_<n>.umt, subpage_<bytes>.umt, cpu_words_<bytes>.umt, collapse_<bytes>.umt,
// revoke_<bytes>.umt, fresh_prefetch.umt and cold_faults_<rounds>.umt.
std::vector<std::pair<std::string, trace::BuiltTrace>> tuner_traces();

constexpr trace::Bytes kCpuRunBytes = trace::Bytes{256} << 20;
constexpr trace::Bytes kReadMostlyRunBytes = trace::Bytes{256} << 20;

// ---- compute beside faults (gpu.fault_compute_overlap) ----
// Three kernels on one GPU, each over its own CPU-written buffer of `bytes`:
// "compute_only" (prefetched: resident accesses + `compute_ns`),
// "faults_only" (demand faults, no compute) and "both" (demand faults +
// `compute_ns`). hip_backend/compute_overlap_fit.h turns their times into
// the fraction of the work that runs while the faults are serviced.
trace::BuiltTrace compute_overlap_trace(trace::Bytes bytes, trace::Nanos compute_ns);
constexpr trace::Bytes kComputeOverlapBytes = trace::Bytes{128} << 20;
constexpr trace::Nanos kComputeOverlapNs = 5000000;  // about the 128 MiB fault stall

}  // namespace umsim::hip
