#include "statistics/special_functions.h"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

namespace headway::statistics {
namespace {

TEST(IncompleteBeta, ClosedForms) {
  for (double x : {0.0, 0.1, 0.37, 0.5, 0.9, 1.0}) {
    EXPECT_NEAR(regularized_incomplete_beta(1, 1, x), x, 1e-14);
    EXPECT_NEAR(regularized_incomplete_beta(3, 1, x), x * x * x, 1e-14);
    EXPECT_NEAR(regularized_incomplete_beta(1, 4, x), 1 - std::pow(1 - x, 4), 1e-14);
  }
  EXPECT_NEAR(regularized_incomplete_beta(7.5, 7.5, 0.5), 0.5, 1e-14);
}

TEST(IncompleteBeta, BinomialIdentities) {
  // I_p(k, n-k+1) = P(Bin(n, p) >= k):
  // P(Bin(4,0.4) >= 2) = 0.5248, P(Bin(11,0.3) >= 5) = 0.2103046173.
  EXPECT_NEAR(regularized_incomplete_beta(2, 3, 0.4), 0.5248, 1e-13);
  EXPECT_NEAR(regularized_incomplete_beta(5, 7, 0.3), 0.2103046173, 1e-10);
}

TEST(IncompleteBeta, InverseRoundTrips) {
  for (double a : {0.5, 1.0, 2.5, 9.0, 150.0}) {
    for (double b : {0.5, 3.0, 40.0, 292.0}) {
      for (double p : {1e-6, 0.025, 0.5, 0.95, 0.999}) {
        const double x = inverse_regularized_incomplete_beta(a, b, p);
        EXPECT_NEAR(regularized_incomplete_beta(a, b, x), p, 1e-10) << a << " " << b << " " << p;
      }
    }
  }
  EXPECT_EQ(inverse_regularized_incomplete_beta(2, 2, 0.0), 0.0);
  EXPECT_EQ(inverse_regularized_incomplete_beta(2, 2, 1.0), 1.0);
}

TEST(StudentT, KnownQuantiles) {
  EXPECT_NEAR(student_t_quantile(0.975, 4), 2.776445105, 1e-8);
  EXPECT_NEAR(student_t_quantile(0.975, 10), 2.228138852, 1e-8);
  EXPECT_NEAR(student_t_quantile(0.95, 4), 2.131846786, 1e-8);
  EXPECT_NEAR(student_t_quantile(0.95, 10), 1.812461123, 1e-8);
  EXPECT_NEAR(student_t_quantile(0.975, 1), 12.70620474, 1e-7);
  EXPECT_NEAR(student_t_quantile(0.995, 30), 2.749995654, 1e-8);
  EXPECT_NEAR(student_t_quantile(0.05, 10), -1.812461123, 1e-8);
  EXPECT_EQ(student_t_quantile(0.5, 3), 0.0);
}

TEST(StudentT, KnownCdf) {
  EXPECT_NEAR(student_t_cdf(1.0, 1), 0.75, 1e-13);
  EXPECT_NEAR(student_t_cdf(1.0, 3), 0.8044988905, 1e-9);
  EXPECT_NEAR(student_t_cdf(-1.5, 7), 0.0886492435, 1e-9);
  EXPECT_NEAR(student_t_cdf(0.0, 5), 0.5, 1e-15);
  EXPECT_NEAR(student_t_cdf(student_t_quantile(0.9, 6.5), 6.5), 0.9, 1e-12);
}

TEST(Binomial, Cdf) {
  EXPECT_NEAR(binomial_cdf(3, 10, 0.5), 176.0 / 1024.0, 1e-14);
  EXPECT_EQ(binomial_cdf(-1, 10, 0.5), 0.0);
  EXPECT_EQ(binomial_cdf(10, 10, 0.3), 1.0);
  EXPECT_NEAR(binomial_cdf(0, 5, 0.5), 1.0 / 32.0, 1e-15);
}

TEST(SpecialFunctions, DomainErrors) {
  EXPECT_THROW(regularized_incomplete_beta(0, 1, 0.5), std::invalid_argument);
  EXPECT_THROW(regularized_incomplete_beta(1, 1, 1.5), std::invalid_argument);
  EXPECT_THROW(student_t_quantile(1.0, 3), std::invalid_argument);
  EXPECT_THROW(student_t_cdf(0.0, 0), std::invalid_argument);
  EXPECT_THROW(binomial_cdf(1, -1, 0.5), std::invalid_argument);
}

}  // namespace
}  // namespace headway::statistics
