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

// Values at the same double arguments from mpmath 1.3.0 at 40 significant digits (the incomplete
// beta by its hypergeometric series, the binomial by its sum, the quantiles by bisection on those),
// at the sizes the callers use: Clopper-Pearson and sign-test intervals over hundreds to thousands
// of pairs, t quantiles for up to hundreds of looks.
TEST(SpecialFunctions, AgreeWithHighPrecisionValues) {
  const auto near = [](double got, double expected) {
    EXPECT_NEAR(got, expected, 1e-13 * std::fabs(expected)) << "expected " << expected;
  };
  near(regularized_incomplete_beta(2.5, 4.5, 0.3), 0.40653901668245924935);
  near(regularized_incomplete_beta(150, 9, 0.93), 0.21702266190887749786);
  near(regularized_incomplete_beta(1001, 1, 0.999), 0.36732772934619275368);
  near(regularized_incomplete_beta(5000, 2.5, 0.999), 0.075051171386571701062);
  near(regularized_incomplete_beta(0.5, 0.5, 1e-6), 0.00063661987847092446978);
  near(regularized_incomplete_beta(9, 5000, 0.001), 0.068518944409728610274);
  near(regularized_incomplete_beta(40, 60, 0.35), 0.15345812249917357449);
  near(inverse_regularized_incomplete_beta(150, 5000, 0.5), 0.029065276384612663912);
  near(inverse_regularized_incomplete_beta(3, 686, 0.025), 0.00090013703138083080896);
  near(inverse_regularized_incomplete_beta(686, 3, 0.975), 0.9990998629686191689);
  near(inverse_regularized_incomplete_beta(2.5, 4.5, 0.05), 0.10427052332745365858);
  near(student_t_quantile(0.95, 687), 1.6470746436689827965);
  near(student_t_quantile(0.975, 3.5), 2.9400886379827288125);
  near(student_t_quantile(0.9999, 1), 3183.0987571185014745);  // tan(pi (p - 1/2))
  near(student_t_quantile(0.995, 23), 2.8073356837699986167);
  near(student_t_cdf(1.6, 687), 0.94497083838009398452);
  near(student_t_cdf(-2.5, 3.5), 0.037847321904745039519);
  near(student_t_cdf(0.7, 30), 0.755339778250164233);
  near(binomial_cdf(2500, 5000, 0.5), 0.50564161374773992179);
  near(binomial_cdf(320, 688, 0.5), 0.036539380079572230435);
  near(binomial_cdf(3, 40, 0.01), 0.99931439357299054662);
  near(binomial_cdf(200, 688, 0.3), 0.31327686659501078113);
  // By symmetry, exactly one half.
  near(regularized_incomplete_beta(5000, 5000, 0.5), 0.5);
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
