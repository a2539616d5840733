#include "targets/floors.h"

#include <gtest/gtest.h>

namespace headway::targets {
namespace {

TEST(BelowFloor, FlagsOnlyRatiosUnderThreePercentBelowTheFloor) {
  EXPECT_TRUE(below_floor(0.90));
  EXPECT_TRUE(below_floor(0.969));
  EXPECT_FALSE(below_floor(0.97));
  EXPECT_FALSE(below_floor(0.99));  // within a floor's own noise: a result
  EXPECT_FALSE(below_floor(1.25));
  EXPECT_FALSE(below_floor(0.0));  // no floor
  EXPECT_FALSE(below_floor(-1.0));
}

TEST(BelowFloor, TheNoteSaysTheRatioAndThatTheFloorIsWhatIsWrong) {
  EXPECT_EQ(below_floor_note(1.02), "");
  EXPECT_EQ(below_floor_note(0.904),
            "0.90x: below its floor (at least 0.97x): a floor to fix, not a result");
}

}  // namespace
}  // namespace headway::targets
