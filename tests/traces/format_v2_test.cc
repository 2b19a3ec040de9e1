// Trace format version 2: copies, memsets, peer enable and rmw accesses, by
// hand: decoding, canonical text, binary round trips, version errors, checks.
#include <gtest/gtest.h>

#include "tests/traces/trace_test_util.h"
#include "traces/memory_trace_reader.h"
#include "traces/trace_builder.h"
#include "traces/trace_checker.h"
#include "traces/trace_stats.h"

namespace umsim::trace {
namespace {

using testing::decode;
using testing::encode;
using testing::events_of;

constexpr Bytes MiB = 1 << 20;

constexpr const char* kTrace =
    "umsim-trace 2\n"
    "alloc A 64MiB managed\n"
    "alloc D 16MiB device on=gpu0\n"
    "alloc E 16MiB device on=gpu1\n"
    "peer enable gpu0 gpu1\n"
    "copy D+1MiB from_host=pinned len=4MiB gpu=0\n"
    "copy D  to_host=pageable len=2MiB gpu=0 stream=3 async\n"
    "copy E+4KiB from=D+8KiB len=1MiB gpu=1 async\n"
    "copy A from_host=pageable len=64MiB gpu=0 stream=1\n"
    "memset A+4MiB len=1MiB gpu=0 async stream=2\n"
    "memset D gpu=0\n"
    "kernel k gpu=0\n"
    "  rmw A len=8KiB\n"
    "end\n"
    "cpu rmw A len=4KiB count=2\n"
    "free A\nfree D\nfree E\n";

constexpr const char* kCanonical =
    "umsim-trace 2\n"
    "alloc A 64MiB managed\n"
    "alloc D 16MiB device on=gpu0\n"
    "alloc E 16MiB device on=gpu1\n"
    "peer enable gpu0 gpu1\n"
    "copy D+1MiB from_host=pinned len=4MiB gpu=0\n"
    "copy D to_host=pageable len=2MiB gpu=0 stream=3 async\n"
    "copy E+4KiB from=D+8KiB len=1MiB gpu=1 async\n"
    "copy A from_host=pageable len=64MiB gpu=0 stream=1\n"
    "memset A+4MiB len=1MiB gpu=0 stream=2 async\n"
    "memset D len=16MiB gpu=0\n"
    "kernel k gpu=0\n"
    "  rmw A len=8KiB\n"
    "end\n"
    "cpu rmw A len=4KiB count=2\n"
    "free A\nfree D\nfree E\n"
    "end-of-trace\n";

TEST(FormatV2, DecodesEveryStatement) {
  auto reader = open_trace_from_memory(kTrace, "v2.umt");
  EXPECT_EQ(reader->version(), 2);
  const auto ev = events_of(testing::read_items(*reader));
  ASSERT_EQ(ev.size(), 17u);
  // peer enable gpu0 gpu1
  EXPECT_EQ(ev[3].event.kind, EventKind::kPeerEnable);
  EXPECT_EQ(ev[3].event.processor, Processor::gpu(0));
  EXPECT_EQ(ev[3].event.peer_gpu(), Processor::gpu(1));
  // copy D+1MiB from_host=pinned len=4MiB gpu=0
  EXPECT_EQ(ev[4].event.kind, EventKind::kCopy);
  EXPECT_EQ(ev[4].name, "D");
  EXPECT_EQ(ev[4].event.copy_kind(), CopyKind::kFromPinnedHost);
  EXPECT_EQ(ev[4].event.offset, 1 * MiB);
  EXPECT_EQ(ev[4].event.length, 4 * MiB);
  EXPECT_EQ(ev[4].event.processor, Processor::gpu(0));
  EXPECT_FALSE(ev[4].event.is_async());
  EXPECT_EQ(ev[4].position, "v2.umt:6");
  // copy D to_host=pageable len=2MiB gpu=0 stream=3 async
  EXPECT_EQ(ev[5].event.copy_kind(), CopyKind::kToPageableHost);
  EXPECT_EQ(ev[5].event.stream, 3u);
  EXPECT_TRUE(ev[5].event.is_async());
  // copy E+4KiB from=D+8KiB len=1MiB gpu=1 async
  EXPECT_EQ(ev[6].event.copy_kind(), CopyKind::kBetweenAllocations);
  EXPECT_EQ(ev[6].name, "E");
  EXPECT_EQ(ev[6].source_name, "D");
  EXPECT_EQ(ev[6].event.offset, 4096u);
  EXPECT_EQ(ev[6].event.copy_source_offset(), 8192u);
  EXPECT_EQ(ev[6].event.processor, Processor::gpu(1));
  // memset A+4MiB len=1MiB gpu=0 async stream=2
  EXPECT_EQ(ev[8].event.kind, EventKind::kMemset);
  EXPECT_EQ(ev[8].event.offset, 4 * MiB);
  EXPECT_EQ(ev[8].event.stream, 2u);
  EXPECT_TRUE(ev[8].event.is_async());
  // memset D gpu=0: the whole allocation
  EXPECT_EQ(ev[9].event.length, 16 * MiB);
  // rmw inside the kernel, cpu rmw outside
  EXPECT_EQ(ev[11].event.kind, EventKind::kGpuAccess);
  EXPECT_EQ(ev[11].event.access(), AccessType::kReadModifyWrite);
  EXPECT_EQ(ev[13].event.kind, EventKind::kCpuAccess);
  EXPECT_EQ(ev[13].event.access(), AccessType::kReadModifyWrite);
  EXPECT_EQ(ev[13].event.count, 2u);
}

TEST(FormatV2, CanonicalTextIsAFixedPointAndSurvivesBinary) {
  const auto items = decode(kTrace);
  const std::string text = encode(items, Encoding::kText, 2);
  EXPECT_EQ(text, kCanonical);
  EXPECT_EQ(encode(decode(text), Encoding::kText, 2), text);
  const std::string binary = encode(items, Encoding::kBinary, 2);
  auto reader = open_trace_from_memory(binary, "v2.umtb");
  EXPECT_EQ(reader->version(), 2);
  EXPECT_EQ(encode(testing::read_items(*reader), Encoding::kText, 2), kCanonical);
}

TEST(FormatV2, VersionOneTracesStayVersionOne) {
  const std::string v1 = "umsim-trace 1\nalloc A 4KiB managed\ncpu w A len=4KiB\nfree A\nend-of-trace\n";
  auto reader = open_trace_from_memory(v1, "v1.umt");
  EXPECT_EQ(reader->version(), 1);
  const auto items = testing::read_items(*reader);
  EXPECT_EQ(encode(items, Encoding::kText), v1);
  const std::string binary = encode(items, Encoding::kBinary);
  EXPECT_EQ(binary[8], 1);  // the binary header's version
  EXPECT_EQ(open_trace_from_memory(binary)->version(), 1);
}

// An in-memory trace knows its version from the builder, or finds it when
// asked (a hand-made BuiltTrace); a replay never pays for the scan.
TEST(FormatV2, MemoryTracesReportTheVersionTheirEventsNeed) {
  const auto v1 = std::make_shared<const BuiltTrace>(TraceBuilder().alloc("A", 4096).build());
  EXPECT_EQ(v1->version, 1);
  EXPECT_EQ(MemoryTraceReader(v1).version(), 1);
  BuiltTrace v2 = TraceBuilder().alloc("A", 4096).memset("A").build();
  EXPECT_EQ(v2.version, 2);
  v2.version = 0;  // as a BuiltTrace made by hand
  EXPECT_EQ(MemoryTraceReader(std::move(v2)).version(), 2);
  EXPECT_EQ(MemoryTraceReader(BuiltTrace{}).version(), 1);
}

std::string error_of(const std::string& text) {
  try {
    auto reader = open_trace_from_memory(text, "bad.umt");
    testing::read_items(*reader);
  } catch (const TraceError& e) {
    return e.what();
  }
  return "";
}

TEST(FormatV2, VersionOneReadersNameTheVersion) {
  EXPECT_EQ(error_of("umsim-trace 1\nalloc D 4KiB device on=gpu0\ncopy D from_host=pinned len=4KiB gpu=0\n"),
            "bad.umt:3: 'copy' needs trace format version 2, but the header says 'umsim-trace 1' (write "
            "'umsim-trace 2' as the first line)");
  EXPECT_NE(error_of("umsim-trace 1\nmemset A len=4KiB gpu=0\n").find("bad.umt:2: 'memset' needs trace format version 2"),
            std::string::npos);
  EXPECT_NE(error_of("umsim-trace 1\npeer enable gpu0 gpu1\n").find("bad.umt:2: 'peer' needs trace format version 2"),
            std::string::npos);
  EXPECT_NE(error_of("umsim-trace 1\ncpu rmw A\n").find("bad.umt:2: a read-modify-write access 'rmw' needs trace "
                                                         "format version 2"),
            std::string::npos);
  EXPECT_NE(error_of("umsim-trace 3\n").find("unsupported text trace version 3 (this reader supports versions 1 and 2)"),
            std::string::npos);
}

TEST(FormatV2, MalformedStatementsSayWhatWasExpected) {
  const std::string h = "umsim-trace 2\n";
  EXPECT_NE(error_of(h + "copy A len=4KiB gpu=0\n").find("bad.umt:2: copy needs exactly one of from=, from_host= and "
                                                          "to_host="),
            std::string::npos);
  EXPECT_NE(error_of(h + "copy A from_host=pinned to_host=pinned len=4KiB gpu=0\n").find("exactly one of"),
            std::string::npos);
  EXPECT_NE(error_of(h + "copy A from_host=shared len=4KiB gpu=0\n")
                .find("bad from_host=shared (expected pinned or pageable)"),
            std::string::npos);
  EXPECT_NE(error_of(h + "copy A from_host=pinned gpu=0\n").find("copy needs len=SIZE"), std::string::npos);
  EXPECT_NE(error_of(h + "copy A from_host=pinned len=4KiB\n").find("copy needs gpu=N"), std::string::npos);
  EXPECT_NE(error_of(h + "copy A from_host=pinned len=4KiB gpu=0 async async\n").find("'async' given twice"),
            std::string::npos);
  EXPECT_NE(error_of(h + "copy A from_host=pinned len=4KiB gpu=0 to=gpu1\n").find("unexpected 'to=gpu1' in copy line"),
            std::string::npos);
  EXPECT_NE(error_of(h + "memset A len=4KiB\n").find("memset needs gpu=N"), std::string::npos);
  EXPECT_NE(error_of(h + "memset A gpu=0\n").find("memset without len= of 'A', which has not been allocated"),
            std::string::npos);
  EXPECT_NE(error_of(h + "peer enable gpu0 gpu0\n").find("bad.umt:2: peer enable needs two different GPUs"),
            std::string::npos);
  EXPECT_NE(error_of(h + "peer enable cpu gpu0\n").find("peer access joins two GPUs"), std::string::npos);
  EXPECT_NE(error_of(h + "peer gpu0 gpu1\n").find("expected 'peer enable gpuA gpuB'"), std::string::npos);
}

TEST(FormatV2, VersionOneWritersRefuseVersionTwoEvents) {
  const auto items = decode(kTrace);
  try {
    encode(items, Encoding::kBinary, 1);
    FAIL() << "no error";
  } catch (const TraceError& e) {
    EXPECT_NE(std::string(e.what()).find("cannot write a peer statement in a version 1 trace (it needs format "
                                         "version 2"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(encode(items, Encoding::kText, 1), TraceError);
}

TEST(FormatV2, BinaryVersionOneRejectsVersionTwoRecords) {
  // A version-1 header with a version-2 record: the layout check catches the
  // foreign layout first, so patch the header of a genuine version-2 file instead.
  const std::string binary = encode(decode(kTrace), Encoding::kBinary, 2);
  std::string patched = binary;
  patched[8] = 1;
  try {
    testing::read_items(*open_trace_from_memory(patched, "p.umtb"));
    FAIL() << "no error";
  } catch (const TraceError& e) {
    EXPECT_NE(std::string(e.what()).find("p.umtb: file byte 16: the record layout description differs"),
              std::string::npos)
        << e.what();
  }
}

std::vector<std::string> check(const std::string& body) {
  auto reader = open_trace_from_memory("umsim-trace 2\n" + body + "end-of-trace\n", "c.umt");
  std::vector<std::string> out;
  check_trace(*reader, [&](const TraceProblem& p) { out.push_back(to_string(p)); });
  return out;
}

TEST(FormatV2, CheckerReportsEveryBadCombination) {
  const std::string allocs = "alloc A 1MiB managed\nalloc P 1MiB pinned\nalloc Q 1MiB mapped\n";
  const std::string frees = "free A\nfree P\nfree Q\n";
  EXPECT_EQ(check(allocs + "copy A from_host=pinned len=1MiB gpu=0\ncopy A from=P len=1MiB gpu=0\n" + frees),
            std::vector<std::string>{});
  EXPECT_EQ(check(allocs + "copy P from_host=pinned len=4KiB gpu=0\n" + frees),
            (std::vector<std::string>{"c.umt:5: error: copy between a host buffer and pinned allocation 'P', which is "
                                      "host memory too (a host-to-host copy; copy to or from a managed or device "
                                      "allocation)"}));
  EXPECT_EQ(check(allocs + "copy P from=Q len=4KiB gpu=0\n" + frees),
            (std::vector<std::string>{"c.umt:5: error: copy between host allocations 'Q' and 'P' (no GPU takes part; "
                                      "one side must be managed or device memory)"}));
  EXPECT_EQ(check(allocs + "copy A+4KiB from=A len=8KiB gpu=0\n" + frees),
            (std::vector<std::string>{"c.umt:5: error: copy within 'A' with overlapping source [0B, +8KiB) and "
                                      "destination [4KiB, +8KiB) (hipMemcpy's result is undefined)"}));
  EXPECT_EQ(check(allocs + "copy A from=B len=4KiB gpu=0\n" + frees),
            (std::vector<std::string>{"c.umt:5: error: copy source of unknown allocation 'B'"}));
  EXPECT_EQ(check(allocs + "copy A to_host=pinned len=2MiB gpu=0\n" + frees),
            (std::vector<std::string>{"c.umt:5: error: copy source [0B, +2MiB) is outside 'A' (size 1MiB)"}));
  EXPECT_EQ(check(allocs + "copy A from_host=pinned len=0 gpu=0\n" + frees),
            (std::vector<std::string>{"c.umt:5: error: zero-length copy"}));
  EXPECT_EQ(check(allocs + "memset A+1MiB len=4KiB gpu=0\n" + frees),
            (std::vector<std::string>{"c.umt:5: error: memset [1MiB, +4KiB) is outside 'A' (size 1MiB)"}));
  EXPECT_EQ(check(allocs + "kernel k gpu=0\nmemset A len=4KiB gpu=0\nend\n" + frees),
            (std::vector<std::string>{"c.umt:6: error: 'memset' inside kernel 'k' (begun at c.umt:5); host-side "
                                      "operations go outside 'kernel' ... 'end'"}));
  EXPECT_EQ(check("peer enable gpu0 gpu1\npeer enable gpu1 gpu0\n"),
            (std::vector<std::string>{"c.umt:3: warning: peer access between gpu0 and gpu1 is already enabled (at "
                                      "c.umt:2; hipDeviceEnablePeerAccess fails the second time)"}));
  EXPECT_EQ(check("free A\ncopy A from_host=pinned len=4KiB gpu=0\n").size(), 2u);
}

TEST(FormatV2, StatsCountCopiesMemsetsAndRmw) {
  auto reader = open_trace_from_memory(kTrace, "v2.umt");
  const TraceStats s = collect_stats(*reader);
  EXPECT_EQ(s.version, 2);
  EXPECT_EQ(s.copies[static_cast<int>(CopyKind::kFromPinnedHost)].count, 1u);
  EXPECT_EQ(s.copies[static_cast<int>(CopyKind::kFromPageableHost)].bytes, 64 * MiB);
  EXPECT_EQ(s.copies[static_cast<int>(CopyKind::kBetweenAllocations)].bytes, 1 * MiB);
  EXPECT_EQ(s.memsets.count, 2u);
  EXPECT_EQ(s.memsets.bytes, 17 * MiB);
  EXPECT_EQ(s.peer_enables, 1u);
  EXPECT_EQ(s.gpu_accesses[3], 1u);
  EXPECT_EQ(s.cpu_accesses[3], 1u);
  EXPECT_EQ(s.gpus, 2);
  const std::string text = format_stats_text(s);
  EXPECT_NE(text.find("gpu accesses: 1 (r 0, w 0, a 0, rmw 1)"), std::string::npos) << text;
  EXPECT_NE(text.find("copies: host to device: pinned 1 (4MiB), pageable 1 (64MiB); device to host: pinned 0 (0B), "
                      "pageable 1 (2MiB); between allocations 1 (1MiB)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("memsets: 2 (17MiB); peer enables: 1"), std::string::npos) << text;
  EXPECT_EQ(stats_to_json(s)["copies"]["from_pinned_host"]["bytes"], 4 * MiB);
}

}  // namespace
}  // namespace umsim::trace
