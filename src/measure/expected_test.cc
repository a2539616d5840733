#include "measure/expected.h"

#include <gtest/gtest.h>

namespace headway::measure {
namespace {

TEST(Expected, HoldsAValue) {
  Expected<int> e(7);
  ASSERT_TRUE(e.ok());
  EXPECT_TRUE(static_cast<bool>(e));
  EXPECT_EQ(e.value(), 7);
  EXPECT_THROW((void)e.error(), std::logic_error);
}

TEST(Expected, HoldsAnError) {
  Expected<int> e(Error{"bad input"});
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.error().message, "bad input");
  EXPECT_THROW((void)e.value(), std::logic_error);
}

}  // namespace
}  // namespace headway::measure
