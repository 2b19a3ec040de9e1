// A hardware profile: the numbers the model's cost model needs (docs/profiles.md
// documents every key). Loaded from TOML; every bad key, type or value is an
// error naming file and line; unknown keys are errors too.
#pragma once

#include <cmath>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/link_model.h"
#include "sim/types.h"

namespace umsim::sim {

class ProfileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// How a GPU's fault service and the other transfers (streams' prefetches and
// copies) share a link direction (sim/shared_link.h).
struct LinkSharing {
  bool on = false;         // off: one timeline, fault copies queue behind the transfers
  double fault_share = 1;  // the fault copies' share of the link beside transfers; the transfers get the rest
};

struct HardwareProfile {
  std::string name;
  std::string description;
  std::string source;  // file it was loaded from ("" when built in code)

  // [gpu]
  int gpus = 1;
  Bytes gpu_memory = 0;            // per GPU
  bool peer_access = true;         // GPUs may map each other's memory
  // Bandwidth at which a kernel touches pages already resident in its GPU's
  // memory (4 KiB per page access), added to the kernel's time; 0: free.
  double gpu_access_gbps = 0;
  // [gpu] access_lanes: a kernel's warps sweep a range access in this many
  // interleaved slices at once (one page of each slice in turn), so its faults
  // reach the fault buffer from across the range, not in address order.
  // 1 (the default) visits pages in trace order.
  std::uint32_t gpu_access_lanes = 1;
  // [gpu] access_window: touches of a range access the kernel's warps hold at
  // once (on a GPU, the pages of the warps in flight): the lanes sweep one
  // window, then the next, so a fault batch is drawn from the window, not from
  // across the whole range. 0 (the default): the whole range is one window.
  std::uint64_t gpu_access_window = 0;
  // [gpu] fill_lanes: the lanes of the runtime's fill kernel that a memset of
  // managed memory launches (its faults come closer to address order than a
  // trace kernel's); 0 (unset): gpu.access_lanes.
  std::uint32_t gpu_fill_lanes = 0;
  // [gpu] access_unit: the transaction unit (bytes) a kernel's touch of a
  // resident page is charged in: a touch costs the units its bytes cover
  // (traces/page_touch.h) at access_gbps, plus access_cost per page touch.
  // 4096 (the default) charges every touch a whole page, as before.
  Bytes gpu_access_unit = kPageSizeBytes;
  // Per local page touch (issue and latency not hidden by bandwidth), in ns:
  // fractional, as a touch costs about a tenth of a nanosecond on an H200.
  double gpu_access_ns = 0;
  // [gpu] rmw_cost: per transaction unit (access_unit) of a read-modify-write's
  // dependent stores to the GPU's own memory, beyond a plain store's (a store
  // that waits for its load leaves fewer accesses in flight), in ns; 0: none.
  double gpu_rmw_ns = 0;
  Nanos gpu_launch_ns = 0;         // per kernel: launch to first instruction, as hipEvents see it
  // [gpu] idle_start_cost: what a kernel starting on an idle GPU (no kernel
  // running on it, none ended within idle_start_after) takes beyond the same
  // kernel on a busy one (clocks and caches cold); 0 (the default): none.
  Nanos gpu_idle_start_ns = 0;
  Nanos gpu_idle_after_ns = 1'000'000;  // [gpu] idle_start_after
  // [gpu] fault_compute_overlap: fraction (0..1) of a kernel's work (local
  // accesses + compute) that proceeds while its faults are serviced (warps
  // that did not fault keep running); the kernel ends that much earlier, at
  // most by its fault stall. 0 (the default): work follows the stalls.
  double gpu_fault_compute_overlap = 0;
  // [gpu] compute_beside_faults: the rate (0..1) at which a kernel's compute
  // runs while its GPU services another kernel's faults; 1 (the default): as
  // fast as alone (sim/compute_beside_faults.cc).
  double gpu_compute_beside_faults = 1;
  // [gpu] resident_kernels_wait_for_faults: a kernel that has not faulted
  // makes no access while another kernel on its GPU that has faulted on writes
  // still has accesses to replay, and ends no earlier than the last fault
  // service of the faulting kernels it ran beside (sim/resident_beside_faults.cc);
  // false (the default): its accesses wait only while a batch is serviced.
  bool gpu_resident_kernels_wait_for_faults = false;

