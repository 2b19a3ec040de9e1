// Policies written in Python, for prototyping (the bindings in
// umsim_module.cc): an object with the methods below is wrapped into the
// engine's policy interface. Every callback crosses into the interpreter, so
// a replay with a Python policy runs many times slower than with a C++ one
// (docs/python.md has the figures); port a policy to C++ (docs/policies.md)
// once it works.
//
// Eviction (umsim.replay(..., evict=obj)):
//   obj.on_chunk_allocated(gpu, slot, alloc, first_page, now)
//   obj.on_chunk_accessed(gpu, slot, now)     optional: only called if defined
//   obj.on_chunk_freed(gpu, slot)
//   obj.choose_victim(gpu, now, evictable) -> slot (evictable(gpu, slot) -> bool), or None
//   obj.granularity                          optional attribute, bytes (default 2 MiB)
// Prefetch (umsim.replay(..., prefetch=obj)):
//   obj.prefetch(request) -> iterable of page indices within the VA block, where
//   request is a dict: alloc, block, pages_in_block, destination ("gpu0", "cpu"),
//   faulted, resident_on_destination, resident_anywhere, excluded (lists of page
//   indices), fault_migrations_to_destination, now.
#pragma once

#include <memory>

#include <pybind11/pybind11.h>

#include "sim/eviction_policy.h"
#include "sim/prefetch_policy.h"

namespace umsim::python {

std::unique_ptr<sim::EvictionPolicy> make_python_eviction(pybind11::object policy);
std::unique_ptr<sim::PrefetchPolicy> make_python_prefetch(pybind11::object policy);

}  // namespace umsim::python
