// Trace -> execution plan translation: hand-built events, hand-computed plans.
#include "hip_backend/plan.h"

#include <gtest/gtest.h>

#include "traces/event_factory.h"
#include "traces/trace_error.h"

namespace umsim::hip {
namespace {

using trace::Event;
using trace::EventKind;

constexpr Bytes MiB = 1 << 20;

class PlanTest : public ::testing::Test {
 protected:
  Event ev(EventKind k, const char* name = nullptr) {
    Event e;
    e.kind = k;
    if (name) e.name = names.intern(name);
    return e;
  }
  Event alloc(const char* n, Bytes size, AllocKind kind = AllocKind::kManaged) {
    Event e = ev(EventKind::kAlloc, n);
    e.op = static_cast<std::uint8_t>(kind);
    e.length = size;
    return e;
  }
  Event access(bool gpu, const char* n, AccessType t, Bytes off, Bytes len, Bytes stride = 0, std::uint32_t count = 1) {
    Event e = ev(gpu ? EventKind::kGpuAccess : EventKind::kCpuAccess, n);
    e.op = static_cast<std::uint8_t>(t);
    e.offset = off;
    e.length = len;
    e.stride = stride;
    e.count = count;
    return e;
  }
  Event kernel(const char* n, Nanos compute = 0, std::uint32_t stream = 0) {
    Event e = ev(EventKind::kKernelBegin, n);
    e.processor = Processor::gpu(0);
    e.duration = compute;
    e.stream = stream;
    return e;
  }
  void add(const Event& e) { builder.add(e, names, "t.umt:" + std::to_string(++line)); }
  std::string error_of(const Event& e) {
    try {
      add(e);
    } catch (const trace::TraceError& err) {
      return err.what();
    }
    return "";
  }

