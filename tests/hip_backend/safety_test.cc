// The safety check: refuse before allocating when the managed footprint
// exceeds half of the free GPU memory.
#include "hip_backend/safety.h"

#include <gtest/gtest.h>

namespace umsim::hip {
namespace {

constexpr std::uint64_t GiB = 1ull << 30;

Plan plan_with(std::uint64_t managed, std::uint64_t device = 0) {
  Plan p;
  p.trace = "big.umt";
  p.peak_managed_bytes = managed;
  p.peak_device_bytes = device;
  return p;
}

// The backend's own buffers with an empty access list: one entry, 4096 bases, the sink.
constexpr std::uint64_t kBackendBytes = 8 + 4096 * 8 + 4;

TEST(SafetyTest, AcceptsUpToHalfOfFreeMemory) {
  EXPECT_NO_THROW(check_footprint(plan_with(8 * GiB - kBackendBytes), {16 * GiB, 80 * GiB}));
  EXPECT_EQ(safe_managed_limit(16 * GiB), 8 * GiB);
}

TEST(SafetyTest, CountsTheBackendsOwnBuffers) {
  EXPECT_EQ(backend_device_bytes(plan_with(0)), kBackendBytes);
  EXPECT_THROW(check_footprint(plan_with(8 * GiB - kBackendBytes + 1), {16 * GiB, 80 * GiB}), UnsafeTraceError);
  // The access list: 8 bytes per entry, here 2^27 entries = 1 GiB.
  Plan p = plan_with(7 * GiB);
  p.entries.assign(std::size_t{1} << 27, 0);
  EXPECT_EQ(backend_device_bytes(p), GiB + 4096 * 8 + 4);
  try {
    check_footprint(p, {16 * GiB, 80 * GiB});
    FAIL() << "expected a refusal";
  } catch (const UnsafeTraceError& e) {
    EXPECT_EQ(std::string(e.what()),
              "big.umt: refusing to replay: managed footprint 7.00 GiB (+ 0.00 GiB device memory, + 1.00 GiB for the "
              "backend's access list) exceeds 50% of the GPU's free memory (16.00 GiB of 80.00 GiB free, limit 8.00 "
              "GiB); the backend never oversubscribes a real GPU: study oversubscription with `umsim replay` instead");
  }
}

TEST(SafetyTest, RefusesFootprintsWhoseSumOverflows) {
  try {
    check_footprint(plan_with(~0ull - 10, 20), {16 * GiB, 80 * GiB});
    FAIL() << "expected a refusal";
  } catch (const UnsafeTraceError& e) {
    EXPECT_EQ(std::string(e.what()),
              "big.umt: refusing to replay: managed footprint (18446744073709551605 bytes) plus device memory (20 "
              "bytes) plus the backend's buffers (32780 bytes) exceeds 2^64 bytes");
  }
  // Managed plus device fits, the backend's buffers push it over.
  EXPECT_THROW(check_footprint(plan_with(~0ull - 40000), {16 * GiB, 80 * GiB}), UnsafeTraceError);
}

TEST(SafetyTest, RefusesOneByteOverHalfWithAClearMessage) {
  try {
    check_footprint(plan_with(8 * GiB + 1), {16 * GiB, 80 * GiB});
    FAIL() << "expected a refusal";
  } catch (const UnsafeTraceError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("big.umt: refusing to replay"), std::string::npos) << m;
    EXPECT_NE(m.find("8.00 GiB"), std::string::npos) << m;
    EXPECT_NE(m.find("50%"), std::string::npos) << m;
    EXPECT_NE(m.find("16.00 GiB of 80.00 GiB free"), std::string::npos) << m;
    EXPECT_NE(m.find("never oversubscribes"), std::string::npos) << m;
  }
}

TEST(SafetyTest, CountsTheCopiesHostBuffers) {
  Plan p = plan_with(1 * GiB);
  p.pinned_staging_bytes = 3 * GiB;
  p.pageable_staging_bytes = 1 * GiB;
  EXPECT_NO_THROW(check_footprint(p, {16 * GiB, 80 * GiB}));
  p.pageable_staging_bytes = 1 * GiB + 1;
  try {
    check_footprint(p, {16 * GiB, 80 * GiB});
    FAIL() << "expected a refusal";
  } catch (const UnsafeTraceError& e) {
    EXPECT_NE(std::string(e.what()).find("big.umt: refusing to replay: the copies' host buffers need 4.00 GiB (3.00 "
                                         "GiB pinned, 1.00 GiB pageable)"),
              std::string::npos)
        << e.what();
  }
}

TEST(SafetyTest, CountsDeviceAllocationsAgainstTheLimit) {
  EXPECT_THROW(check_footprint(plan_with(6 * GiB, 3 * GiB), {16 * GiB, 80 * GiB}), UnsafeTraceError);
}

TEST(SafetyTest, RejectsFractionsAboveOneHalfAndZeroFreeMemory) {
  EXPECT_THROW(check_footprint(plan_with(1), {16 * GiB, 80 * GiB}, 0.75), UnsafeTraceError);
  EXPECT_THROW(check_footprint(plan_with(1), {16 * GiB, 80 * GiB}, 0.0), UnsafeTraceError);
  EXPECT_THROW(check_footprint(plan_with(0), {0, 80 * GiB}), UnsafeTraceError);
  EXPECT_NO_THROW(check_footprint(plan_with(4 * GiB - kBackendBytes), {16 * GiB, 80 * GiB}, 0.25));
  EXPECT_THROW(check_footprint(plan_with(4 * GiB + 1), {16 * GiB, 80 * GiB}, 0.25), UnsafeTraceError);
}

}  // namespace
}  // namespace umsim::hip
