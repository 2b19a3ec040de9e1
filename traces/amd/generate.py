#!/usr/bin/env python3
"""Writes the traces that mirror published AMD unified-memory microbenchmarks
(traces/amd/*.umt); docs/validation.md ("AMD targets from published
measurements") puts the model's results next to the published ones, and
tests/sim/amd_published_test.cc pins them.

- pearson_*: the allocator x access x HSA_XNACK table of the mi300a-xnack
  experiment (C. Pearson, ROCm 6.2.1 on an MI300A): one kernel writes a
  buffer ("GPU Kernel" row), or the CPU writes it in a loop ("Host Loop").
- utpx_babelstream_*: BabelStream 4.0's five kernels over three 2^25-double
  arrays (268.4 MB each), as UoB-HPC/utpx ran it on a Radeon VII without
  XNACK: managed memory (host-resident, zero copy) and device-resident arrays.
- llnl_triad_*: a STREAM Triad on the MI300A over hipMalloc arrays and over
  malloc arrays the CPU initialised (4 KiB pages), twice: the first pass takes
  the GPU faults that map the windows, the second is the steady state where
  LLNL's El Capitan guide puts the ~15% TLB cost (the profile takes that
  number: in-sample).
- seed_*: what the seed articles claim of AMD managed memory (docs/amd.md):
  1 GiB written by the CPU, then read by a kernel on demand, after a
  prefetch, or from zero-copy memory.
Run: python3 traces/amd/generate.py  (deterministic; no randomness).
"""
import os

HERE = os.path.dirname(os.path.abspath(__file__))


def write(name, comment, body):
    with open(os.path.join(HERE, name + ".umt"), "w") as f:
        f.write("umsim-trace 1\n")
        for line in comment.strip().splitlines():
            f.write("# " + line + "\n")
        f.write(body.strip() + "\n")
        f.write("end-of-trace\n")  # a complete trace; `umsim trace check` warns when it is missing


# mi300a-xnack: hipMalloc = device, malloc = system, hipMallocManaged = managed.
ALLOCATORS = [("hipMalloc", "device on=gpu0"), ("malloc", "system"), ("hipMallocManaged", "managed")]
for api, kind in ALLOCATORS:
    write(f"pearson_{api}_gpu_kernel", f"""
mi300a-xnack "GPU Kernel" row: {api} memory (kind {kind.split()[0]}) written by one kernel.""", f"""
alloc X 64MiB {kind}
kernel write gpu=0 stream=1
  w X len=64MiB
end
sync all
free X
""")
    write(f"pearson_{api}_host_loop", f"""
mi300a-xnack "Host Loop" row: {api} memory (kind {kind.split()[0]}) written by the CPU.""", f"""
alloc X 64MiB {kind}
cpu w X len=64MiB
free X
""")

# BabelStream 4.0 (utpx README): arrays of 2^25 doubles = 256 MiB; the init
# kernel writes a, b, c; then Copy, Mul, Add, Triad, Dot once each.
# BabelStream's kernels: name, arrays read, array written.
BABELSTREAM = [("copy", "a", "c"), ("mul", "c", "b"), ("add", "ab", "c"), ("triad", "bc", "a"), ("dot", "ab", "")]


def babelstream(kind):
    body = [f"alloc {x} 256MiB {kind}" for x in "abc"]
    body += ["kernel init gpu=0 stream=1"] + [f"  w {x} len=256MiB" for x in "abc"] + ["end", "sync all"]
    for name, reads, written in BABELSTREAM:
        body += [f"phase {name}", f"kernel {name} gpu=0 stream=1"]
        body += [f"  r {x} len=256MiB" for x in reads] + [f"  w {x} len=256MiB" for x in written]
        body += ["end", "sync all"]
    body += [f"free {x}" for x in "abc"]
    return "\n".join(body)


write("utpx_babelstream_managed", """
BabelStream (utpx README, Radeon VII without XNACK): hipMallocManaged arrays, which
ROCm degrades to host-resident memory the GPU reads and writes over PCIe.""", babelstream("managed"))
write("utpx_babelstream_device", """
BabelStream (utpx README, Radeon VII with UTPX): device-resident arrays.""", babelstream("device on=gpu0"))

# LLNL El Capitan guide: 4 KB CPU pages cost the GPU ~15% (TLB reach).
def triad(kind, cpu_init):
    init = ("cpu w a len=1GiB\ncpu w b len=1GiB\ncpu w c len=1GiB\n" if cpu_init else
            "kernel init gpu=0 stream=1\n  w a len=1GiB\n  w b len=1GiB\n  w c len=1GiB\nend\nsync all\n")
    return f"""
alloc a 1GiB {kind}
alloc b 1GiB {kind}
alloc c 1GiB {kind}
{init}phase first_triad
kernel first_triad gpu=0 stream=1
  r b len=1GiB
  r c len=1GiB
  w a len=1GiB
end
sync all
phase triad
kernel triad gpu=0 stream=1
  r b len=1GiB
  r c len=1GiB
  w a len=1GiB
end
sync all
free a
free b
free c
"""


write("llnl_triad_hipMalloc", """
STREAM Triad on the MI300A over hipMalloc arrays (2 MiB fragments).""", triad("device on=gpu0", False))
write("llnl_triad_malloc", """
STREAM Triad on the MI300A over malloc arrays the CPU initialised (4 KiB pages),
HSA_XNACK=1: the first GPU touch of each 2 MiB window faults and maps it.""", triad("system", True))


# The seed articles' claims (docs/amd.md): the same 1 GiB read three ways.
def seed(prefetch):
    pre = "prefetch A to=gpu0 stream=1\n" if prefetch else ""
    return f"""
alloc A 1GiB managed
cpu w A len=1GiB
{pre}phase gpu
kernel read gpu=0 stream=1
  r A len=1GiB
end
sync all
free A
"""


write("seed_demand_read", """
The CPU writes 1 GiB of managed memory, one kernel reads it: demand paging (XNACK on)
or zero-copy reads over the host link (XNACK off).""", seed(False))
write("seed_prefetched_read", """
The same, with hipMemPrefetchAsync to the GPU before the kernel (on its stream).""", seed(True))
write("seed_device_read", """
The same kernel over hipMalloc memory (no CPU write: device memory is not host-accessible
on discrete GPUs): the device bandwidth the claims compare with.""", """
alloc A 1GiB device on=gpu0
phase gpu
kernel read gpu=0 stream=1
  r A len=1GiB
end
sync all
free A
""")
