// Fluent helpers for hand-built policy situations in tests.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

#include "policies/policy_kinds.h"

namespace umsim::policies::testing {

template <typename Interface>
std::unique_ptr<Interface> make(const std::string& spec) {
  return Registry<Interface>::instance().create(spec);
}

// Pages [first, end) of a block.
inline sim::PageMask pages(std::uint32_t first, std::uint32_t end) {
  sim::PageMask m;
  for (std::uint32_t p = first; p < end; ++p) m.set(p);
  return m;
}
inline sim::PageMask pages(std::initializer_list<std::uint32_t> list) {
  sim::PageMask m;
  for (auto p : list) m.set(p);
  return m;
}

// Set pages as a sorted list, for readable failure messages.
inline std::vector<std::uint32_t> list(const sim::PageMask& m) {
  std::vector<std::uint32_t> v;
  for (std::uint32_t p = 0; p < sim::kPagesPerBlock; ++p)
    if (m.test(p)) v.push_back(p);
  return v;
}
inline std::vector<std::uint32_t> range(std::uint32_t first, std::uint32_t end) {
  std::vector<std::uint32_t> v;
  for (std::uint32_t p = first; p < end; ++p) v.push_back(p);
  return v;
}
inline std::vector<std::uint32_t> minus(std::vector<std::uint32_t> v, std::initializer_list<std::uint32_t> drop) {
  std::vector<std::uint32_t> out;
  for (auto p : v) {
    bool dropped = false;
    for (auto d : drop) dropped |= p == d;
    if (!dropped) out.push_back(p);
  }
  return out;
}

// A prefetch request built step by step: Fault({0, 16}).Resident(0, 32).To(gpu0)...
struct Request {
  sim::PrefetchRequest r;
  Request() {
    r.destination = sim::Processor::gpu(0);
    r.fault_migrations_to_destination = 1;
  }
  Request& fault(std::initializer_list<std::uint32_t> p) {
    r.faulted |= pages(p);
    r.fault_migrations_to_destination = static_cast<std::uint32_t>(r.faulted.count());
    return *this;
  }
  Request& resident(std::uint32_t first, std::uint32_t end) {
    r.resident_on_destination |= pages(first, end);
    r.resident_anywhere |= pages(first, end);
    return *this;
  }
  Request& resident_elsewhere(std::uint32_t first, std::uint32_t end) {
    r.resident_anywhere |= pages(first, end);
    return *this;
  }
  Request& thrashing(std::initializer_list<std::uint32_t> p) {
    r.thrashing |= pages(p);
    r.excluded |= pages(p);
    return *this;
  }
  Request& excluded(std::initializer_list<std::uint32_t> p) {
    r.excluded |= pages(p);
    return *this;
  }
  Request& to(sim::Processor p) {
    r.destination = p;
    return *this;
  }
  Request& block_pages(std::uint32_t n) {
    r.pages_in_block = n;
    return *this;
  }
  Request& migrations(std::uint32_t n) {
    r.fault_migrations_to_destination = n;
    return *this;
  }
  Request& preferred_here() {
    r.destination_is_preferred = true;
    return *this;
  }
  Request& preferred_elsewhere() {
    r.preferred_location_elsewhere = true;
    return *this;
  }
  Request& at(sim::AllocSlot alloc, std::uint64_t block) {
    r.alloc = alloc;
    r.block = block;
    return *this;
  }
};

// Runs one prefetch decision and returns the pages chosen, as a sorted list.
inline std::vector<std::uint32_t> run(sim::PrefetchPolicy& p, const Request& req) {
  sim::PageMask out;
  p.prefetch(req.r, out);
  return list(out);
}

inline sim::ChunkInfo chunk(std::uint32_t slot, sim::AllocSlot alloc = 0, std::uint64_t first_page = 0, int gpu = 0) {
  sim::ChunkInfo c;
  c.gpu = gpu;
  c.slot = slot;
  c.alloc = alloc;
  c.first_page = first_page;
  return c;
}

inline sim::EvictionContext context(std::uint32_t chunks, int gpus = 1) {
  sim::EvictionContext ctx;
  ctx.gpus = gpus;
  ctx.chunks_per_gpu = chunks;
  return ctx;
}

}  // namespace umsim::policies::testing