  // [copy_engines]: concurrent copies per link direction.
  int copy_engines_h2d = 1;
  int copy_engines_d2h = 1;
  int copy_engines_peer = 1;
  // [copy_engines] fault_share: a GPU's fault service and the transfers beside
  // it share a link direction (sim/shared_link.h); absent (the default), fault
  // copies queue behind the transfers.
  LinkSharing link_sharing;

  // [link.*]: each GPU's host link, per direction, and GPU-to-GPU links.
  LinkProfile h2d;
  LinkProfile d2h;
  LinkProfile peer;

  // [faults]: GPU replayable-fault servicing.
  std::uint32_t fault_batch_size = 256;   // entries fetched per batch
  std::uint32_t fault_concurrency = 256;  // accesses a kernel keeps in flight (faults per batch at most)
  Nanos fault_batch_ns = 0;               // per batch: fetch, sort, replay
  // A kernel's first batch on a GPU whose fault servicer is idle: the fault
  // interrupt has to wake the driver's servicing thread. Later batches of the
  // kernel find it still at work (the kernel's other warps keep the fault
  // buffer filled), so bulk faulting pays it once per kernel, an isolated
  // fault every time. 0: none (the pooled calibration of the H200 profile
  // finds 0; the host probe measures it per machine).
  Nanos fault_wakeup_ns = 0;
  // [faults] cold_start_cost: beyond wakeup_cost, what a GPU's fault batch
  // pays after its fault path has idled: cold_start_cost * (1 - exp(-idle /
  // cold_start_time)), idle since the GPU's last batch ended (the whole cost
  // for its first batch ever). On an H200 an isolated fault after about 1.8,
  // 14 and 57 ms of CPU writes takes 36, 119 and 159 us more than one right
  // after another fault (docs/model.md). 0: none.
  Nanos fault_cold_start_ns = 0;
  Nanos fault_cold_time_ns = 10'000'000;  // [faults] cold_start_time
  // [faults] cold_start_carry: the share of a batch's cold start that the
  // GPU's next batch still pays, so the path warms over a few batches, not in
  // one (on an H200 the fault right after a cold one takes 60-80 us against
  // 37 steady). The next batch's coldness is 1 - (1 - carry * coldness) *
  // exp(-idle / cold_start_time). 0 (the default): warm after one batch.
  double fault_cold_carry = 0;
  Nanos fault_va_block_ns = 0;            // per VA block serviced in a batch
  Nanos fault_page_ns = 0;                // per page serviced (populate, map)
  // Per page a fault service moves to the requester from another copy
  // (faulted or pulled in by the prefetch policy): the driver's per-page work
  // (unmapping the source, DMA mapping, page-table updates) that makes
  // fault-driven migration slower than the link. 0: only the copy is charged.
  Nanos fault_migrated_page_ns = 0;
  // Per contiguous run of pages a fault service copies into a VA block: the
  // driver's work per copy operation (and its mappings), so that a block's
  // scattered 64 KiB regions cost more than the same bytes in one run
  // (hip_backend/results/h200-pcie5/diag_fault_runs). Unset: 0.
  std::optional<Nanos> fault_run_ns;
  // [faults] copy_runs_by_cause: faults.run_cost counts the runs of faulted
  // pages and the runs of pages the prefetch policy adds apart (the H200
  // copies each separately: a fault mid-region is three copies), not the runs
  // of both together. false (the default): together.
  bool fault_copy_runs_by_cause = false;
  // Per faulted page a GPU write takes from read duplication: before the writer
  // may map the page writable, the page's other copies (the CPU's) are revoked
  // and unmapped. 0: only the ordinary service is charged.
  Nanos fault_revoke_duplicate_page_ns = 0;
  // First touch on a GPU: a VA block service whose faulted pages are resident
  // nowhere costs populate_va_block_cost instead of va_block_cost (no CPU-side
  // unmapping, nothing to copy), and populated pages are zero-filled on the GPU
  // at populate_gbps (0: free). Defaults keep profiles without the keys as before.
  std::optional<Nanos> fault_populate_block_ns;  // unset: fault_va_block_ns
  Nanos populate_block_ns() const { return fault_populate_block_ns.value_or(fault_va_block_ns); }
  double populate_gbps = 0;
  // Time to zero-fill `pages` populated pages on the GPU (0 when populate_gbps is 0: free).
  Nanos zero_fill_ns(std::uint64_t pages) const {
    if (pages == 0 || populate_gbps <= 0) return 0;
    return static_cast<Nanos>(std::ceil(static_cast<double>(pages * kPageSize) / populate_gbps));
  }
  // Read duplication of ReadMostly pages: a VA block service whose faulted
  // pages are all reads of read-mostly pages held elsewhere only adds a
  // read-only copy (the source stays mapped): duplicate_va_block_cost.
  std::optional<Nanos> fault_duplicate_block_ns;  // unset: fault_va_block_ns
  Nanos duplicate_block_ns() const { return fault_duplicate_block_ns.value_or(fault_va_block_ns); }
  // Per page a fault service read-duplicates (a read-only copy beside the
  // source, which stays mapped): duplicated_page_cost, instead of
  // migrated_page_cost. Unset: migrated_page_cost.
  std::optional<Nanos> fault_duplicated_page_ns;
  Nanos duplicated_page_ns() const { return fault_duplicated_page_ns.value_or(fault_migrated_page_ns); }
  // Per page a fault service read-duplicates from a CPU copy that still has
  // write permission (the CPU wrote it since the ReadMostly advice revoked it):
  // the driver revokes that permission first, as the advice would have
  // (session 51's diagnostic: GPU read faults duplicate 64 MiB in 5.5 ms right
  // after the advice, in 14 ms after a CPU write). 0: not charged.
  Nanos fault_revoke_cpu_write_page_ns = 0;

