#include "common/stats.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace headway {
namespace {

TEST(Stats, MedianOddEvenEmpty) {
  EXPECT_EQ(median(std::vector<double>{3, 1, 2}), 2.0);
  EXPECT_EQ(median(std::vector<double>{4, 1, 3, 2}), 2.5);
  EXPECT_EQ(median(std::vector<double>{}), 0.0);
}

TEST(Stats, CoefficientOfVariation) {
  // mean 2, sample sd 1.
  EXPECT_DOUBLE_EQ(coefficient_of_variation(std::vector<double>{1, 2, 3}), 0.5);
  EXPECT_EQ(coefficient_of_variation(std::vector<double>{5}), 0.0);
  EXPECT_EQ(coefficient_of_variation(std::vector<double>{7, 7, 7}), 0.0);
}

}  // namespace
}  // namespace headway