  trace::NameTable names;
  PlanBuilder builder{"t.umt"};
  int line = 0;
};

TEST_F(PlanTest, PacksEntriesAndRoundTrips) {
  const std::uint64_t e = AccessEntry::pack(AccessType::kAtomic, 4095, 123456789);
  EXPECT_EQ(AccessEntry::type(e), AccessType::kAtomic);
  EXPECT_EQ(AccessEntry::slot(e), 4095u);
  EXPECT_EQ(AccessEntry::page(e), 123456789u);
}

TEST_F(PlanTest, ExpandsRangesStridesAndPassesIntoPageEntries) {
  add(alloc("A", 1 * MiB));
  add(alloc("B", 1 * MiB));
  add(kernel("k", 200000, 3));
  add(access(true, "A", AccessType::kRead, 0, 16384));                     // pages 0..3
  add(access(true, "B", AccessType::kWrite, 4096, 64 * 4096, 16 * 4096));  // pages 1, 17, 33, 49
  add(access(true, "A", AccessType::kAtomic, 8192, 1, 0, 2));              // page 2 twice
  add(ev(EventKind::kKernelEnd));
  const Plan p = builder.finish();
  ASSERT_EQ(p.kernels.size(), 1u);
  EXPECT_EQ(p.kernels[0].compute_ns, 200000u);
  EXPECT_EQ(p.kernels[0].stream, 3u);
  EXPECT_EQ(p.kernels[0].entry_count, 10u);
  ASSERT_EQ(p.entries.size(), 10u);
  std::vector<std::uint64_t> pages;
  for (auto e : p.entries) pages.push_back(AccessEntry::page(e));
  EXPECT_EQ(pages, (std::vector<std::uint64_t>{0, 1, 2, 3, 1, 17, 33, 49, 2, 2}));
  EXPECT_EQ(AccessEntry::slot(p.entries[4]), 1u);
  EXPECT_EQ(AccessEntry::type(p.entries[4]), AccessType::kWrite);
  EXPECT_EQ(AccessEntry::type(p.entries[9]), AccessType::kAtomic);
  EXPECT_EQ(p.streams, (std::vector<std::uint32_t>{3}));
  EXPECT_EQ(p.peak_managed_bytes, 2 * MiB);
}

// Each entry carries the bytes it touches in its page (traces/page_touch.h):
// a whole page, one word every 128 B, 10 bytes at offset 100, one word per page.
TEST_F(PlanTest, EntriesCarryTheBytesTheyTouch) {
  add(alloc("A", 1 * MiB));
  add(kernel("k"));
  add(access(true, "A", AccessType::kRead, 0, 4096));
  add(access(true, "A", AccessType::kRead, 4096, 4096, 128));
  add(access(true, "A", AccessType::kWrite, 8192 + 100, 10));
  add(access(true, "A", AccessType::kRead, 16384, 2 * 4096, 4096));
  add(ev(EventKind::kKernelEnd));
  const Plan p = builder.finish();
  ASSERT_EQ(p.shapes.size(), p.entries.size());
  ASSERT_EQ(p.shapes.size(), 5u);
  EXPECT_EQ(p.shapes[0], TouchShape::kWholePage);
  const trace::PageTouch strided = TouchShape::unpack(p.shapes[1]);
  EXPECT_EQ(strided.first, 0u);
  EXPECT_EQ(strided.count, 32u);
  EXPECT_EQ(strided.step, 128u);
  const trace::PageTouch bytes = TouchShape::unpack(p.shapes[2]);
  EXPECT_EQ(bytes.first, 100u);
  EXPECT_EQ(bytes.count, 10u);
  EXPECT_EQ(bytes.step, 0u);
  for (int i : {3, 4}) {
    const trace::PageTouch word = TouchShape::unpack(p.shapes[static_cast<std::size_t>(i)]);
    EXPECT_EQ(word.count, 1u);
    EXPECT_EQ(word.bytes(), 4u);
  }
}

TEST_F(PlanTest, TracksPeakFootprintsByKindAcrossFrees) {
  add(alloc("A", 3 * MiB));
  add(alloc("D", 5 * MiB, AllocKind::kDevice));
  add(ev(EventKind::kFree, "A"));
  add(alloc("B", 2 * MiB));
  add(alloc("H", 7 * MiB, AllocKind::kPinned));
  add(alloc("M", 1 * MiB, AllocKind::kMapped));
  const Plan p = builder.finish();
  EXPECT_EQ(p.peak_managed_bytes, 3 * MiB);
  EXPECT_EQ(p.peak_device_bytes, 5 * MiB);
  EXPECT_EQ(p.peak_host_bytes, 8 * MiB);
  EXPECT_EQ(p.allocations.size(), 5u);
}

TEST_F(PlanTest, CountsCpuPageTouchesAndPhases) {
  add(alloc("A", 1 * MiB));
  add(access(false, "A", AccessType::kWrite, 0, 1 * MiB, 0, 3));  // 256 pages x 3
  add(ev(EventKind::kPhase, "gpu"));
  const Plan p = builder.finish();
  EXPECT_EQ(p.cpu_page_touches, 768u);
  EXPECT_EQ(p.phases, (std::vector<std::string>{"main", "gpu"}));
}

TEST_F(PlanTest, SkipsHintsOnNonManagedMemoryWithAWarning) {
  add(alloc("H", 1 * MiB, AllocKind::kPinned));
  Event pf = ev(EventKind::kPrefetch, "H");
  pf.length = 1 * MiB;
  pf.processor = Processor::gpu(0);
  add(pf);
  const Plan p = builder.finish();
  ASSERT_EQ(p.warnings.size(), 1u);
  EXPECT_NE(p.warnings[0].find("t.umt:2: prefetch on pinned allocation 'H' skipped"), std::string::npos);
  for (const auto& s : p.steps) EXPECT_NE(s.kind, StepKind::kPrefetch);
}

TEST_F(PlanTest, RejectsUnknownAllocationWithPosition) {
  add(kernel("k"));
  EXPECT_EQ(error_of(access(true, "nope", AccessType::kRead, 0, 4096)),
            "t.umt:2: unknown allocation 'nope' (no alloc before this line)");
}

TEST_F(PlanTest, RejectsUseAfterFree) {
  add(alloc("A", 1 * MiB));
  add(ev(EventKind::kFree, "A"));
  EXPECT_EQ(error_of(access(false, "A", AccessType::kRead, 0, 4096)), "t.umt:3: allocation 'A' is used after it was freed");
}

TEST_F(PlanTest, RejectsOutOfRangeAccess) {
  add(alloc("A", 1 * MiB));
  EXPECT_EQ(error_of(access(false, "A", AccessType::kRead, 1 * MiB - 4096, 8192)),
            "t.umt:2: range [1044480, +8192) lies outside allocation 'A' of 1048576 bytes");
}

TEST_F(PlanTest, RejectsKernelWithoutEnd) {
  add(alloc("A", 1 * MiB));
  add(kernel("k"));
  try {
    builder.finish();
    FAIL() << "expected an error";
  } catch (const trace::TraceError& e) {
    EXPECT_STREQ(e.what(), "t.umt:2: kernel 'k' has no 'end'");
  }
}

TEST_F(PlanTest, RejectsCpuAccessToDeviceMemoryAndNestedEvents) {
  add(alloc("D", 1 * MiB, AllocKind::kDevice));
  EXPECT_NE(error_of(access(false, "D", AccessType::kRead, 0, 4096)).find("the CPU cannot access device allocation 'D'"),
            std::string::npos);
  add(kernel("k"));
  EXPECT_NE(error_of(alloc("X", 4096)).find("only GPU accesses may appear inside a kernel"), std::string::npos);
  EXPECT_EQ(error_of(ev(EventKind::kKernelEnd)), "");
  EXPECT_EQ(error_of(ev(EventKind::kKernelEnd)), "t.umt:6: 'end' without an open kernel");
}

TEST_F(PlanTest, RejectsDoubleAllocAndWaitOnUnrecordedEvent) {
  add(alloc("A", 4096));
  EXPECT_EQ(error_of(alloc("A", 4096)), "t.umt:2: allocation 'A' is allocated twice without a free");
  EXPECT_EQ(error_of(ev(EventKind::kEventWait, "e0")), "t.umt:3: wait on event 'e0' that was never recorded");
}

TEST_F(PlanTest, EnforcesTheAccessListLimit) {
  PlanBuilder small("t.umt", PlanLimits{8});
  small.add(alloc("A", 1 * MiB), names, "t.umt:1");
  small.add(kernel("k"), names, "t.umt:2");
  EXPECT_THROW(small.add(access(true, "A", AccessType::kRead, 0, 9 * 4096), names, "t.umt:3"), trace::TraceError);
}

// Format version 2: copies, memsets, peer enable and rmw accesses become steps;
// host copies size the staging buffers.
TEST_F(PlanTest, CopiesMemsetsAndPeerEnable) {
  PlanBuilder b("t.umt");
  b.add(alloc("A", 8 * MiB), names, "t.umt:1");
  b.add(alloc("P", 1 * MiB, AllocKind::kPinned), names, "t.umt:2");
  Event up = trace::events::copy_host(trace::CopyKind::kFromPinnedHost, MiB, 2 * MiB, 0, 3, true);
  up.name = names.intern("A");
  b.add(up, names, "t.umt:3");
  Event down = trace::events::copy_host(trace::CopyKind::kToPageableHost, 0, 4 * MiB, 1, 0, false);
  down.name = names.intern("A");
  b.add(down, names, "t.umt:4");
  Event between = trace::events::copy_between(0, names.intern("P"), 4096, 8192, 0, 0, false);
  between.name = names.intern("A");
  b.add(between, names, "t.umt:5");
  Event set = trace::events::memset(0, 8 * MiB, 0, 2, true);
  set.name = names.intern("A");
  b.add(set, names, "t.umt:6");
  b.add(trace::events::peer_enable(0, 1), names, "t.umt:7");
  b.add(kernel("k"), names, "t.umt:8");
  b.add(access(true, "A", AccessType::kReadModifyWrite, 0, 4096), names, "t.umt:9");
  b.add(ev(EventKind::kKernelEnd), names, "t.umt:10");
  const Plan p = b.finish();
  ASSERT_EQ(p.steps.size(), 8u);
  EXPECT_EQ(p.steps[2].kind, StepKind::kCopy);
  EXPECT_EQ(p.steps[2].slot, 0u);
  EXPECT_EQ(p.steps[2].offset, MiB);
  EXPECT_EQ(p.steps[2].length, 2 * MiB);
  EXPECT_EQ(p.steps[2].stream, 3u);
  EXPECT_EQ(p.steps[2].op, static_cast<std::uint8_t>(trace::CopyKind::kFromPinnedHost) | trace::kAsyncBit);
  EXPECT_EQ(p.steps[4].count, 1u);  // source slot P
  EXPECT_EQ(p.steps[4].stride, 4096u);
  EXPECT_EQ(p.steps[5].kind, StepKind::kMemset);
  EXPECT_EQ(p.steps[6].kind, StepKind::kPeerEnable);
  EXPECT_EQ(p.steps[6].count, 1u);
  EXPECT_EQ(p.pinned_staging_bytes, 2 * MiB);
  EXPECT_EQ(p.pageable_staging_bytes, 4 * MiB);
  EXPECT_EQ(p.gpus_used, 2);
  ASSERT_EQ(p.entries.size(), 1u);
  EXPECT_EQ(AccessEntry::type(p.entries[0]), AccessType::kReadModifyWrite);
}

TEST_F(PlanTest, CopiesOutsideTheirAllocationOrBetweenHostMemoriesFail) {
  PlanBuilder b("t.umt");
  b.add(alloc("A", 1 * MiB), names, "t.umt:1");
  b.add(alloc("P", 1 * MiB, AllocKind::kPinned), names, "t.umt:2");
  Event big = trace::events::copy_host(trace::CopyKind::kFromPinnedHost, 0, 2 * MiB, 0, 0, false);
  big.name = names.intern("A");
  EXPECT_THROW(b.add(big, names, "t.umt:3"), trace::TraceError);
  Event host = trace::events::copy_host(trace::CopyKind::kFromPinnedHost, 0, 4096, 0, 0, false);
  host.name = names.intern("P");
  try {
    b.add(host, names, "t.umt:4");
    FAIL() << "no error";
  } catch (const trace::TraceError& e) {
    EXPECT_EQ(std::string(e.what()), "t.umt:4: copy between a host buffer and host allocation 'P'");
  }
}

TEST_F(PlanTest, OverflowingSizesAreErrorsNotWraps) {
  // A size that does not round up to whole pages in 64 bits.
  EXPECT_EQ(error_of(alloc("A", ~0ull)),
            "t.umt:1: allocation 'A' is too large: its size does not round up to whole 4KiB pages in 64 bits");
  // More pages than an access entry can index (2^50).
  EXPECT_EQ(error_of(alloc("B", (1ull << 62) + 4096)),
            "t.umt:2: allocation 'B' has more pages than the backend's access list can index (1125899906842624)");
  // Live managed memory past 2^64 bytes.
  add(alloc("C", 1ull << 62));
  add(alloc("D", 1ull << 62));
  add(alloc("E", 1ull << 62));
  EXPECT_EQ(error_of(alloc("F", 1ull << 62)), "t.umt:6: allocation 'F' takes the live managed memory past 2^64 bytes");
  // An access whose end wraps past 2^64 is outside, not inside.
  EXPECT_EQ(error_of(access(false, "C", AccessType::kRead, ~0ull, 2)),
            "t.umt:7: range [18446744073709551615, +2) lies outside allocation 'C' of 4611686018427387904 bytes");
}

TEST_F(PlanTest, TheAccessListLimitSeesHugeCountsWithoutWrapping) {
  add(alloc("A", 1ull << 30));
  add(kernel("k"));
  // 2^18 pages x (2^32 - 1) passes: past 2^49 entries, refused before any is made.
  EXPECT_NE(error_of(access(true, "A", AccessType::kRead, 0, 1ull << 30, 0, 0xffffffffu))
                .find("the kernels touch more than 268435456 pages in total"),
            std::string::npos);
  add(ev(EventKind::kKernelEnd));
  add(access(false, "A", AccessType::kRead, 0, 1ull << 30, 0, 0xffffffffu));
  EXPECT_EQ(builder.finish().cpu_page_touches, (1ull << 18) * 0xffffffffull);
}

}  // namespace
}  // namespace umsim::hip
