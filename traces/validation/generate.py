#!/usr/bin/env python3
"""Writes the validation trace suite (traces/validation/*.umt).

These traces are NOT used for calibration (`umsim-hip calibrate` builds its own
microbenchmarks in code, with other sizes, seeds and mixes). Each covers one
unified-memory behaviour; docs/validation.md lists what each checks. Managed
footprints stay at or below 1 GiB (far under half of an H200's free memory).
Run: python3 traces/validation/generate.py  (deterministic: fixed seeds).
"""
import os
import random

HERE = os.path.dirname(os.path.abspath(__file__))
MiB = 1 << 20
PAGE = 4096


def write(name, comment, body, version=1):
    with open(os.path.join(HERE, name + ".umt"), "w") as f:
        f.write(f"umsim-trace {version}\n")
        for line in comment.strip().splitlines():
            f.write("# " + line + "\n")
        f.write(body.strip() + "\n")
        f.write("end-of-trace\n")  # a complete trace; `umsim trace check` warns when it is missing


write("v01_sequential_first_touch", """
CPU writes 512 MiB, one GPU kernel reads every page in order: demand paging with
the driver's density prefetcher; link-bound.""", """
alloc A 512MiB managed
cpu w A len=512MiB
phase gpu
kernel read_all gpu=0 stream=1 compute=100us
  r A len=512MiB
end
sync all
free A
""")