  // [cpu]
  Nanos cpu_fault_ns = 0;        // CPU write fault on a page held elsewhere (excluding the copy)
  // A CPU read fault, which the driver services faster than a write fault
  // (calibration "fault_read" vs "fault" phases). Unset: cpu_fault_ns.
  std::optional<Nanos> cpu_read_fault_ns;
  Nanos cpu_read_fault_cost() const { return cpu_read_fault_ns.value_or(cpu_fault_ns); }
  // A CPU write fault on a read-duplicated page the CPU holds (ReadMostly
  // collapse: the GPU copies are revoked, nothing is copied). Unset: cpu_fault_ns.
  std::optional<Nanos> cpu_collapse_fault_ns;
  Nanos cpu_collapse_fault_cost() const { return cpu_collapse_fault_ns.value_or(cpu_fault_ns); }
  Nanos cpu_first_touch_ns = 0;  // CPU first touch of an unpopulated page (zero fill)
  Nanos cpu_access_ns = 0;       // CPU write or atomic to a resident page (per 4 KiB page)
  // A CPU read of a resident page, which can stream at another rate than a
  // write (calibration's "resident_read" phase). Unset: cpu_access_ns.
  std::optional<Nanos> cpu_read_ns;
  Nanos cpu_read_access_ns() const { return cpu_read_ns.value_or(cpu_access_ns); }
  // A CPU touch of one 64-byte line of a resident page (write / read); a touch
  // of L lines costs word + (page - word) * (L - 1) / 63. Unset: the page cost
  // (every touch a whole page, as before).
  std::optional<Nanos> cpu_word_write_ns;
  std::optional<Nanos> cpu_word_read_ns;
  Nanos cpu_touch_ns(bool write, std::uint64_t lines) const {
    const Nanos page = write ? cpu_access_ns : cpu_read_access_ns();
    return lines_of_page_ns(page, (write ? cpu_word_write_ns : cpu_word_read_ns).value_or(page), lines);
  }
  // [cpu] faulted_page_read_cost / faulted_page_write_cost: a 4 KiB page the
  // CPU touches right after its own fault migrated it in costs less than a
  // resident page: the copy left its lines in the host's cache (calibration
  // run traces/probe/cpu_faults.umt: whole-page faulting reads and writes
  // against one word per page). Words of such a page cost as a resident
  // page's. Unset: the resident page's cost.
  std::optional<Nanos> cpu_faulted_read_ns;
  std::optional<Nanos> cpu_faulted_write_ns;
  Nanos cpu_faulted_touch_ns(bool write, std::uint64_t lines) const {
    const Nanos page = write ? cpu_faulted_write_ns.value_or(cpu_access_ns)
                             : cpu_faulted_read_ns.value_or(cpu_read_access_ns());
    return lines_of_page_ns(page, (write ? cpu_word_write_ns : cpu_word_read_ns).value_or(page), lines);
  }
  bool cpu_faulted_pages_differ() const { return cpu_faulted_read_ns || cpu_faulted_write_ns; }
  // A touch of L of a page's 64 lines: word + (page - word) * (L - 1) / 63.
  static Nanos lines_of_page_ns(Nanos page, Nanos word, std::uint64_t lines) {
    if (lines >= kCpuLinesPerPage || word >= page) return page;
    return word + (page - word) * (lines ? lines - 1 : 0) / (kCpuLinesPerPage - 1);
  }
  static constexpr std::uint64_t kCpuLinesPerPage = 64;

