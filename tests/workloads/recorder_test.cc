// The recorder's host side: parsing the raw log and turning calls, kernel
// activity and fault records into a trace. Synthetic logs with hand-computed
// expectations; plus the log recorded on an H200 (API records only).
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>

#include "hip_backend/recorder/record_log.h"
#include "hip_backend/recorder/record_to_trace.h"
#include "traces/trace_error.h"
#include "traces/trace_writer.h"

namespace umsim::recorder {
namespace {

std::string convert(const std::string& log_text, ConvertStats* stats = nullptr) {
  const RecordLog log = parse_record_log(log_text, "test.log");
  std::string text;
  auto writer = trace::create_trace_writer_to_string(&text, trace::Encoding::kText, trace_version_for(log));
  const ConvertStats s = convert_record_log(log, *writer);
  writer->finish();
  if (stats) *stats = s;
  // Drop the comment lines: the assertions are about events.
  std::string events;
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t nl = text.find('\n', at);
    const std::string line = text.substr(at, nl - at);
    if (line.empty() || line[0] != '#') events += line + "\n";
    at = nl == std::string::npos ? text.size() : nl + 1;
  }
  return events;
}

std::string error_of(const std::string& log_text) {
  try {
    parse_record_log(log_text, "bad.log");
  } catch (const trace::TraceError& e) {
    return e.what();
  }
  return "no error";
}

// Streams are renumbered densely in order of first use (9 -> 0, 7 -> 1).
// Two managed buffers at 0x10000000 (64 KiB) and 0x20000000 (16 KiB).
// Kernel 7 (launch at t=100, runs 200..300 on stream 9) faults on pages 0, 1
// (reads), 1 (write) of A and page 2 (atomic) of B; a prefetch-caused fault
// record is ignored. The CPU then faults on A's page 3 and B's page 0 at
// t=400..410; kernel 8 (no launch record, starts at 500 on the default
// stream 7) faults on A page 4 at 520 and once after its end (600: still its).
const char* kLog = R"(umsim-record 1
alloc 10 managed 0x10000000 65536 0
alloc 11 managed 0x20000000 16384 0
advise 20 0x20000000 16384 1 0
advise 21 0x10000000 65536 5 -1
prefetch 30 0x10002000 8192 0 9
launch 100 7
sync 350 device 0
sync 450 stream 9
free 700 0x20000000
free 701 0x10000000
kernel 7 200 300 0 9 _Z4stepPfS_i
kernel 8 500 560 0 7 finish
um 4 210 250 0x10000000 1 1 0 0
um 4 211 250 0x10001000 1 1 0 0
um 4 212 250 0x10001000 1 2 0 0
um 4 213 250 0x20002000 1 3 0 0
um 4 214 250 0x10005000 1 4 0 0
um 3 400 0 0x10003000 1 0 0 0
um 3 410 0 0x20000000 1 0 0 0
um 4 520 540 0x10004000 1 1 0 0
um 4 600 610 0x10006000 1 2 0 0
um 4 50 60 0x10007000 1 1 0 0
um 4 230 240 0x30000000 1 1 0 0
end 800
)";

TEST(RecordToTrace, HandComputedLog) {
  ConvertStats s;
  const std::string events = convert(kLog, &s);
  EXPECT_EQ(events,
            "umsim-trace 1\n"
            "alloc managed0 64KiB managed\n"
            "alloc managed1 16KiB managed\n"
            "advise managed1 len=16KiB readmostly\n"
            "advise managed0 len=64KiB accessed_by=cpu\n"
            "prefetch managed0+8KiB len=8KiB to=gpu0\n"
            "kernel _Z4stepPfS_i gpu=0\n"
            "  r managed0 len=8KiB\n"
            "  w managed0+4KiB len=4KiB\n"
            "  a managed1+8KiB len=4KiB\n"
            "end\n"
            "sync gpu=0\n"
            "cpu r managed0+12KiB len=4KiB\n"
            "cpu r managed1 len=4KiB\n"
            "sync stream=0\n"
            "kernel finish gpu=0 stream=1\n"
            "  r managed0+16KiB len=4KiB\n"
            "  w managed0+24KiB len=4KiB\n"
            "end\n"
            "free managed1\n"
            "free managed0\n"
            "end-of-trace\n")
      << events;
  EXPECT_EQ(s.allocations, 2u);
  EXPECT_EQ(s.kernels, 2u);
  EXPECT_EQ(s.gpu_faults, 6u);    // 4 in kernel 7, 2 in kernel 8 (the prefetch record is not an access)
  EXPECT_EQ(s.cpu_faults, 2u);
  EXPECT_EQ(s.unattributed, 1u);  // t=50: before any kernel
  EXPECT_EQ(s.outside, 1u);       // 0x30000000: no allocation
}

