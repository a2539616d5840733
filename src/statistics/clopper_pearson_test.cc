#include "statistics/clopper_pearson.h"

#include <gtest/gtest.h>

#include <stdexcept>

#include "statistics/special_functions.h"

namespace headway::statistics {
namespace {

// Reference values solved independently by bisection on exact binomial sums.
TEST(ClopperPearson, ZeroOfTen) {
  const Interval ci = clopper_pearson(0, 10);
  EXPECT_EQ(ci.lower, 0.0);
  EXPECT_NEAR(ci.upper, 0.3084971078, 1e-9);  // 1 - 0.025^(1/10)
}

TEST(ClopperPearson, TenOfTen) {
  const Interval ci = clopper_pearson(10, 10);
  EXPECT_NEAR(ci.lower, 0.6915028922, 1e-9);
  EXPECT_EQ(ci.upper, 1.0);
}

TEST(ClopperPearson, EightOfThreeHundred) {
  const Interval ci = clopper_pearson(8, 300);
  EXPECT_NEAR(ci.lower, 0.0115815678, 1e-9);
  EXPECT_NEAR(ci.upper, 0.0518658120, 1e-9);
  // One-sided: 300 decisions with <= 8 FASTER show a rate <= 5% at 95% confidence ...
  const double upper95 = clopper_pearson_upper(8, 300);
  EXPECT_NEAR(upper95, 0.0476000744, 1e-9);
  EXPECT_LE(upper95, 0.05);
  // ... and 9 do not.
  EXPECT_NEAR(clopper_pearson_upper(9, 300), 0.0517660619, 1e-9);
  EXPECT_GT(clopper_pearson_upper(9, 300), 0.05);
}

TEST(ClopperPearson, FiveOfTwenty) {
  const Interval ci = clopper_pearson(5, 20);
  EXPECT_NEAR(ci.lower, 0.0865714691, 1e-9);
  EXPECT_NEAR(ci.upper, 0.4910458717, 1e-9);
}

TEST(ClopperPearson, BoundsHaveTheirTailProbabilities) {
  const int64_t n = 2000;
  const int64_t k = 37;
  const Interval ci = clopper_pearson(k, n, 0.95);
  EXPECT_NEAR(binomial_cdf(k, n, ci.upper), 0.025, 1e-9);
  EXPECT_NEAR(1.0 - binomial_cdf(k - 1, n, ci.lower), 0.025, 1e-9);
  EXPECT_NEAR(binomial_cdf(k, n, clopper_pearson_upper(k, n, 0.95)), 0.05, 1e-9);
}

TEST(ClopperPearson, RejectsBadArguments) {
  EXPECT_THROW(clopper_pearson(1, 0), std::invalid_argument);
  EXPECT_THROW(clopper_pearson(5, 4), std::invalid_argument);
  EXPECT_THROW(clopper_pearson(-1, 4), std::invalid_argument);
  EXPECT_THROW(clopper_pearson_upper(1, 4, 1.0), std::invalid_argument);
}

}  // namespace
}  // namespace headway::statistics
