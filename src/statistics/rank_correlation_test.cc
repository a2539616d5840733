#include "statistics/rank_correlation.h"

#include <gtest/gtest.h>

namespace headway::statistics {
namespace {

TEST(RankCorrelation, TiesShareTheMeanRank) {
  EXPECT_EQ(ranks({10, 20, 20, 5}), (std::vector<double>{2, 3.5, 3.5, 1}));
}

TEST(RankCorrelation, SameOrderIsOneReversedIsMinusOne) {
  EXPECT_DOUBLE_EQ(*spearman({1, 2, 3, 4}, {10, 200, 300, 4000}), 1.0);
  EXPECT_DOUBLE_EQ(*spearman({1, 2, 3, 4}, {4, 3, 2, 1}), -1.0);
}

TEST(RankCorrelation, KnownValueWithOneSwap) {
  // d^2 sums to 2 over n = 5: 1 - 6*2/(5*24) = 0.9.
  EXPECT_NEAR(*spearman({1, 2, 3, 4, 5}, {1, 2, 3, 5, 4}), 0.9, 1e-12);
}

TEST(RankCorrelation, UndefinedBelowThreeOrWithoutVariation) {
  EXPECT_FALSE(spearman({1, 2}, {1, 2}).has_value());
  EXPECT_FALSE(spearman({1, 1, 1}, {1, 2, 3}).has_value());
  EXPECT_FALSE(spearman({1, 2, 3}, {1, 2}).has_value());
}

}  // namespace
}  // namespace headway::statistics
