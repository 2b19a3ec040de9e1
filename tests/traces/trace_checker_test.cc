// Semantic checks: each rule on a tiny hand-written trace, with the exact
// report; all problems of a trace are reported, not just the first.
#include <gtest/gtest.h>

#include <algorithm>

#include "traces/trace_checker.h"
#include "traces/trace_reader.h"
#include "traces/trace_writer.h"

namespace umsim::trace {
namespace {

// Everything `trace check` reports for a whole text trace.
std::vector<std::string> problems_of_text(const std::string& text, const std::string& source = "t.umt") {
  auto reader = open_trace_from_memory(text, source);
  std::vector<std::string> out;
  check_trace(*reader, [&](const TraceProblem& p) { out.push_back(to_string(p)); });
  return out;
}

// The statements of a complete trace: the header before them (line 1, so the
// body's first line is line 2) and the end record after them, as writers emit.
std::vector<std::string> problems(const std::string& body) {
  return problems_of_text("umsim-trace 1\n" + body + "end-of-trace\n");
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
            Lines{"t.umt:3: error: CPU access [18446744073709551615B (0xffffffffffffffff), +2B) is outside 'A' (size "
                  "4KiB)"});
  // Whole KiB, but 17 digits of them: exact bytes and hex, not 18014398509481980KiB.
  EXPECT_EQ(problems("alloc A 4KiB managed\nprefetch A+0xfffffffffffff000 len=8KiB to=gpu0\nfree A\n"),
            Lines{"t.umt:3: error: prefetch [18446744073709547520B (0xfffffffffffff000), +8KiB) is outside 'A' (size "
                  "4KiB)"});
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
            (Lines{"t.umt:3: error: zero-length CPU access of 'A' (len= must be at least 1 byte)", "t.umt:4: warning: zero-length prefetch"}));
}

TEST(TraceChecker, MalformedTextLinesAreReportedAndSkipped) {
  EXPECT_EQ(problems("alloc A 4KiB managed\nalloc B 4MB managed\ncpu r A len=8KiB\nfrobnicate\nfree A\n"),
            (Lines{"t.umt:3: error: bad allocation size: unknown unit 'MB' in '4MB' (expected B, KiB, MiB, GiB or TiB)",
                   "t.umt:4: error: CPU access [0B, +8KiB) is outside 'A' (size 4KiB)",
                   "t.umt:5: error: unknown keyword 'frobnicate' (expected alloc, free, kernel, end, r, w, a, rmw, cpu, "
                   "prefetch, advise, sync, record, wait, phase, copy, memset, peer or end-of-trace)"}));
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
  // The text had no 'end-of-trace'; the binary encoding's own end record is required by its reader, so a
  // binary trace never draws the text warning.
}

TEST(TraceChecker, EndOfTraceRecord) {
  const std::string complete = "umsim-trace 1\nalloc A 4KiB managed\nfree A\nend-of-trace\n";
  EXPECT_EQ(problems_of_text(complete), Lines{});
  // Comments and blank lines may follow it.
  EXPECT_EQ(problems_of_text(complete + "# written by hand\n\n   \n"), Lines{});
  // Without it the check passes with a warning at the last line: the trace may have been cut there.
  EXPECT_EQ(problems_of_text("umsim-trace 1\nalloc A 4KiB managed\nfree A\n"),
            Lines{"t.umt:3: warning: the trace ends without an 'end-of-trace' line: it may be truncated (umsim's "
                  "writers end every text trace with one)"});
  // Anything else after it is an error, reported and skipped like any malformed line.
  EXPECT_EQ(problems_of_text(
                "umsim-trace 1\nalloc A 4KiB managed\nend-of-trace\nfree A\n# fine\nend-of-trace\n"),
            (Lines{"t.umt:4: error: statement after 'end-of-trace' (line 3): only comments and blank lines may "
                   "follow the end of the trace",
                   "t.umt:6: error: statement after 'end-of-trace' (line 3): only comments and blank lines may "
                   "follow the end of the trace",
                   "t.umt:2: warning: allocation 'A' is never freed"}));
  EXPECT_EQ(problems_of_text("umsim-trace 1\nend-of-trace now\n"),
            (Lines{"t.umt:2: error: unexpected 'now' ('end-of-trace' ends the trace and takes no fields)",
                   "t.umt:2: warning: the trace ends without an 'end-of-trace' line: it may be truncated (umsim's "
                   "writers end every text trace with one)"}));
  // Inside a kernel it ends the trace there: the kernel has no 'end'.
  EXPECT_EQ(problems_of_text("umsim-trace 1\nkernel k gpu=0\nend-of-trace\n"),
            Lines{"t.umt:2: error: kernel 'k' has no 'end' (the trace ends inside it)"});
}

TEST(TraceChecker, TruncatedWriterOutputIsReported) {
  // What the text writer produces ends with the record; cut at any line boundary before it, the check warns
  // where the text stops.
  std::string text;
  {
    auto w = create_trace_writer_to_string(&text, Encoding::kText);
    auto reader = open_trace("traces/examples/training_step.umt");
    std::vector<Event> batch(4096);
    for (std::size_t n; (n = reader->read(batch)) > 0;)
      for (std::size_t i = 0; i < n; ++i) w->write(batch[i], reader->names().name(batch[i].name));
    w->finish();
  }
  ASSERT_TRUE(text.ends_with("\nend-of-trace\n"));
  EXPECT_EQ(problems_of_text(text), Lines{});
  std::size_t lines = 0;
  for (std::size_t cut = text.find('\n'); cut != std::string::npos && cut + 1 < text.size();
       cut = text.find('\n', cut + 1)) {
    ++lines;
    const Lines found = problems_of_text(text.substr(0, cut + 1));
    const std::string missing = "t.umt:" + std::to_string(lines) + ": warning: the trace ends without an "
                                "'end-of-trace' line: it may be truncated (umsim's writers end every text trace "
                                "with one)";
    EXPECT_NE(std::find(found.begin(), found.end(), missing), found.end()) << "cut after line " << lines;
  }
  EXPECT_GT(lines, 10u);
  std::string empty;
  create_trace_writer_to_string(&empty, Encoding::kText)->finish();
  EXPECT_EQ(empty, "umsim-trace 1\nend-of-trace\n");
}

}  // namespace
}  // namespace umsim::trace
