#include "statistics/effect_estimate.h"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <vector>

namespace headway::statistics {
namespace {

TEST(EffectEstimate, PercentOfLogRatio) {
  EXPECT_NEAR(log_ratio_to_percent(std::log(0.985)), -1.5, 1e-12);
  EXPECT_NEAR(log_ratio_to_percent(std::log(1.02)), 2.0, 1e-12);
  EXPECT_EQ(log_ratio_to_percent(0.0), 0.0);
}

TEST(EffectEstimate, SixPairsUseTheRange) {
  // n = 6: P(Bin(6,1/2) = 0) = 1/64, so [min, max] covers 1 - 2/64 = 96.875% >= 95%, and
  // [2nd, 5th] would cover only 1 - 2*7/64 = 78.1%.
  const std::vector<double> d{-0.02, -0.01, 0.0, 0.01, 0.03, -0.005};
  const EffectEstimate e = estimate_effect(d);
  EXPECT_EQ(e.n, 6);
  EXPECT_NEAR(e.median_pct, log_ratio_to_percent(-0.0025), 1e-12);
  EXPECT_NEAR(e.lower_pct, log_ratio_to_percent(-0.02), 1e-12);
  EXPECT_NEAR(e.upper_pct, log_ratio_to_percent(0.03), 1e-12);
  EXPECT_NEAR(e.coverage, 0.96875, 1e-12);
}

TEST(EffectEstimate, TenPairsDropOneFromEachEnd) {
  // n = 10: k = 2 covers 1 - 2*11/1024 = 97.85%; k = 3 would cover 1 - 2*56/1024 = 89.1%.
  std::vector<double> d;
  for (int i = 1; i <= 10; ++i) d.push_back(0.001 * i);
  const EffectEstimate e = estimate_effect(d);
  EXPECT_NEAR(e.median_pct, log_ratio_to_percent(0.0055), 1e-12);
  EXPECT_NEAR(e.lower_pct, log_ratio_to_percent(0.002), 1e-12);
  EXPECT_NEAR(e.upper_pct, log_ratio_to_percent(0.009), 1e-12);
  EXPECT_NEAR(e.coverage, 1.0 - 22.0 / 1024.0, 1e-12);
}

TEST(EffectEstimate, TooFewPairsReportTheirCoverage) {
  const std::vector<double> d{0.01, -0.01, 0.02, 0.0, 0.005};
  const EffectEstimate e = estimate_effect(d);
  EXPECT_NEAR(e.coverage, 0.9375, 1e-12);
  EXPECT_NEAR(e.median_pct, log_ratio_to_percent(0.005), 1e-12);
  EXPECT_THROW(estimate_effect(std::vector<double>{}), std::invalid_argument);
}

TEST(EffectEstimate, EarlyStopNote) {
  EXPECT_EQ(early_stop_note(Outcome::kFaster, 6, 24),
            "stopped early at pair 6: the estimate is biased away from zero");
  EXPECT_EQ(early_stop_note(Outcome::kSame, 20, 24),
            "stopped early at pair 20: the estimate is biased toward zero");
  EXPECT_EQ(early_stop_note(Outcome::kInconclusive, 24, 24), "");
}

}  // namespace
}  // namespace headway::statistics
