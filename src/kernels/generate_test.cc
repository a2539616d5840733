#include "kernels/generate.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>
#include <vector>

namespace headway {
namespace {

std::vector<double> normal_draws(uint64_t seed, double sigma, size_t n) {
  std::vector<bf16> bits(n);
  fill_bf16_normal(seed, sigma, bits);
  std::vector<double> values(n);
  std::transform(bits.begin(), bits.end(), values.begin(),
                 [](bf16 b) { return static_cast<double>(bf16_to_float(b)); });
  return values;
}

double normal_cdf(double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); }

TEST(FillBf16Normal, TheSameSeedGivesTheSameValuesAndAnotherSeedOthers) {
  const auto a = normal_draws(7, 1.0, 1000);
  EXPECT_EQ(a, normal_draws(7, 1.0, 1000));
  const auto b = normal_draws(8, 1.0, 1000);
  EXPECT_GT(std::inner_product(a.begin(), a.end(), b.begin(), 0, std::plus<>(),
                               [](double x, double y) { return x != y ? 1 : 0; }),
            900);
}

TEST(FillBf16Normal, ALongFillStartsWithTheValuesOfAShortOne) {
  // The long fill rounds each bin once through a table; the short one rounds every value.
  const auto short_fill = normal_draws(11, 0.37, 5000);
  const auto long_fill = normal_draws(11, 0.37, 200000);
  EXPECT_TRUE(std::equal(short_fill.begin(), short_fill.end(), long_fill.begin()));
}

TEST(FillBf16Normal, TheValuesFollowTheNormalDistributionIncludingItsTails) {
  constexpr size_t kDraws = 16'000'000;
  const double sigma = 2.5;
  const auto v = normal_draws(3, sigma, kDraws);
  double sum = 0, sum_sq = 0;
  for (double x : v) {
    sum += x;
    sum_sq += x * x;
  }
  const double n = static_cast<double>(kDraws);
  EXPECT_NEAR(sum / n, 0.0, 5 * sigma / std::sqrt(n));
  EXPECT_NEAR(std::sqrt(sum_sq / n), sigma, 0.002 * sigma);
  // The empirical CDF at a few points, within 6 standard errors.
  for (double z : {-2.0, -1.0, -0.3, 0.0, 0.5, 1.5, 3.0}) {
    const double p = normal_cdf(z);
    const double below = static_cast<double>(std::count_if(
                             v.begin(), v.end(), [&](double x) { return x < z * sigma; })) /
                         n;
    EXPECT_NEAR(below, p, 6 * std::sqrt(p * (1 - p) / n) + 0.004) << "z " << z;
  }
  // The tails past the table (|z| > 4.17) are drawn exactly: about 2 * P(z > 4.4) beyond 4.4.
  const double beyond = static_cast<double>(
      std::count_if(v.begin(), v.end(), [&](double x) { return std::abs(x) > 4.4 * sigma; }));
  const double expected = 2 * (1 - normal_cdf(4.4)) * n;
  EXPECT_NEAR(beyond, expected, 6 * std::sqrt(expected)) << "expected " << expected;
  const double far = static_cast<double>(
      std::count_if(v.begin(), v.end(), [&](double x) { return std::abs(x) > 4.17 * sigma; }));
  EXPECT_NEAR(far, 2 * n / 65536, 6 * std::sqrt(2 * n / 65536));
}

TEST(FillBf16Normal, NearZeroTheBinsAreAsFineAsTheirMass) {
  // About a 65,536th of the draws fall in each central bin: a few dozen distinct values lie
  // within 0.002 of zero, none of them zero itself.
  const auto v = normal_draws(5, 1.0, 1'000'000);
  std::vector<double> small;
  for (double x : v)
    if (std::abs(x) < 0.002) small.push_back(x);
  std::sort(small.begin(), small.end());
  small.erase(std::unique(small.begin(), small.end()), small.end());
  EXPECT_GE(small.size(), 80u);
  EXPECT_FALSE(std::binary_search(small.begin(), small.end(), 0.0));
}

}  // namespace
}  // namespace headway