TEST(RecordToTrace, AddressReuseAfterFreeAndDevicePlacement) {
  const std::string events = convert(R"(umsim-record 1
alloc 1 managed 0x1000000 8192 0
free 2 0x1000000
alloc 3 device 0x1000000 4096 1
launch 4 1
free 9 0x1000000
free 10 0x0
kernel 1 5 8 1 3 k
um 4 6 7 0x1000000 1 2 1 0
end 11
)");
  EXPECT_EQ(events,
            "umsim-trace 1\n"
            "alloc managed0 8KiB managed\n"
            "free managed0\n"
            "alloc device0 4KiB device on=gpu1\n"
            "kernel k gpu=1\n"
            "  w device0 len=4KiB\n"
            "end\n"
            "free device0\n"
            "end-of-trace\n")
      << events;
}

TEST(RecordToTrace, MeasuredComputeOption) {
  const RecordLog log = parse_record_log("umsim-record 1\nlaunch 1 5\nkernel 5 100 2600 0 0 k\nend 3000\n", "m.log");
  std::string zero, measured;
  auto w1 = trace::create_trace_writer_to_string(&zero, trace::Encoding::kText);
  convert_record_log(log, *w1);
  w1->finish();
  auto w2 = trace::create_trace_writer_to_string(&measured, trace::Encoding::kText);
  ConvertOptions o;
  o.measured_compute = true;
  convert_record_log(log, *w2, o);
  w2->finish();
  EXPECT_NE(zero.find("kernel k gpu=0\nend\n"), std::string::npos) << zero;
  EXPECT_NE(measured.find("kernel k gpu=0 compute=2500ns\nend\n"), std::string::npos) << measured;
}

// Copies: a pointer inside a recorded allocation is that allocation, any other
// host pointer a pageable host buffer; memsets; peer access once per pair.
TEST(RecordToTrace, CopiesMemsetsAndPeerAccess) {
  ConvertStats s;
  const std::string events = convert(
      "umsim-record 1\n"
      "alloc 10 device 0x1000000 8388608 0\n"
      "alloc 11 pinned 0x9000000 4194304 0\n"
      "copy 20 0x1100000 0x7f0000000000 1048576 0 0 0\n"   // pageable -> device, synchronous
      "copy 21 0x7f0000000000 0x1000000 4096 0 7 1\n"      // device -> pageable, async on stream 7
      "copy 22 0x1000000 0x9001000 8192 0 7 1\n"           // pinned allocation -> device
      "copy 23 0x7f0000000000 0x7f1000000000 4096 0 0 0\n" // host to host: not expressible
      "memset 24 0x1000000 65536 0 0 1\n"
      "peer 25 0 1\n"
      "peer 26 1 0\n"
      "free 30 0x1000000\nfree 31 0x9000000\nend 40\n",
      &s);
  EXPECT_EQ(events,
            "umsim-trace 2\n"
            "alloc device0 8MiB device on=gpu0\n"
            "alloc pinned0 4MiB pinned\n"
            "copy device0+1MiB from_host=pageable len=1MiB gpu=0\n"
            "copy device0 to_host=pageable len=4KiB gpu=0 stream=1 async\n"
            "copy device0 from=pinned0+4KiB len=8KiB gpu=0 stream=1 async\n"
            "memset device0 len=64KiB gpu=0 async\n"
            "peer enable gpu0 gpu1\n"
            "free device0\nfree pinned0\nend-of-trace\n");
  EXPECT_EQ(s.copies, 3u);
  EXPECT_EQ(s.memsets, 1u);
  EXPECT_EQ(s.peer_enables, 1u);
  EXPECT_EQ(s.outside, 1u);
  EXPECT_EQ(error_of("umsim-record 1\ncopy 1 0x10 0x20 16 0 0 2\n"), "bad.log:2: async flag 2 (expected 0 or 1)");
  EXPECT_EQ(error_of("umsim-record 1\npeer 1 0 0\n"), "bad.log:2: peer access needs two different GPUs, got 0 and 0");
}

