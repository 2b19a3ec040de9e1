// Sizes in messages (describe_bytes) against the canonical spelling the text
// writer uses (format_bytes, which must not change: traces are byte-identical).
#include "traces/units.h"

#include <gtest/gtest.h>

namespace umsim::trace {
namespace {

// Fine durations: decimal nanoseconds from ps up to s, with the errors every
// quantity with units shares (parse_duration_ns's).
TEST(ParseFineDuration, TakesFractionsOfANanosecond) {
  EXPECT_DOUBLE_EQ(parse_fine_duration_ns("0.093ns").ns, 0.093);
  EXPECT_DOUBLE_EQ(parse_fine_duration_ns("93ps").ns, 0.093);
  EXPECT_DOUBLE_EQ(parse_fine_duration_ns("1.5us").ns, 1500.0);
  EXPECT_DOUBLE_EQ(parse_fine_duration_ns("2ms").ns, 2e6);
  EXPECT_DOUBLE_EQ(parse_fine_duration_ns("0.25").ns, 0.25);
  EXPECT_DOUBLE_EQ(parse_fine_duration_ns("1s").ns, 1e9);
  EXPECT_EQ(parse_fine_duration_ns("").error, "empty duration");
  EXPECT_EQ(parse_fine_duration_ns("-1ns").error, "negative duration '-1ns'");
  EXPECT_EQ(parse_fine_duration_ns("ns").error, "expected a number in duration 'ns'");
  EXPECT_EQ(parse_fine_duration_ns("1.2.3ns").error, "malformed number in duration '1.2.3ns'");
  EXPECT_EQ(parse_fine_duration_ns("1e400ns").error, "unknown unit 'e400ns' in '1e400ns' (expected ps, ns, us, ms or s)");
  EXPECT_EQ(parse_duration_ns("1.2.3us").error, "malformed number in duration '1.2.3us'");
}

TEST(FormatBytes, LargestUnitThatDividesExactly) {
  EXPECT_EQ(format_bytes(0), "0B");
  EXPECT_EQ(format_bytes(4097), "4097B");
  EXPECT_EQ(format_bytes(64ull << 20), "64MiB");
  EXPECT_EQ(format_bytes(0xfffffffffffff000ull), "18014398509481980KiB");
  EXPECT_EQ(format_bytes(1ull << 63), "8388608TiB");
}

TEST(DescribeBytes, ShortSpellingsStay) {
  EXPECT_EQ(describe_bytes(0), "0B");
  EXPECT_EQ(describe_bytes(2), "2B");
  EXPECT_EQ(describe_bytes(4097), "4097B");
  EXPECT_EQ(describe_bytes(8 << 10), "8KiB");
  EXPECT_EQ(describe_bytes(1023ull << 10), "1023KiB");
  EXPECT_EQ(describe_bytes(64ull << 40), "64TiB");
  EXPECT_EQ(describe_bytes(9999ull << 40), "9999TiB");
}

TEST(DescribeBytes, LongSpellingsBecomeExactBytesWithHex) {
  EXPECT_EQ(describe_bytes(12345), "12345B (0x3039)");
  EXPECT_EQ(describe_bytes(4294971392ull), "4294971392B (0x100001000)");                       // 4194305KiB
  EXPECT_EQ(describe_bytes(0xfffffffffffff000ull), "18446744073709547520B (0xfffffffffffff000)");  // not ...980KiB
  EXPECT_EQ(describe_bytes(1ull << 63), "9223372036854775808B (0x8000000000000000)");              // not 8388608TiB
  EXPECT_EQ(describe_bytes(~0ull), "18446744073709551615B (0xffffffffffffffff)");
}

}  // namespace
}  // namespace umsim::trace