rng = random.Random(20261130)
pages = list(range(128 * MiB // PAGE))
rng.shuffle(pages)
lines = []
for p in pages:
    op = "w" if rng.random() < 0.25 else "r"
    lines.append(f"  {op} A+{p * PAGE}B len=4KiB")
write("v02_random_first_touch", """
CPU writes 128 MiB, one kernel touches every page once in a random order (25% writes):
faults scattered over all VA blocks.""", """
alloc A 128MiB managed
cpu w A len=128MiB
phase gpu
kernel random_touch gpu=0 stream=1 compute=50us
""" + "\n".join(lines) + """
end
sync all
free A
""")

write("v03_sparse_touch", """
CPU writes 768 MiB, a kernel touches one page every 96 KiB: sparse faults, few pages
per VA block, the prefetcher's 64 KiB regions dominate what moves.""", """
alloc A 768MiB managed
cpu w A len=768MiB
phase gpu
kernel sparse gpu=0 stream=1 compute=50us
  r A len=768MiB stride=96KiB
end
sync all
free A
""")

write("v04_gpu_first_touch", """
A kernel writes 512 MiB of managed memory no processor touched before: pages are
populated on the GPU, nothing crosses the link.""", """
alloc A 512MiB managed
phase gpu
kernel init gpu=0 stream=1 compute=50us
  w A len=512MiB
end
sync all
free A
""")

write("v05_prefetch_before_kernel", """
CPU writes 512 MiB, an explicit prefetch moves it to gpu0 on the kernel's stream, then
the kernel reads it without faulting.""", """
alloc A 512MiB managed
cpu w A len=512MiB
phase prefetch
prefetch A len=512MiB to=gpu0 stream=1
sync stream=1
phase gpu
kernel read_prefetched gpu=0 stream=1 compute=200us
  r A len=512MiB
end
sync all
free A
""")

body = "alloc A 64MiB managed\n"
for i in range(4):
    body += f"""phase cpu{i}
cpu w A len=64MiB
phase gpu{i}
kernel update{i} gpu=0 stream=1 compute=100us
  r A len=64MiB
  w A len=64MiB
end
sync all
"""
body += "free A\n"
write("v06_cpu_gpu_pingpong", """
Four rounds of CPU write then GPU read-modify-write over 64 MiB: every round migrates
the buffer to the GPU and back.""", body)

write("v07_cpu_readback", """
A kernel produces 256 MiB on the GPU, then the CPU reads it back page by page:
CPU faults migrate it to host memory.""", """
alloc R 256MiB managed
phase gpu
kernel produce gpu=0 stream=1 compute=100us
  w R len=256MiB
end
sync all
phase readback
cpu r R len=256MiB
free R
""")

write("v08_read_mostly", """
ReadMostly: the GPU reads a CPU-written 256 MiB buffer (read-only copy), the CPU reads
it (no migration back), the GPU reads again (no new transfer).""", """
alloc P 256MiB managed
cpu w P len=256MiB
advise P len=256MiB readmostly
phase gpu_read
kernel read1 gpu=0 stream=1 compute=100us
  r P len=256MiB
end
sync all
phase cpu_read
cpu r P len=256MiB
phase gpu_read_again
kernel read2 gpu=0 stream=1 compute=100us
  r P len=256MiB
end
sync all
free P
""")

write("v09_accessed_by_preferred_cpu", """
PreferredLocation CPU + AccessedBy gpu0: the kernel reads 256 MiB over a remote
mapping, nothing migrates.""", """
alloc S 256MiB managed
cpu w S len=256MiB
advise S len=256MiB preferred=cpu
advise S len=256MiB accessed_by=gpu0
phase gpu
kernel remote_read gpu=0 stream=1 compute=50us
  r S len=256MiB
end
sync all
free S
""")

write("v10_preferred_gpu", """
PreferredLocation gpu0 on a CPU-written 256 MiB buffer: the GPU faults it over, then
CPU reads of half of it fault it back.""", """
alloc G 256MiB managed
cpu w G len=256MiB
advise G len=256MiB preferred=gpu0
phase gpu
kernel read_pref gpu=0 stream=1 compute=50us
  r G len=256MiB
end
sync all
phase cpu
cpu r G len=128MiB
free G
""")

write("v11_pinned_zero_copy", """
Pinned host memory (hipHostMalloc): the kernel reads 256 MiB over the link, no page
migrates.""", """
alloc H 256MiB pinned
cpu w H len=256MiB
phase gpu
kernel read_pinned gpu=0 stream=1 compute=50us
  r H len=256MiB
end
sync all
free H
""")

write("v12_mapped_zero_copy", """
Mapped zero-copy memory: the kernel writes 128 MiB of host memory directly, then the
CPU reads the result without any migration.""", """
alloc M 128MiB mapped
phase gpu
kernel write_mapped gpu=0 stream=1 compute=50us
  w M len=128MiB
end
sync all
phase cpu
cpu r M len=128MiB
free M
""")

body = """alloc X 512MiB managed
cpu w X len=512MiB
phase pipeline
prefetch X len=128MiB to=gpu0 stream=2
record c0 stream=2
"""
for i in range(4):
    if i + 1 < 4:
        body += f"prefetch X+{(i + 1) * 128}MiB len=128MiB to=gpu0 stream=2\nrecord c{i + 1} stream=2\n"
    body += f"""wait c{i} stream=1
kernel chunk{i} gpu=0 stream=1 compute=3ms
  r X+{i * 128}MiB len=128MiB
end
"""
body += "sync all\nfree X\n"
write("v13_two_streams_overlap", """
Two streams: stream 2 prefetches 128 MiB chunk i+1 while stream 1 computes 3 ms on
chunk i (events order each kernel behind its chunk's prefetch).""", body)

body = """alloc params 256MiB managed
alloc acts 384MiB managed
alloc grads 256MiB managed
cpu w params len=256MiB
advise params len=256MiB readmostly
prefetch params len=256MiB to=gpu0 stream=1
sync all
"""
for it in range(3):
    body += f"""phase forward{it}
kernel fwd{it} gpu=0 stream=1 compute=2ms
  r params len=256MiB
  w acts len=384MiB
end
phase backward{it}
kernel bwd{it} gpu=0 stream=1 compute=4ms
  r acts len=384MiB
  r params len=256MiB
  w grads len=256MiB
end
sync all
phase optimizer{it}
cpu r grads len=256MiB
"""
body += "free params\nfree acts\nfree grads\n"
write("v14_training_loop", """
A small training loop, three iterations: ReadMostly parameters prefetched once,
forward writes activations, backward writes gradients, the CPU reads the gradients
(optimizer step on the host).""", body)

# ---- concurrent streams: kernels on two or more streams overlap on one GPU ----

write("v15_two_streams_disjoint_halves", """
Two kernels launched back to back on two streams fault disjoint halves of one
512 MiB buffer at the same time: one GPU's fault buffer and servicer take both
kernels' faults interleaved.""", """
alloc A 512MiB managed
cpu w A len=512MiB
phase gpu
kernel lower gpu=0 stream=1 compute=100us
  r A len=256MiB
end
kernel upper gpu=0 stream=2 compute=100us
  r A+256MiB len=256MiB
end
sync all
free A
""")

write("v16_shared_read_beside_prefetch", """
Two kernels on streams 1 and 2 read the same 192 MiB at the same time (each page
faulted by whichever kernel gets there first, the other waits for it), while
stream 3 prefetches another 256 MiB to the GPU and a third kernel reads it.""", """
alloc S 192MiB managed
alloc P 256MiB managed
cpu w S len=192MiB
cpu w P len=256MiB
phase gpu
prefetch P to=gpu0 stream=3
kernel read_a gpu=0 stream=1 compute=200us
  r S len=192MiB
end
kernel read_b gpu=0 stream=2 compute=200us
  r S len=192MiB
end
kernel read_p gpu=0 stream=3 compute=200us
  r P len=256MiB
end
sync all
free S
free P
""")

body = """alloc In 384MiB managed
alloc Out 384MiB managed
cpu w In len=384MiB
cpu w Out len=384MiB
phase pipeline
"""
chunks = 6
for i in range(chunks):
    body += f"""prefetch In+{i * 64}MiB len=64MiB to=gpu0 stream=1
record loaded{i} stream=1
wait loaded{i} stream=2
kernel compute{i} gpu=0 stream=2 compute=1ms
  r In+{i * 64}MiB len=64MiB
  w Out+{i * 64}MiB len=64MiB
end
record computed{i} stream=2
wait computed{i} stream=3
prefetch Out+{i * 64}MiB len=64MiB to=cpu stream=3
"""
body += "sync all\nphase host\ncpu r Out len=384MiB\nfree In\nfree Out\n"
write("v17_three_stage_pipeline", """
A three-stage copy/compute pipeline over six 64 MiB chunks: stream 1 prefetches
chunk i to the GPU, stream 2 computes on it (1 ms) writing an output chunk, stream 3
prefetches that output back to the host; events order the stages, so uploads,
kernels and downloads of different chunks overlap.""", body)

body = """alloc B 64MiB managed
cpu w B len=64MiB
"""
for it in range(3):
    body += f"""phase round{it}
kernel writer{it} gpu=0 stream=1 compute=300us
  w B len=32MiB
end
kernel reader{it} gpu=0 stream=2 compute=300us
  r B len=64MiB
end
sync all
phase host{it}
cpu r B len=32MiB
cpu w B+32MiB len=32MiB
"""
body += "free B\n"
write("v18_two_kernels_pingpong_cpu", """
Two kernels on two streams share a 64 MiB buffer with the CPU, three rounds: one
writes the lower half while the other reads all of it (both fault the lower half
at the same time), then the CPU reads the lower half and writes the upper half
back (CPU faults pull the pages home for the next round).""", body)

write("v19_compute_beside_faults", """
A compute-bound kernel (8 ms on 16 MiB) and a fault-bound kernel (first touch of
384 MiB written by the CPU) run at the same time on two streams: the faulting
kernel's migrations proceed while the other computes.""", """
alloc C 16MiB managed
alloc D 384MiB managed
cpu w C len=16MiB
cpu w D len=384MiB
prefetch C to=gpu0 stream=1
sync all
phase gpu
kernel compute_bound gpu=0 stream=1 compute=8ms
  r C len=16MiB
end
kernel fault_bound gpu=0 stream=2 compute=100us
  r D len=384MiB
end
sync all
free C
free D
""")

# ---- format version 2: explicit copies, memset, read-modify-write ----------
# Sizes differ from the calibration's copy group (64 KiB, 1 MiB, 16 MiB, 256 MiB).

body = "alloc D 64MiB device on=gpu0\n"
for size, label in [(256 * 1024, "256KiB"), (4 * MiB, "4MiB"), (64 * MiB, "64MiB")]:
    for host in ["pinned", "pageable"]:
        for direction, side in [("h2d", "from_host"), ("d2h", "to_host")]:
            body += f"phase {direction}_{host}_{label}\n"
            body += f"copy D {side}={host} len={label} gpu=0\n" * 4
body += "phase end\nfree D\n"
write("c01_copies_pinned_pageable", """
Explicit synchronous copies between host buffers and device memory, pinned and
pageable, both directions, at 256 KiB, 4 MiB and 64 MiB (four copies a phase):
the host link's copy bandwidth by size and host memory kind.""", body, version=2)

write("c02_memset_then_kernel", """
hipMemset of a fresh 256 MiB managed buffer on gpu0 (populates it on the GPU),
a kernel reads and writes it (resident), then the CPU reads a quarter back.""", """
alloc A 256MiB managed
phase memset
memset A len=256MiB gpu=0
phase kernel
kernel update gpu=0 stream=1 compute=100us
  rmw A len=256MiB
end
sync all
phase cpu_read
cpu r A len=64MiB
phase end
free A
""", version=2)

body = """alloc A 64MiB managed
alloc B 16MiB managed
cpu w A len=64MiB
cpu w B len=16MiB
advise B len=16MiB readmostly
"""
for it in range(3):
    body += f"""phase gpu{it}
kernel bump{it} gpu=0 stream=1 compute=50us
  rmw A len=64MiB
  rmw B len=16MiB
end
sync all
phase cpu{it}
cpu rmw A len=64MiB
cpu rmw B len=16MiB
"""
body += "phase end\nfree A\nfree B\n"
write("c03_rmw_pingpong", """
CPU and GPU take turns updating the same buffers in place (load, then a
dependent store): 64 MiB plain managed memory migrates both ways each turn; a
16 MiB ReadMostly buffer is read-duplicated by the load, then collapsed by the store.""",
      body, version=2)

chunk = 32 * MiB
body = "alloc In 256MiB device on=gpu0\nalloc Out 256MiB device on=gpu0\n"
for i in range(8):
    off = i * chunk
    body += f"""copy In+{off // MiB}MiB from_host=pinned len=32MiB gpu=0 stream=1 async
record in{i} stream=1
wait in{i} stream=2
kernel work{i} gpu=0 stream=2 compute=1ms
  r In+{off // MiB}MiB len=32MiB
  w Out+{off // MiB}MiB len=32MiB
end
record out{i} stream=2
wait out{i} stream=3
copy Out+{off // MiB}MiB to_host=pinned len=32MiB gpu=0 stream=3 async
"""
body += "sync all\nfree In\nfree Out\n"
write("c04_copy_compute_pipeline", """
A copy/compute pipeline over eight 32 MiB chunks: asynchronous pinned uploads on
stream 1, kernels on stream 2, asynchronous pinned downloads on stream 3, joined
by events, so copies in both directions overlap the kernels.""", body, version=2)


# --- Sub-page touches, stride sweeps, prefetch sizes, ReadMostly collapse,
# --- training-loop hint variants, CPU word touches, isolated faults.

write("v20_subpage_pinned", """
Pinned host memory read by kernels one 4-byte word per page, one word per 128 B,
and whole: zero-copy traffic is the sectors touched, not whole pages.""", """
alloc H 256MiB pinned
cpu w H len=256MiB
phase word_per_page
kernel words4k gpu=0 stream=1
  r H len=256MiB stride=4KiB
end
sync all
phase word_per_line
kernel words128 gpu=0 stream=1
  r H len=256MiB stride=128B
end
sync all
phase whole
kernel whole gpu=0 stream=1
  r H len=256MiB
end
sync all
free H
""")

write("v21_subpage_resident", """
A prefetched 512 MiB managed buffer read by kernels at strides 4 KiB, 512 B and 64 B
(one word each) and written one word per page: resident touches by sector.""", """
alloc A 512MiB managed
cpu w A len=512MiB
prefetch A len=512MiB to=gpu0 stream=1
sync all
phase gpu
kernel s4k gpu=0 stream=1
  r A len=512MiB stride=4KiB
end
kernel s512 gpu=0 stream=1
  r A len=512MiB stride=512B
end
kernel s64 gpu=0 stream=1
  r A len=512MiB stride=64B
end
kernel w4k gpu=0 stream=1
  w A len=512MiB stride=4KiB
end
sync all
free A
""")

write("v22_accessed_by_subpage", """
PreferredLocation CPU + AccessedBy gpu0 on 256 MiB read one word per page and one
word per 256 B: remote managed touches by sector.""", """
alloc S 256MiB managed
cpu w S len=256MiB
advise S len=256MiB preferred=cpu
advise S len=256MiB accessed_by=gpu0
phase word_per_page
kernel words4k gpu=0 stream=1
  r S len=256MiB stride=4KiB
end
sync all
phase word_per_256
kernel words256 gpu=0 stream=1
  r S len=256MiB stride=256B
end
sync all
free S
""")

body = ""
for i, stride in enumerate(["64KiB", "256KiB", "1MiB", "4MiB"]):
    body += f"""alloc A{i} 512MiB managed
cpu w A{i} len=512MiB
phase stride_{stride}
kernel sweep_{stride} gpu=0 stream=1
  r A{i} len=512MiB stride={stride}
end
sync all
free A{i}
"""
write("v23_stride_sweep", """
Demand faults at strides 64 KiB, 256 KiB, 1 MiB and 4 MiB over fresh CPU-written
512 MiB buffers (one word per touched page): few faults per VA block, the
prefetcher's reach and the per-fault costs.""", body)

for direction in ("h2d", "d2h"):
    body = "alloc A 2GiB managed\ncpu w A len=2GiB\n"
    if direction == "d2h":
        body += "prefetch A len=2GiB to=gpu0 stream=1\nsync all\n"
    offset = 0
    for size, label in [(64 << 10, "64KiB"), (256 << 10, "256KiB"), (1 << 20, "1MiB"), (2 << 20, "2MiB"),
                        (16 << 20, "16MiB"), (256 << 20, "256MiB"), (1 << 30, "1GiB")]:
        dest = "gpu0" if direction == "h2d" else "cpu"
        body += f"phase p{label}\nprefetch A+{offset}B len={label} to={dest} stream=1\nsync all\n"
        offset += size
    body += "free A\n"
    write(f"v{24 if direction == 'h2d' else 25}_prefetch_sizes_{direction}", f"""
Prefetches of 64 KiB to 1 GiB {'to gpu0 from CPU-written memory' if direction == 'h2d' else 'back to the CPU from gpu0'},
one phase each: the fixed per-call cost against the link.""", body)

write("v26_read_mostly_collapse", """
ReadMostly: gpu0 duplicates 128 MiB, a CPU write collapses the copies, a prefetch
brings it back, a kernel reads it.""", """
alloc P 128MiB managed
cpu w P len=128MiB
advise P len=128MiB readmostly
phase duplicate
kernel read1 gpu=0 stream=1
  r P len=128MiB
end
sync all
phase collapse
cpu w P len=128MiB
phase reprefetch
prefetch P len=128MiB to=gpu0 stream=1
sync all
phase read_again
kernel read2 gpu=0 stream=1
  r P len=128MiB
end
sync all
free P
""")


def training(variant):
    """The v14 loop with one hint variant for the parameters."""
    body = "alloc params 256MiB managed\nalloc acts 384MiB managed\nalloc grads 256MiB managed\n"
    body += "cpu w params len=256MiB\n"
    if variant == "prefetch":
        body += "prefetch params len=256MiB to=gpu0 stream=1\nsync all\n"
    elif variant == "accessed_by":
        body += "advise params len=256MiB preferred=cpu\nadvise params len=256MiB accessed_by=gpu0\n"
    elif variant == "preferred_gpu":
        body += "advise params len=256MiB preferred=gpu0\n"
    for it in range(3):
        body += f"""phase forward{it}
kernel fwd{it} gpu=0 stream=1 compute=1ms
  r params len=256MiB
  w acts len=384MiB
end
phase backward{it}
kernel bwd{it} gpu=0 stream=1 compute=2ms
  r acts len=384MiB
  r params len=256MiB
  w grads len=256MiB
end
sync all
phase optimizer{it}
cpu r grads len=256MiB stride=64B
cpu w params len=256MiB stride=64B
"""
    return body + "free params\nfree acts\nfree grads\n"


for n, (variant, what) in enumerate([("none", "no hints (demand paging only)"),
                                     ("prefetch", "parameters prefetched before the first step"),
                                     ("accessed_by", "parameters on the CPU, mapped by gpu0 (AccessedBy)"),
                                     ("preferred_gpu", "parameters preferring gpu0")]):
    write(f"v{27 + n}_training_{variant}", f"""
Training loop, three iterations, {what}: forward writes activations, backward
writes gradients, the CPU reads the gradients and updates the parameters (one
word per 64 B line) between steps.""", training(variant))

write("v31_cpu_word_touch", """
The CPU touches one word per page: of a resident 256 MiB buffer, then of the same
buffer after a kernel moved it to gpu0 (CPU faults bring the pages back).""", """
alloc A 256MiB managed
cpu w A len=256MiB
phase cpu_words
cpu w A len=256MiB stride=4KiB
cpu r A len=256MiB stride=4KiB
phase gpu
kernel take gpu=0 stream=1
  r A len=256MiB
end
sync all
phase cpu_word_faults
cpu r A len=256MiB stride=4KiB
free A
""")

body = "alloc A 512MiB managed\ncpu w A len=512MiB\nphase isolated\n"
for k in range(48):
    body += f"kernel one{k} gpu=0 stream=1\n  r A+{(k * 5 + 3) % 256}MiB len=4B\nend\n"
body += "sync all\nfree A\n"
write("v32_isolated_faults", """
48 small kernels, each reading one word of a different CPU-written VA block: one
fault each, nothing for the prefetcher.""", body)
