// Overflow-checked arithmetic and the replay work estimate: hand-computed
// values at the 64-bit edges.
#include <gtest/gtest.h>

#include <cstdint>

#include "traces/checked_math.h"
#include "traces/text_reader.h"
#include "traces/work_estimate.h"

namespace umsim::trace {
namespace {

constexpr std::uint64_t kMax = UINT64_MAX;

TEST(CheckedMath, AddMultiplyAndRoundUpReportOverflowInsteadOfWrapping) {
  EXPECT_EQ(checked_add(kMax - 1, 1), kMax);
  EXPECT_EQ(checked_add(kMax, 1), std::nullopt);
  EXPECT_EQ(checked_mul(1ull << 32, (1ull << 32) - 1), 0xffffffff00000000ull);
  EXPECT_EQ(checked_mul(1ull << 32, 1ull << 32), std::nullopt);
  EXPECT_EQ(checked_mul(0, kMax), 0u);
  EXPECT_EQ(ceil_div(kMax, 4096), (1ull << 52));  // never overflows
  EXPECT_EQ(ceil_div(8192, 4096), 2u);
  EXPECT_EQ(checked_round_up(kMax - 4095, 4096), kMax - 4095);  // 2^64 - 4096 is a whole number of pages
  EXPECT_EQ(checked_round_up(kMax - 4094, 4096), std::nullopt);
  EXPECT_EQ(checked_round_up(1, 4096), 4096u);
  EXPECT_EQ(saturating_add(kMax, 5), kMax);
  EXPECT_EQ(saturating_mul(1ull << 40, 1ull << 40), kMax);
  EXPECT_EQ(saturating_mul(3, 5), 15u);
}

Event access(Bytes offset, Bytes length, Bytes stride = 0, std::uint32_t count = 1) {
  Event e;
  e.kind = EventKind::kCpuAccess;
  e.offset = offset;
  e.length = length;
  e.stride = stride;
  e.count = count;
  return e;
}

TEST(WorkEstimate, PageTouchesArePagesPerPassTimesCountSaturating) {
  EXPECT_EQ(page_touches(access(0, 1ull << 30, 0, 4294967295u)), (1ull << 18) * 4294967295ull);
  EXPECT_EQ(page_touches(access(100, 8192)), 3u);            // straddles three pages
  EXPECT_EQ(page_touches(access(0, 1ull << 20, 64 << 10, 2)), 32u);  // 16 strided touches, twice
  EXPECT_EQ(page_touches(access(1ull << 62, 1ull << 62, 8192, 4294967295u)), kMax);  // 2^49 touches x count: saturates
  // A range past 2^64 makes no work: replay refuses it as outside its allocation, at its line.
  EXPECT_EQ(page_touches(access(kMax - 4095, 8192, 0, 4294967295u)), 0u);
}

TEST(WorkEstimate, SumsAWholeTraceAndNamesTheNumberWhenOverTheLimit) {
  TextReader reader(memory_input("umsim-trace 1\nalloc A 1GiB managed\nkernel k gpu=0\n  r A len=1GiB "
                                 "count=4294967295\nend\ncpu w A len=8KiB count=3\nfree A\n"),
                    "t.umt");
  const std::uint64_t touches = estimate_page_touches(reader);
  EXPECT_EQ(touches, 262144ull * 4294967295ull + 6);
  EXPECT_EQ(work_limit_problem("t.umt", touches, 0), "");  // 0: no limit
  EXPECT_EQ(work_limit_problem("t.umt", 100, 100), "");
  EXPECT_EQ(work_limit_problem("t.umt", touches, kDefaultWorkLimit),
            "t.umt: refusing to replay: the trace makes 1125899906580486 page touches (pages per access times its "
            "count), more than the work limit of 100000000000; raise it with --work-limit N (0: no limit)");
}

}  // namespace
}  // namespace umsim::trace
