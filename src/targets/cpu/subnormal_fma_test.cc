#include "targets/cpu/subnormal_fma.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace headway::cpu {
namespace {

TEST(SubnormalFma, TheRatioIsTheMedianOfThePairsAndBothTimesArePositive) {
  const SubnormalFma s = measure_subnormal_fma(5);
  ASSERT_EQ(s.ratios.size(), 5u);
  std::vector<double> sorted = s.ratios;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_DOUBLE_EQ(s.ratio, sorted[2]);
  EXPECT_GT(s.normal_ns, 0.0);
  EXPECT_GT(s.subnormal_ns, 0.0);
  // A subnormal operand is never faster than a normal one by more than noise.
  EXPECT_GT(s.ratio, 0.5);
  EXPECT_NE(s.method.find("subnormal"), std::string::npos);
}

}  // namespace
}  // namespace headway::cpu
