// Engine-level semantics that differ between drivers (reference:
// docs/model.md, "Vendor modes"). Policies decide prefetch / eviction /
// migration / thrashing; these switches change what the engine itself does.
// Vendor presets (policy specs + semantics) live in policies/vendor_presets.*.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "sim/types.h"

namespace umsim::sim {

struct VendorSemantics {
  std::string name = "nvidia";

  // ReadMostly advice makes read faults create read-only duplicates
  // (NVIDIA). AMD stores the flag but does not duplicate.
  bool read_mostly_duplicates = true;
  // AccessedBy maps the accessing processor to the page where it lives
  // instead of migrating (both drivers: NVIDIA accessed-by, AMD ACCESS_IN_PLACE).
  bool accessed_by_maps_in_place = true;
  // GPU-to-GPU migrations are staged through host memory (AMD: D2H then H2D).
  bool peer_migration_through_host = false;
  // An explicit prefetch moves (and populates) every page of the range that is
  // not already at the destination (both drivers).
  bool prefetch_whole_range = true;
  // GPU faults on managed memory migrate pages (NVIDIA, AMD XNACK on). When
  // false (AMD XNACK off) managed memory is zero-copy host memory mapped by
  // every GPU, populated on the CPU at allocation, until prefetched.
  bool gpu_faults_migrate = true;
  // Pages migrated around a faulting page: 1 = the page alone (NVIDIA, whose
  // prefetch policy adds more); 512 = its whole 2 MiB window (AMD SVM).
  std::uint32_t gpu_fault_window_pages = 1;
  std::uint32_t cpu_fault_window_pages = 1;
  // One physical memory shared by the CPU and the GPUs (AMD MI300A APU): managed
  // and system pages live in it (the model's CPU copy) and never migrate. A GPU
  // fault maps its page in place (populating it there on first touch), with the
  // whole fault window; a prefetch to a GPU only maps. kfd_svm.c: on an APU the
  // best restore and prefetch location is system memory (0), and no device-private
  // zone exists to migrate into.
  bool single_memory_pool = false;

  static VendorSemantics nvidia() { return {}; }
  static VendorSemantics amd_xnack_on() {
    VendorSemantics v;
    v.name = "amd-xnack-on";
    v.read_mostly_duplicates = false;
    v.peer_migration_through_host = true;
    v.gpu_fault_window_pages = kPagesPerBlock;
    v.cpu_fault_window_pages = kPagesPerBlock;
    return v;
  }
  static VendorSemantics amd_xnack_off() {
    VendorSemantics v = amd_xnack_on();
    v.name = "amd-xnack-off";
    v.gpu_faults_migrate = false;
    return v;
  }

  // MI300A with HSA_XNACK=1: GPU faults map in place, 2 MiB windows.
  static VendorSemantics amd_apu_xnack_on() {
    VendorSemantics v = amd_xnack_on();
    v.name = "amd-apu-xnack-on";
    v.single_memory_pool = true;
    return v;
  }
  // MI300A with XNACK off: managed memory is mapped by every GPU from the start
  // (no GPU faults); system memory cannot be touched by a GPU at all.
  static VendorSemantics amd_apu_xnack_off() {
    VendorSemantics v = amd_xnack_off();
    v.name = "amd-apu-xnack-off";
    v.single_memory_pool = true;
    return v;
  }

  nlohmann::ordered_json to_json() const {
    nlohmann::ordered_json j;
    j["name"] = name;
    j["read_mostly_duplicates"] = read_mostly_duplicates;
    j["accessed_by_maps_in_place"] = accessed_by_maps_in_place;
    j["peer_migration_through_host"] = peer_migration_through_host;
    j["prefetch_whole_range"] = prefetch_whole_range;
    j["gpu_faults_migrate"] = gpu_faults_migrate;
    j["gpu_fault_window_pages"] = gpu_fault_window_pages;
    j["cpu_fault_window_pages"] = cpu_fault_window_pages;
    if (single_memory_pool) j["single_memory_pool"] = true;  // left out otherwise: older results unchanged
    return j;
  }
};

}  // namespace umsim::sim