  // [remote]: accesses through remote mappings (zero-copy), per 4 KiB page.
  double remote_gpu_to_host_gbps = 1.0;
  // [remote] gpu_write_to_host_gbps: the GPU's stores to host memory through a
  // mapping (posted writes); unset: gpu_to_host_gbps, the reads'. On the H100
  // hosts whose GPU read host memory at two thirds of the usual speed
  // (sessions 102 and 104) its writes were not slower.
  std::optional<double> remote_gpu_write_to_host_gbps;
  double remote_write_to_host_gbps() const { return remote_gpu_write_to_host_gbps.value_or(remote_gpu_to_host_gbps); }
  double remote_gpu_to_peer_gbps = 1.0;
  // [remote] access_unit / access_cost: as gpu.access_unit / access_cost, for
  // touches through a remote mapping (bytes at the remote bandwidth).
  Bytes remote_access_unit = kPageSizeBytes;
  double remote_access_ns = 0;  // ns per remote page touch, fractional
  // [remote] request_unit / request_cost: GPU reads of host memory go out as
  // one request per request_unit line touched, and a kernel's requests take at
  // least request_cost each: sparse zero-copy reads are bound by the rate of
  // requests the link keeps in flight, not by their bytes (0: bytes only).
  Bytes remote_request_unit = 128;
  double remote_request_ns = 0;  // ns per request, fractional

