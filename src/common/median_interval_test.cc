#include "common/median_interval.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "common/rng.h"

namespace headway {
namespace {

TEST(MedianInterval, KnownSmallCasesByHand) {
  // n = 11: P(B <= 1) = 12/2048, P(B <= 2) = 67/2048; r = 2 covers 1 - 24/2048, r = 3 only
  // 1 - 134/2048 < 95%.
  const std::vector<double> eleven = {7, 3, 11, 1, 9, 5, 2, 10, 4, 8, 6};
  const MedianInterval i11 = median_interval(eleven);
  EXPECT_EQ(i11.rank, 2);
  EXPECT_EQ(i11.low, 2);
  EXPECT_EQ(i11.high, 10);
  EXPECT_DOUBLE_EQ(i11.coverage, 1.0 - 24.0 / 2048);
  // n = 10: r = 2 covers 1 - 22/1024.
  const MedianInterval i10 = median_interval(std::vector<double>{1, 2, 3, 4, 5, 6, 7, 8, 9, 10});
  EXPECT_EQ(i10.rank, 2);
  EXPECT_EQ(i10.low, 2);
  EXPECT_EQ(i10.high, 9);
  EXPECT_DOUBLE_EQ(i10.coverage, 1.0 - 22.0 / 1024);
  // n = 6 is the smallest n whose [min, max] reaches 95%: 1 - 2/64.
  const MedianInterval i6 = median_interval(std::vector<double>{4, 6, 1, 3, 2, 5});
  EXPECT_EQ(i6.rank, 1);
  EXPECT_EQ(i6.low, 1);
  EXPECT_EQ(i6.high, 6);
  EXPECT_DOUBLE_EQ(i6.coverage, 1.0 - 2.0 / 64);
  // Too few for 95%: [min, max] and what it really covers.
  const MedianInterval i5 = median_interval(std::vector<double>{5, 4, 3, 2, 1});
  EXPECT_EQ(i5.low, 1);
  EXPECT_EQ(i5.high, 5);
  EXPECT_DOUBLE_EQ(i5.coverage, 0.9375);
  EXPECT_DOUBLE_EQ(median_interval(std::vector<double>{2, 1}).coverage, 0.5);
  const MedianInterval one = median_interval(std::vector<double>{3});
  EXPECT_EQ(one.low, 3);
  EXPECT_EQ(one.high, 3);
  EXPECT_EQ(one.coverage, 0.0);
  EXPECT_EQ(median_interval(std::vector<double>{}).rank, 0);
  // A lower confidence narrows the interval: at 90%, n = 11 takes r = 3 (93.46%; r = 4 would
  // cover only 1 - 464/2048).
  EXPECT_EQ(median_interval(eleven, 0.90).rank, 3);
  EXPECT_DOUBLE_EQ(median_interval_coverage(11, 3), 1.0 - 134.0 / 2048);
}

TEST(MedianInterval, CoversTheTrueMedianAsOftenAsItSays) {
  // 2000 seeded samples per size from a skewed distribution (log-normal, true median 1) and
  // from a shifted exponential (true median 0.5 + ln 2): the share of intervals that hold the
  // true median is the stated coverage within four standard errors, and at least 95% less
  // that margin.
  for (const int n : {6, 11, 15, 31, 50}) {
    for (const bool lognormal : {true, false}) {
      Rng rng(mix_seed(17, static_cast<uint64_t>(n) * 2 + lognormal));
      const double truth = lognormal ? 1.0 : 0.5 + std::log(2.0);
      constexpr int kSamples = 2000;
      int covered = 0;
      double stated = 0.0;
      std::vector<double> x(static_cast<size_t>(n));
      for (int s = 0; s < kSamples; ++s) {
        for (auto& v : x)
          v = lognormal ? std::exp(0.5 * rng.normal()) : 0.5 - std::log(1.0 - rng.uniform());
        const MedianInterval i = median_interval(x);
        stated = i.coverage;
        covered += i.low <= truth && truth <= i.high;
      }
      const double rate = static_cast<double>(covered) / kSamples;
      const double se = std::sqrt(stated * (1 - stated) / kSamples);
      EXPECT_GE(stated, 0.95) << n;
      EXPECT_NEAR(rate, stated, 4 * se + 1e-9) << "n " << n << (lognormal ? " log-normal" : " exp");
    }
  }
}

TEST(MedianInterval, RatioIntervalHoldsEveryRatioTheTwoIntervalsAllow) {
  const MedianInterval baseline{2.0, 2.4, 3, 0.96};
  const MedianInterval head{0.9, 1.2, 3, 0.97};
  const RatioInterval r = ratio_interval(baseline, head);
  EXPECT_DOUBLE_EQ(r.low, 2.0 / 1.2);
  EXPECT_DOUBLE_EQ(r.high, 2.4 / 0.9);
  EXPECT_NEAR(r.coverage, 0.93, 1e-12);
  EXPECT_TRUE(r.above_one());
  // Overlapping intervals support neither direction.
  const RatioInterval overlap = ratio_interval({1.0, 1.3, 2, 0.95}, {1.2, 1.4, 2, 0.95});
  EXPECT_FALSE(overlap.above_one());
  EXPECT_FALSE(overlap.below_one());
  EXPECT_TRUE(ratio_interval({1.0, 1.1, 2, 0.95}, {1.2, 1.4, 2, 0.95}).below_one());
}

std::vector<double> mixture(Rng& rng, int n, double upper_share) {
  std::vector<double> x;
  for (int i = 0; i < n; ++i) {
    const double mode = rng.uniform() < upper_share ? 1.3 : 0.65;
    x.push_back(mode * std::exp(0.08 * rng.normal()));
  }
  return x;
}

TEST(MedianInterval, ReadingsInTurnSupportARatioTheirSeparateIntervalsCannot) {
  // The machine moves between fast and slow spells that both arms share; the ratio is always 2.
  std::vector<double> baseline, head;
  for (int i = 0; i < 11; ++i) {
    const double spell = i % 3 == 0 ? 3.0 : 1.0 + 0.1 * i;
    baseline.push_back(2.0 * spell);
    head.push_back(spell * (1.0 + 0.001 * (i % 2)));
  }
  const RatioInterval separate = ratio_interval(median_interval(baseline), median_interval(head));
  EXPECT_FALSE(separate.above_one()) << separate.low;
  const RatioInterval paired = paired_ratio_interval(baseline, head);
  EXPECT_TRUE(paired.above_one());
  EXPECT_NEAR(paired.low, 2.0, 0.01);
  EXPECT_NEAR(paired.high, 2.0, 0.01);
  EXPECT_GE(paired.coverage, 0.95);
}

TEST(MedianInterval, FindsTwoModesOfAClearMixture) {
  // Readings of ~0.65 or ~1.3 ms (8% spread each), half and half: found in at least 95% of
  // seeds, with the modes near 0.65 and 1.3.
  for (const int n : {11, 15, 31}) {
    Rng rng(mix_seed(23, static_cast<uint64_t>(n)));
    int found = 0;
    constexpr int kSeeds = 500;
    for (int s = 0; s < kSeeds; ++s) {
      const Bimodality b = test_bimodality(mixture(rng, n, 0.5));
      if (!b.bimodal) continue;
      ++found;
      EXPECT_NEAR(b.low_mode, 0.65, 0.1);
      EXPECT_NEAR(b.high_mode, 1.3, 0.2);
      EXPECT_EQ(b.low_count + b.high_count, n);
    }
    EXPECT_GE(found, kSeeds * 95 / 100) << n;
  }
  // By hand: four readings of 1 and four of 2 are two groups; eight alike are not.
  const Bimodality two = test_bimodality(std::vector<double>{1, 2, 1, 2, 1.01, 2.02, 0.99, 1.98});
  EXPECT_TRUE(two.bimodal);
  EXPECT_EQ(two.low_count, 4);
  EXPECT_NEAR(two.low_mode, 1.0, 0.01);
  EXPECT_NEAR(two.high_mode, 2.0, 0.02);
  EXPECT_FALSE(test_bimodality(std::vector<double>(8, 1.0)).bimodal);
  // Too few readings to tell.
  EXPECT_FALSE(test_bimodality(std::vector<double>{1, 2, 1, 2, 1, 2, 1}).bimodal);
}

TEST(MedianInterval, RarelyCallsUnimodalReadingsBimodal) {
  // Normal (cv 5%) and log-normal (sigma 0.5) readings: called bimodal in at most 3% of 1000
  // seeds per size (the test is built for about 1%).
  for (const int n : {8, 11, 15, 31, 50}) {
    for (const bool lognormal : {true, false}) {
      Rng rng(mix_seed(29, static_cast<uint64_t>(n) * 2 + lognormal));
      int alarms = 0;
      constexpr int kSeeds = 1000;
      std::vector<double> x(static_cast<size_t>(n));
      for (int s = 0; s < kSeeds; ++s) {
        for (auto& v : x) v = lognormal ? std::exp(0.5 * rng.normal()) : 1.0 + 0.05 * rng.normal();
        alarms += test_bimodality(x).bimodal;
      }
      EXPECT_LE(alarms, kSeeds * 3 / 100) << "n " << n << (lognormal ? " log-normal" : " normal");
    }
  }
}

TEST(MedianInterval, CriticalSeparationFallsWithN) {
  EXPECT_GT(bimodality_critical(11), bimodality_critical(50));
  EXPECT_GT(bimodality_critical(50), 0.6);  // a normal's best split explains 2/pi at large n
  EXPECT_EQ(bimodality_critical(100000), bimodality_critical(200));
}

}  // namespace
}  // namespace headway
