// Collects unified-memory counter records and kernel execution windows.
// NVIDIA: CUPTI's unified-memory counter activity (loaded with dlopen, so the
// binary runs, without counters, where CUPTI is missing). AMD: ROCm exposes no
// per-event UM counters to user space (see docs/hip_backend.md); the source
// reports itself unavailable and the result carries timing only.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "hip_backend/um_counters.h"

namespace umsim::hip {

struct KernelActivity {
  std::uint32_t correlation = 0;  // launch order
  std::uint64_t start = 0;        // counter clock, ns
  std::uint64_t end = 0;
  std::int32_t device = -1;       // CUPTI device id (the UM records' source / destination ids)
};

// One per process: CUPTI's activity API is process-wide.
class UmCounterSource {
 public:
  static UmCounterSource& instance();
  UmCounterSource();
  ~UmCounterSource();
  UmCounterSource(const UmCounterSource&) = delete;
  UmCounterSource& operator=(const UmCounterSource&) = delete;

  // Enables collection; call before the first GPU runtime call. Returns false
  // and sets *why when counters are unavailable. Later calls return the first answer.
  bool start(std::string* why);
  bool active() const;
  // The counter clock now (ns), 0 when inactive.
  std::uint64_t now() const;
  // Flushes everything collected since start() (or the last take()) into the vectors.
  void take(std::vector<UmRecord>* records, std::vector<KernelActivity>* kernels);
  // Where the counter library was loaded from, for the result's hardware section.
  std::string library() const;
  // Records CUPTI reported as dropped so far (0 where it cannot tell).
  std::uint64_t dropped() const;

 private:
  bool start_once(std::string* why);
  bool try_library(const std::string& path, std::string* why);
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace umsim::hip