  // [prefetch]: explicit prefetch servicing.
  Nanos prefetch_va_block_ns = 0;  // per VA block migrated by a prefetch hint
  Nanos prefetch_call_ns = 0;      // per prefetch call, on its stream (host-side driver entry)
  // [prefetch] cold_call_cost: beyond call_cost, for a prefetch after
  // cold_call_after without one (or the replay's first): on an H200 the
  // driver's prefetch path takes 50-100 us more after an idle stretch (a
  // diagnostic: the first 64 KiB prefetch 72-88 us, the next 25; after 38 ms
  // of CPU work 99-120).
  Nanos prefetch_cold_call_ns = 0;
  Nanos prefetch_cold_after_ns = 10'000'000;  // [prefetch] cold_call_after
  // [prefetch] idle_call_cost: beyond call_cost, for a prefetch idle_call_after
  // (1 ms) or more after the previous one but less than cold_call_after: on an
  // H200 a 64 KiB prefetch after 1-16 ms of CPU work takes 20-45 us more than
  // one right after it, after 64 ms - 1 s 60-90 us more (a diagnostic,
  // hip_backend/results/h200-pcie5/diag_cold_prefetch). 0: no such step.
  Nanos prefetch_idle_call_ns = 0;
  Nanos prefetch_idle_after_ns = 1'000'000;  // [prefetch] idle_call_after
  // [prefetch] first_on_gpu_cost: beyond those, for a prefetch to a GPU that
  // holds no page of the allocation and was never its prefetch's destination:
  // on the H200 the first prefetch into a fresh allocation took 40-90 us more
  // than a cold one into memory the GPU had held (the same diagnostic).
  Nanos prefetch_first_on_gpu_ns = 0;
  // [prefetch] first_on_cpu_cost / next_on_cpu_cost: the same toward the CPU,
  // for the replay's first prefetch to the CPU and for its second (the host's
  // side of the path warming, once per process: on the H200 about 45 and 10-25
  // us more than later ones; a second allocation's first costs no more,
  // diag_d2h_small, diag_cold_prefetch d2, diag_d2h_alloc). 0: none.
  Nanos prefetch_first_on_cpu_ns = 0;
  Nanos prefetch_next_on_cpu_ns = 0;
  // [prefetch] queued_call_cost: set, the driver migrates in the calling
  // thread: a prefetch call that finds its stream idle holds the host until its
  // migration ends, and one on a stream with work pending (the previous held
  // call's completion included, which the runtime sees only after the call
  // returns) is queued and costs the host this much. On an H200 a 256 MiB call
  // held the host 4.1-5.8 ms (from the GPU: 25-26 ms, the whole migration), the
  // same call on a stream running a kernel 0.32-0.40 ms (a diagnostic,
  // hip_backend/results/h200-pcie5/diag_prefetch_hold). Unset: calls cost the
  // host nothing, as before.
  std::optional<Nanos> prefetch_queued_call_ns;
  // [prefetch] host_va_block_cost: with queued_call_cost, a held call to a GPU
  // returns once the driver has done its host work, this much per VA block it
  // migrates after the call's own costs, not when the copies end (they go on
  // behind it; never later than the migration's end). On an H200 a 128 MiB
  // call returned 1.46-1.50 ms into a 2.6 ms migration, 64 and 256 MiB calls
  // 0.72-1.0 and 4.1 ms into 1.4 and 5.5 ms: about 37 us a block at the
  // reference host (diag_prefetch_pipeline, diag_prefetch_hold). Moves to the
  // CPU hold the host to their end (h5_hold_d2h). Unset: every held call holds
  // the host until its migration ends.
  std::optional<Nanos> prefetch_host_va_block_ns;
  // A VA block prefetched to a GPU entirely from a peer GPU's copies: the
  // driver's work differs from a host migration (no CPU page tables to walk).
  // Unset: prefetch_va_block_ns.
  std::optional<Nanos> prefetch_peer_va_block_ns;
  Nanos prefetch_peer_block_ns() const { return prefetch_peer_va_block_ns.value_or(prefetch_va_block_ns); }
  // A VA block a prefetch read-duplicates (ReadMostly pages the source keeps):
  // on an H200 about three times a migrating block's work. Unset: prefetch_va_block_ns.
  std::optional<Nanos> prefetch_duplicate_va_block_ns;
  Nanos prefetch_duplicate_block_ns() const { return prefetch_duplicate_va_block_ns.value_or(prefetch_va_block_ns); }
  // A VA block a prefetch migrates to the CPU: the driver allocates and maps
  // host pages for it (on an H200 host about four times a GPU-bound block's
  // work, which moves pages of never-migrated memory). Unset: prefetch_va_block_ns.
  std::optional<Nanos> prefetch_to_cpu_va_block_ns;
  Nanos prefetch_to_cpu_block_ns() const { return prefetch_to_cpu_va_block_ns.value_or(prefetch_va_block_ns); }
  // [prefetch] to_cpu_held_va_block_cost: instead, for a block bound for the
  // CPU that the CPU already holds pages of (its host pages are allocated and
  // mapped). Unset: the block costs prefetch_to_cpu_block_ns() all the same.
  std::optional<Nanos> prefetch_to_cpu_held_va_block_ns;
  Nanos prefetch_to_cpu_held_block_ns() const {
    return prefetch_to_cpu_held_va_block_ns.value_or(prefetch_to_cpu_block_ns());
  }
  // [prefetch] to_cpu_page_cost: per page a prefetch moves to the CPU, host
  // work before its copies start. On an H200 host a 256 MiB prefetch from the
  // GPU took 25-26 ms in replayed traces where the calibration's back-and-forth
  // runs, the link's fit, give 16-17 (diag_prefetch_hold, h5_hold_d2h); between
  // processes such moves run at one of two speeds (about 16 and 11 GB/s) and
  // replays ran at the slower more often. Unset: 0.
  std::optional<Nanos> prefetch_to_cpu_page_ns;

  // [eviction]
  Nanos eviction_chunk_ns = 0;     // per evicted chunk, excluding the write-back copy

