#include "statistics/fixed_sample_rule.h"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

#include "statistics/calibration.h"

namespace headway::statistics {
namespace {

// Feeds `pairs` d's of ln(ratio); the outcome of the last.
std::optional<Outcome> decide(FixedSampleRule& rule, double ratio, int pairs) {
  std::optional<Outcome> outcome;
  for (int i = 0; i < pairs; ++i) outcome = rule.observe(std::log(ratio));
  return outcome;
}

TEST(FixedSampleRule, DecidesAtItsLastPairAndNotBefore) {
  FixedSampleRule rule({7, 3.0});
  EXPECT_EQ(rule.max_pairs(), 7);
  for (int i = 0; i < 6; ++i) EXPECT_EQ(rule.observe(std::log(0.5)), std::nullopt) << i;
  EXPECT_EQ(rule.observe(std::log(0.5)), Outcome::kFaster);
  EXPECT_THROW(rule.observe(0.0), std::logic_error);
}

TEST(FixedSampleRule, AThresholdDecidesOnTheGeometricMeanBeyondItsMargin) {
  for (const auto& [ratio, expected] :
       {std::pair{0.969, Outcome::kFaster}, std::pair{0.975, Outcome::kSame},
        std::pair{1.0, Outcome::kSame}, std::pair{1.025, Outcome::kSame},
        std::pair{1.031, Outcome::kSlower}}) {
    FixedSampleRule rule({7, 3.0});
    EXPECT_EQ(decide(rule, ratio, 7), expected) << ratio;
  }
  // The mean of the log ratios, not of the ratios: 0.9 and 1.08 average 0.99 as ratios, but
  // their geometric mean 0.986 is beyond no margin and the pair's d's sum below 0.
  FixedSampleRule two({2, 1.0});
  two.observe(std::log(0.9));
  EXPECT_EQ(two.observe(std::log(1.08)), Outcome::kFaster)
      << "exp((ln 0.9 + ln 1.08) / 2) = 0.9859 <= 0.99";
}

TEST(FixedSampleRule, WithoutAMarginTheLowerMeanWinsAndOnlyATieIsSame) {
  FixedSampleRule faster({7, 0.0}), slower({7, 0.0}), tie({7, 0.0});
  EXPECT_EQ(decide(faster, 0.9999, 7), Outcome::kFaster);
  EXPECT_EQ(decide(slower, 1.0001, 7), Outcome::kSlower);
  EXPECT_EQ(decide(tie, 1.0, 7), Outcome::kSame);
}

TEST(FixedSampleRule, RefusesBadSettingsAndBadReadings) {
  EXPECT_FALSE(validate(FixedSampleConfig{0, 3.0}).ok());
  EXPECT_FALSE(validate(FixedSampleConfig{7, -1.0}).ok());
  EXPECT_FALSE(validate(FixedSampleConfig{7, 100.0}).ok());
  EXPECT_NE(validate(FixedSampleConfig{0, 3.0}).error().message.find("pairs"), std::string::npos);
  EXPECT_THROW(FixedSampleRule({0, 3.0}), std::invalid_argument);
  FixedSampleRule rule({7, 3.0});
  EXPECT_THROW(rule.observe(NAN), std::invalid_argument);
  EXPECT_THROW(rule.observe(INFINITY), std::invalid_argument);
}

TEST(FixedSampleRule, TheOrderOfEachPairIsACoinFlip) {
  FixedSampleRule rule({7, 3.0});
  Rng coin(5);
  int candidate_first = 0;
  for (int i = 0; i < 1000; ++i) candidate_first += rule.first_arm(i, coin) == Arm::kCandidate;
  EXPECT_GT(candidate_first, 440);
  EXPECT_LT(candidate_first, 560);
}

// What the rules are kept to show: with noise larger than their margin, A/A decisions come out
// FASTER far more often than the betting rule's alpha allows.
TEST(FixedSampleRule, NeitherBoundsItsFalseFasterRate) {
  CalibrateRequest request;
  request.decisions = 400;
  request.cv = 0.05;
  request.seed = 3;
  const auto rate = [&](RuleKind kind) {
    request.rule = kind;
    const auto result = calibrate(request, sim_device_factory, s0_for_cv(request.cv));
    EXPECT_TRUE(result.ok());
    return result.value().report.of(Outcome::kFaster).rate;
  };
  // d's sd is sqrt(2) x 5%, a mean of 7 has sd 2.7%: P(mean <= ln 0.97) is about 13%.
  const double threshold = rate(RuleKind::kThreshold);
  EXPECT_GT(threshold, 0.08);
  EXPECT_LT(threshold, 0.20);
  const double lowest = rate(RuleKind::kLowestMean);
  EXPECT_GT(lowest, 0.40);
  EXPECT_LT(lowest, 0.60);
  EXPECT_LT(rate(RuleKind::kBetting), 0.06);
}

}  // namespace
}  // namespace headway::statistics
