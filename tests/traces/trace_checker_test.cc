// Semantic checks: each rule on a tiny hand-written trace, with the exact
// report; all problems of a trace are reported, not just the first.
#include <gtest/gtest.h>

#include "traces/trace_checker.h"
#include "traces/trace_reader.h"
#include "traces/trace_writer.h"

namespace umsim::trace {
namespace {

std::vector<std::string> problems(const std::string& body) {
  auto reader = open_trace_from_memory("umsim-trace 1\n" + body, "t.umt");
  std::vector<std::string> out;
  check_trace(*reader, [&](const TraceProblem& p) { out.push_back(to_string(p)); });
  return out;
}

using Lines = std::vector<std::string>;

TEST(TraceChecker, ExamplesAreClean) {
  for (const char* path : {"traces/examples/cpu_gpu_cpu.umt", "traces/examples/stream_pipeline.umt",
                           "traces/examples/advise_all.umt", "traces/examples/alloc_kinds.umt",
                           "traces/examples/multi_gpu.umt", "traces/examples/training_step.umt",
                           "traces/examples/copies_v2.umt"}) {
    auto reader = open_trace(path);
    std::vector<std::string> out;
    const CheckSummary s = check_trace(*reader, [&](const TraceProblem& p) { out.push_back(to_string(p)); });
    EXPECT_EQ(out, Lines{}) << path;
    EXPECT_GT(s.events, 0u);
  }
}

TEST(TraceChecker, RulesTheModelAppliesToo) {
  EXPECT_EQ(problems("alloc A 18446744073709551615 managed\ncpu r A+0x7fffffffffffffff len=4KiB\nfree A\n"),
            Lines{"t.umt:2: error: allocation 'A' is too large: its size does not round up to whole 4KiB pages in 64 "
                  "bits"});
  EXPECT_EQ(problems("kernel k gpu=0 stream=1048576\nend\nsync stream=4294967295\n"),
            (Lines{"t.umt:2: error: stream 1048576 is beyond the 1048576 streams the model supports",
                   "t.umt:4: error: stream 4294967295 is beyond the 1048576 streams the model supports"}));
}

TEST(TraceChecker, AccessBeyondTheAllocation) {
  EXPECT_EQ(problems("alloc A 4KiB managed\ncpu w A+4KiB len=1B\nfree A\n"),
            Lines{"t.umt:3: error: CPU access [4KiB, +1B) is outside 'A' (size 4KiB)"});
  EXPECT_EQ(problems("alloc A 4KiB managed\nkernel k gpu=0\n  r A+2KiB len=4KiB\nend\nfree A\n"),
            Lines{"t.umt:4: error: access [2KiB, +4KiB) is outside 'A' (size 4KiB)"});
}

TEST(TraceChecker, OffsetOverflowIsOutOfRange) {
  EXPECT_EQ(problems("alloc A 4KiB managed\ncpu r A+0xffffffffffffffff len=2B\nfree A\n"),
            Lines{"t.umt:3: error: CPU access [18446744073709551615B, +2B) is outside 'A' (size 4KiB)"});
}

TEST(TraceChecker, KernelWithoutEnd) {
  EXPECT_EQ(problems("alloc A 4KiB managed\nkernel k0 gpu=0\n  r A\n"),
            (Lines{"t.umt:3: error: kernel 'k0' has no 'end' (the trace ends inside it)",
                   "t.umt:2: warning: allocation 'A' is never freed"}));
}

TEST(TraceChecker, UnknownAllocationAndUseAfterFree) {
  EXPECT_EQ(problems("cpu r X\nalloc A 4KiB managed\nfree A\ncpu w A\nfree A\nfree Y\n"),
            (Lines{"t.umt:2: error: CPU access of unknown allocation 'X'",
                   "t.umt:5: error: CPU access of 'A' after it was freed (use after free; freed at t.umt:4)",
                   "t.umt:6: error: double free of 'A' (freed at t.umt:4)",
                   "t.umt:7: error: free of unknown allocation 'Y'"}));
}

TEST(TraceChecker, KernelStructure) {
  EXPECT_EQ(problems("alloc A 4KiB managed\nr A\nkernel k0 gpu=0\nkernel k1 gpu=0\nend\nend\nfree A\n"),
            (Lines{"t.umt:3: error: GPU access outside a kernel (put it between 'kernel' and 'end', or write 'cpu "
                   "r|w|a' for a CPU access)",
                   "t.umt:5: error: kernel 'k1' begins inside kernel 'k0' (begun at t.umt:4; missing 'end'?)",
                   "t.umt:7: error: 'end' without an open kernel"}));
}

TEST(TraceChecker, HostOperationsInsideAKernel) {
  EXPECT_EQ(problems("alloc A 4KiB managed\nkernel k gpu=0\ncpu r A\nsync all\nfree A\nend\n"),
            (Lines{"t.umt:4: error: CPU access inside kernel 'k' (begun at t.umt:3); CPU accesses go outside kernels",
                   "t.umt:5: error: 'sync' inside kernel 'k' (begun at t.umt:3); host-side operations go "
                   "outside 'kernel' ... 'end'",
                   "t.umt:6: error: 'free' inside kernel 'k' (begun at t.umt:3); host-side operations go "
                   "outside 'kernel' ... 'end'"}));
}

TEST(TraceChecker, AllocationRules) {
  EXPECT_EQ(problems("alloc A 0B managed\nalloc B 4KiB managed\nalloc B 8KiB managed\nalloc D 4KiB device\n"
                     "alloc P 4KiB pinned on=gpu0\nfree A\nfree B\nfree D\nfree P\n"),
            (Lines{"t.umt:2: error: allocation 'A' has size 0",
                   "t.umt:4: error: allocation 'B' is already live (allocated at t.umt:3); free it first",
                   "t.umt:5: error: device allocation 'D' needs on=gpuN (device memory lives on one GPU)",
                   "t.umt:6: error: pinned allocation 'P' lives in host memory, not on gpu0"}));
}

TEST(TraceChecker, MemoryKindRules) {
  EXPECT_EQ(problems("alloc D 4KiB device on=gpu0\ncpu r D\nprefetch D to=cpu\nadvise D readmostly\nfree D\n"),
            (Lines{"t.umt:3: error: CPU access to device memory 'D' (not accessible from the host)",
                   "t.umt:4: error: prefetch of device allocation 'D' (only managed and system memory take "
                   "prefetches and advice)",
                   "t.umt:5: error: advise of device allocation 'D' (only managed and system memory take "
                   "prefetches and advice)"}));
  // System (malloc) memory takes hints (HMM / XNACK) but never lives on a GPU.
  EXPECT_EQ(problems("alloc S 4KiB system\nprefetch S to=gpu0\nadvise S readmostly\nfree S\n"), Lines{});
  EXPECT_EQ(problems("alloc S 4KiB system on=gpu0\nfree S\n"),
            (Lines{"t.umt:2: error: system allocation 'S' lives in host memory, not on gpu0"}));
}

TEST(TraceChecker, EventsMustBeRecordedBeforeWaitedOn) {
  EXPECT_EQ(problems("wait e1 stream=2\nrecord e1 stream=1\nwait e1 stream=2\n"),
            Lines{"t.umt:2: error: wait on event 'e1', which was never recorded"});
}

TEST(TraceChecker, ZeroLengths) {
  EXPECT_EQ(problems("alloc A 4KiB managed\ncpu r A len=0B\nprefetch A+4KiB to=gpu0\nfree A\n"),
            (Lines{"t.umt:3: error: zero-length access", "t.umt:4: warning: zero-length prefetch"}));
}

TEST(TraceChecker, MalformedTextLinesAreReportedAndSkipped) {
  EXPECT_EQ(problems("alloc A 4KiB managed\nalloc B 4MB managed\ncpu r A len=8KiB\nfrobnicate\nfree A\n"),
            (Lines{"t.umt:3: error: bad allocation size: unknown unit 'MB' in '4MB' (expected B, KiB, MiB, GiB or TiB)",
                   "t.umt:4: error: CPU access [0B, +8KiB) is outside 'A' (size 4KiB)",
                   "t.umt:5: error: unknown keyword 'frobnicate' (expected alloc, free, kernel, end, r, w, a, rmw, cpu, "
                   "prefetch, advise, sync, record, wait, phase, copy, memset or peer)"}));
}

TEST(TraceChecker, BinaryPositionsAreByteOffsets) {
  auto text = open_trace_from_memory("umsim-trace 1\nalloc A 4KiB managed\ncpu r A+8KiB\n", "t.umt");
  std::string binary;
  {
    auto w = create_trace_writer_to_string(&binary, Encoding::kBinary);
    std::vector<Event> batch(16);
    const std::size_t n = text->read(batch);
    for (std::size_t i = 0; i < n; ++i) w->write(batch[i], text->names().name(batch[i].name));
    w->finish();
  }
  auto reader = open_trace_from_memory(binary, "t.umtb");
  std::vector<std::string> out;
  check_trace(*reader, [&](const TraceProblem& p) { out.push_back(to_string(p)); });
  // Name def "A" (3 bytes), alloc (tag, name, processor, 2-byte size), then the access at byte 8.
  EXPECT_EQ(out, (Lines{"t.umtb:byte 8: error: CPU access [8KiB, +4B) is outside 'A' (size 4KiB)",
                        "t.umtb:byte 3: warning: allocation 'A' is never freed"}));
}

}  // namespace
}  // namespace umsim::trace
