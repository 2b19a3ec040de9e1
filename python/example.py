#!/usr/bin/python3
"""umsim from Python, notebook style: one replay, a sweep as a pandas
DataFrame, and an eviction and a prefetch policy written in Python.

  ./bazelw build //python:umsim.so //tools:umsim
  bazel-bin/tools/umsim trace gen random -p footprint=16MiB,iterations=2 -o random.umtb
  PYTHONPATH=bazel-bin/python /usr/bin/python3 python/example.py random.umtb
"""
import collections
import sys

import umsim

trace = sys.argv[1] if len(sys.argv) > 1 else "random.umtb"
print(f"umsim {umsim.__version__} (commit {umsim.git_commit})")

# %% One replay: the result is the dict `umsim replay --json` writes.
result = umsim.replay(trace, evict="lru", gpu_mem="150%")
total = result["total"]
print(f"lru at 150%: {total['time_ns'] / 1e6:.2f} ms, {total['gpu_faults']} faults, {total['evictions']} evictions")

# %% A sweep as a DataFrame: one row per point, nested fields flattened.
lines = umsim.sweep([trace], prefetch=["none", "tree"], evict=["fifo", "lru"], gpu_mem=["100%", "150%"])
frame = umsim.frame(lines)
print(frame.pivot_table(index=["prefetch", "evict"], columns="gpu_mem_spec", values="result.total.time_ns") / 1e6)


# %% An eviction policy in Python: least recently used 2 MiB chunk.
class PythonLru:
    """The built-in `lru` (policies/eviction/lru.cc) in a few lines: same evictions, many times slower."""

    def __init__(self):
        self.order = collections.OrderedDict()  # (gpu, slot), least recent first

    def on_chunk_allocated(self, gpu, slot, alloc, first_page, now):
        self.order[(gpu, slot)] = None

    def on_chunk_accessed(self, gpu, slot, now):
        if (gpu, slot) in self.order:
            self.order.move_to_end((gpu, slot))

    def on_chunk_freed(self, gpu, slot):
        self.order.pop((gpu, slot), None)

    def choose_victim(self, gpu, now, evictable):
        return next((s for g, s in self.order if g == gpu and evictable(g, s)), None)


mine = umsim.replay(trace, evict=PythonLru(), gpu_mem="150%")["total"]
print(f"PythonLru at 150%: {mine['time_ns'] / 1e6:.2f} ms, {mine['evictions']} evictions "
      f"({'same as' if mine == total else 'differs from'} the built-in lru)")


# %% A prefetch policy in Python: bring the aligned 64 KiB around each faulted page.
class Sequential64K:
    def prefetch(self, request):
        pages = set()
        for page in request["faulted"]:
            first = page - page % 16
            pages.update(range(first, min(first + 16, request["pages_in_block"])))
        return pages - set(request["faulted"]) - set(request["excluded"]) - set(request["resident_on_destination"])


seq = umsim.replay(trace, prefetch=Sequential64K(), evict="lru", gpu_mem="150%")["total"]
print(f"Sequential64K: {seq['time_ns'] / 1e6:.2f} ms, {seq['bytes_prefetched'] >> 20} MiB prefetched")
