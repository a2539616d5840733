#include "statistics/reference_rule.h"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <vector>

namespace headway::statistics {
namespace {

TEST(PairedT, ByHand) {
  // mean -0.01, sample sd 0.0093541435, t = -0.01 / (0.0093541435 / sqrt 5) = -2.3904572
  const std::vector<double> d{-0.01, -0.02, 0.005, -0.015, -0.01};
  EXPECT_NEAR(paired_t_statistic(d), -2.390457218668787, 1e-12);
  EXPECT_EQ(paired_t_statistic(std::vector<double>{-0.01, -0.01}), -INFINITY);
  EXPECT_EQ(paired_t_statistic(std::vector<double>{0.0, 0.0}), 0.0);
  EXPECT_THROW(paired_t_statistic(std::vector<double>{1.0}), std::invalid_argument);
}

TEST(ReferenceRule, FasterAtTheFirstLook) {
  // t = -2.39 <= -t_{0.95,4} = -2.132
  ReferenceRule rule(ReferenceConfig{});
  const std::vector<double> d{-0.01, -0.02, 0.005, -0.015};
  for (double v : d) EXPECT_EQ(rule.observe(v), std::nullopt);
  EXPECT_EQ(rule.observe(-0.01), Outcome::kFaster);
  EXPECT_THROW(rule.observe(0.0), std::logic_error);
}

TEST(ReferenceRule, OneSidedNotTwoSided) {
  // t = -2.2 at n = 5 lies between the one-sided (2.132) and two-sided (2.776) bars.
  // d = (-0.01, -0.02, 0.005, -0.015, x) with x chosen so t is about -2.2: x = -0.0065.
  ReferenceRule rule(ReferenceConfig{});
  std::vector<double> d{-0.01, -0.02, 0.005, -0.015, -0.0065};
  const double t = paired_t_statistic(d);
  ASSERT_LT(t, -2.1318468);
  ASSERT_GT(t, -2.7764451);
  std::optional<Outcome> outcome;
  for (double v : d) outcome = rule.observe(v);
  EXPECT_EQ(outcome, Outcome::kFaster);
}

TEST(ReferenceRule, SecondLookThenInconclusive) {
  ReferenceRule rule(ReferenceConfig{});
  const std::vector<double> first{-0.01, 0.01, -0.02, 0.015, -0.005};  // t = -0.31
  for (double v : first) ASSERT_EQ(rule.observe(v), std::nullopt);
  for (int i = 0; i < 5; ++i) ASSERT_EQ(rule.observe(0.001 * (i % 2 == 0 ? 1 : -1)), std::nullopt);
  EXPECT_EQ(rule.observe(0.0), Outcome::kInconclusive);
  EXPECT_EQ(rule.pairs(), 11);
}

TEST(ReferenceRule, SecondLookFaster) {
  ReferenceRule rule(ReferenceConfig{});
  const std::vector<double> first{-0.01, 0.01, -0.02, 0.015, -0.005};
  for (double v : first) ASSERT_EQ(rule.observe(v), std::nullopt);
  for (int i = 0; i < 5; ++i) ASSERT_EQ(rule.observe(-0.012), std::nullopt);
  EXPECT_EQ(rule.observe(-0.012), Outcome::kFaster);
}

TEST(ReferenceRule, HasNoSlower) {
  ReferenceRule rule(ReferenceConfig{});
  std::optional<Outcome> outcome;
  for (int i = 0; i < 11 && !outcome; ++i) outcome = rule.observe(0.05 + 0.001 * i);
  EXPECT_EQ(outcome, Outcome::kInconclusive);
}

TEST(ReferenceRule, FixedAlternatingOrderIgnoresTheCoin) {
  ReferenceRule rule(ReferenceConfig{});
  Rng coin(1);
  const uint64_t before = Rng(1).next_u64();
  for (int i = 0; i < 6; ++i) {
    EXPECT_EQ(rule.first_arm(i, coin), i % 2 == 0 ? Arm::kHead : Arm::kCandidate);
  }
  EXPECT_EQ(coin.next_u64(), before);
  EXPECT_EQ(rule.max_pairs(), 11);
}

TEST(ReferenceConfig, Validation) {
  EXPECT_TRUE(validate(ReferenceConfig{}).ok());
  EXPECT_EQ(validate(ReferenceConfig{1.2, {5, 11}}).error().message,
            "alpha must be in (0, 1), got 1.2");
  EXPECT_EQ(validate(ReferenceConfig{0.05, {}}).error().message,
            "the reference rule needs at least one look");
  EXPECT_EQ(validate(ReferenceConfig{0.05, {1, 11}}).error().message,
            "the first look must be at 2 pairs or more");
  EXPECT_EQ(validate(ReferenceConfig{0.05, {5, 5}}).error().message,
            "looks must be strictly increasing");
  EXPECT_THROW(ReferenceRule(ReferenceConfig{0.05, {}}), std::invalid_argument);
}

}  // namespace
}  // namespace headway::statistics