  // [host]: explicit copies (reported; the trace format has no memcpy events).
  double pinned_copy_gbps = 1.0;
  double pageable_copy_gbps = 1.0;  // host to GPU (and GPU to host unless the next key is given)
  // [host] pageable_to_host_copy_gbps: GPU-to-host copies into pageable memory,
  // which the runtime stages differently from uploads (unset: pageable_copy_gbps).
  std::optional<double> pageable_to_host_copy_gbps;
  // [host] pageable_cached_copy_gbps, pageable_cache_bytes (given together):
  // uploads from pageable memory whose bytes are in the host's cache run at
  // the first; the cache keeps the second's bytes of host traffic
  // (sim/pageable_buffer_cache.h). Unset: every pageable upload at
  // pageable_copy_gbps.
  std::optional<double> pageable_cached_copy_gbps;
  Bytes pageable_cache_bytes = 0;
  // [host] pageable_warming_share (with pageable_cached_copy_gbps): bytes an
  // upload finds copied once before, not twice, pay this share of what the
  // memory's speed costs beyond the cache's (0-2; 0, unset: they run at the
  // cached speed as soon as they were copied once; on the H100 hosts 0.37-1.59,
  // docs/validation.md, "Session 129: pageable uploads warm up over two copies").
  double pageable_warming_share = 0;
  // [host] copy_call_cost: host time of one copy or memset call beyond its
  // transfer (the runtime call, the copy engine's start, a synchronous call's
  // wake-up); what a 64 KiB hipMemcpy costs beyond the link. 0 unless given.
  Nanos copy_call_ns = 0;
  // [host] pageable_to_host_call_cost: beyond copy_call_cost, per copy into
  // pageable host memory: the runtime lands it in a pinned staging buffer and
  // the host copies it out after, so a small copy pays both in turn (on the
  // H200 hosts 11-18 us more than a pinned copy of 64 KiB - 1 MiB, the
  // bandwidth difference aside). 0 unless given.
  Nanos pageable_to_host_call_ns = 0;
  // [host] launch_after_memset_cost: host time before the first kernel after a
  // managed memset starts (its own events do not see it; its phase does). 0
  // unless given.
  Nanos launch_after_memset_ns = 0;
  // [host] stream_create_cost: host time of creating a stream, charged only by
  // a replay with --streams-created-at-first-use (sim/stream_creation.h): at
  // the statement that first uses each (GPU, stream) pair but the one created
  // before the timing. 0 unless given.
  Nanos stream_create_ns = 0;
  // [host] launch_gap / idle_launch_gap: host time from a kernel's launch call
  // to its start on the GPU (outside the kernel's own events, inside its
  // phase), on a GPU that ran a kernel within gpu.idle_start_after / on one
  // idle for longer. 0 unless given.
  Nanos launch_gap_ns = 0;
  Nanos idle_launch_gap_ns = 0;
  // [host] other_stream_launch_gap: a kernel launched on another stream than
  // the kernel that found its GPU idle starts at least this long after that
  // kernel, however soon it was launched. 0 unless given.
  Nanos other_stream_launch_gap_ns = 0;
  // [host] sync_return_cost: host time from the end of the work a sync waits
  // for to the sync's return; sync_call_cost: a sync with nothing left to wait
  // for. 0 unless given.
  Nanos sync_return_ns = 0;
  Nanos sync_call_ns = 0;
  // [host] free_call_cost: host time of freeing a managed allocation (the
  // driver tears the range down in the calling thread); free_gpu_block_cost:
  // more per VA block with pages on a GPU at the free (their mappings and
  // chunks). 0 unless given.
  Nanos free_call_ns = 0;
  Nanos free_gpu_block_ns = 0;
  // [host] advise_*: host time of a memory-advice call (the driver's work in
  // the calling thread): advise_call_cost per call, then per page the advice
  // changes: advise_read_mostly_page_cost per page whose only copy is the
  // CPU's (its writable mapping is revoked and remapped read-only),
  // advise_accessed_by_page_cost per resident page the advice maps on its
  // processor, advise_preferred_page_cost per resident page whose preferred
  // location it sets. 0 unless given (advice then costs nothing).
  Nanos advise_call_ns = 0;
  Nanos advise_read_mostly_page_ns = 0;
  Nanos advise_accessed_by_page_ns = 0;
  Nanos advise_preferred_page_ns = 0;
  double pageable_d2h_copy_gbps() const { return pageable_to_host_copy_gbps.value_or(pageable_copy_gbps); }

  // [calibrated_on]: the machine the values were measured on (free-form
  // strings: gpu, cpu_model, kernel, driver, cuda, date), so a user can tell
  // whether the host-side keys (cpu.*, host.*, the fault costs, which the
  // driver spends on the host CPU) need re-measuring on their machine.
  std::vector<std::pair<std::string, std::string>> calibrated_on;

  static constexpr Bytes kPageSizeBytes = 4096;
};

// Parses a profile; `source` names it in messages. Throws ProfileError
// ("file:line: ..." or "file: missing key 'x.y'").
HardwareProfile parse_profile(std::string_view toml_text, const std::string& source);
HardwareProfile load_profile_file(const std::string& path);

// Every value, for Result::config and `umsim profiles --json`.
nlohmann::ordered_json to_json(const HardwareProfile& p);

}  // namespace umsim::sim
