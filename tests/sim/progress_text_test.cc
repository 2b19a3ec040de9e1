#include "sim/progress_meter.h"

#include <gtest/gtest.h>

namespace umsim::sim {
namespace {

TEST(ProgressText, EtaAssumesTheRemainingItemsTakeAsLongEach) {
  // 12 of 60 points in 3 s: 48 left at 0.25 s each = 12 s.
  EXPECT_EQ(progress_text("sweep", 12, 60, "points", 3.0), "sweep: 12/60 points (20%), 3.0 s, ETA 12 s");
}

TEST(ProgressText, NoEtaBeforeTheFirstItemOrAfterTheLast) {
  EXPECT_EQ(progress_text("sweep", 0, 4, "points", 1.0), "sweep: 0/4 points (0%), 1.0 s");
  EXPECT_EQ(progress_text("sweep", 4, 4, "points", 2.5), "sweep: 4/4 points (100%), 2.5 s");
  EXPECT_EQ(progress_text("sweep", 0, 0, "points", 0.0), "sweep: 0/0 points");
}

}  // namespace
}  // namespace umsim::sim