TEST(RecordLog, BadLinesNameTheLine) {
  EXPECT_EQ(error_of("alloc 1 managed 0x10 16 0\n"),
            "bad.log:1: not a recorder log (expected the header 'umsim-record 1')");
  EXPECT_EQ(error_of("umsim-record 1\nalloc 1 shared 0x10 16 0\n"),
            "bad.log:2: unknown allocation kind 'shared' (expected managed, device, pinned or mapped)");
  EXPECT_EQ(error_of("umsim-record 1\nfree 1\n"), "bad.log:2: missing pointer");
  EXPECT_EQ(error_of("umsim-record 1\nprefetch 1 0x10 zz 0 0\n"), "bad.log:2: bad size 'zz'");
  EXPECT_EQ(error_of("umsim-record 1\nadvise 1 0x10 16 9 0\n"), "bad.log:2: advice 9 is not a cudaMemoryAdvise (1..6)");
  EXPECT_EQ(error_of("umsim-record 1\nsync 1 event 3\n"), "bad.log:2: unknown sync scope 'event' (expected device or stream)");
  EXPECT_EQ(error_of("umsim-record 1\nkernel 1 10 5 0 0 k\n"), "bad.log:2: kernel ends before it starts");
  EXPECT_EQ(error_of("umsim-record 1\nkernel 1 10 20 0 0\n"), "bad.log:2: missing kernel name");
  EXPECT_EQ(error_of("umsim-record 1\num 4 1 2 0x10 1 1 0\n"), "bad.log:2: missing destination id");
  EXPECT_EQ(error_of("umsim-record 1\nend 5\nfree 6 0x10\n"), "bad.log:3: record after 'end'");
  EXPECT_EQ(error_of("umsim-record 1\nmemcpy 1 0x10 16\n"),
            "bad.log:2: unknown record 'memcpy' (expected alloc, free, prefetch, advise, launch, sync, copy, memset, peer, "
            "kernel, um or end)");
  EXPECT_EQ(error_of(""), "bad.log: empty recorder log (the program made no CUDA calls, or the recorder was not loaded)");
}

// The log recorded from tests/workloads/recorder/um_probe.cu on an H200
// (its unified-memory counters were not enabled in that run: API records only).
TEST(RecordToTrace, H200ProbeLog) {
  const RecordLog log = read_record_log("tests/workloads/recorder/um_probe_h200.log");
  EXPECT_TRUE(log.complete);
  EXPECT_EQ(log.allocs.size(), 3u);
  EXPECT_EQ(log.kernels.size(), 2u);
  std::string text;
  auto writer = trace::create_trace_writer_to_string(&text, trace::Encoding::kText);
  const ConvertStats s = convert_record_log(log, *writer);
  writer->finish();
  EXPECT_EQ(s.kernels, 2u);
  EXPECT_NE(text.find("advise managed1 len=4MiB readmostly\nprefetch managed0 len=4MiB to=gpu0 stream=1\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("kernel _Z4copyPKiPim gpu=0 stream=1\nend\nsync stream=1\n"), std::string::npos) << text;
}

// The same probe recorded on an H200 with the unified-memory counters on
// (/dev/nvidia-uvm-tools present): 23 GPU and 11 CPU fault records, all inside
// kernels and allocations, turned into the checked-in trace byte for byte.
TEST(RecordToTrace, H200ProbeLogWithFaults) {
  const RecordLog log = read_record_log("tests/workloads/recorder/um_probe_h200_faults.log");
  EXPECT_TRUE(log.complete);
  std::string text;
  auto writer = trace::create_trace_writer_to_string(&text, trace::Encoding::kText);
  const ConvertStats s = convert_record_log(log, *writer);
  writer->finish();
  EXPECT_EQ(s.gpu_faults, 23u);
  EXPECT_EQ(s.cpu_faults, 11u);
  EXPECT_EQ(s.unattributed, 0u);
  EXPECT_EQ(s.outside, 0u);
  std::ifstream golden("tests/workloads/recorder/um_probe_h200_faults.umt", std::ios::binary);
  const std::string expected((std::istreambuf_iterator<char>(golden)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text, expected);
}

}  // namespace
}  // namespace umsim::recorder
