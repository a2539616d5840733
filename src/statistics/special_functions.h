#pragma once
// Special functions behind the t-test, the Clopper-Pearson interval and the sign-test interval,
// computed by Boost.Math. All throw std::invalid_argument when an argument is outside the stated
// domain. Checked against high-precision values to 1e-13, relatively (special_functions_test.cc).
#include <cstdint>

namespace headway::statistics {

// I_x(a, b), the regularized incomplete beta function; requires a > 0, b > 0, 0 <= x <= 1.
double regularized_incomplete_beta(double a, double b, double x);

// The x in [0, 1] with I_x(a, b) = p; requires a > 0, b > 0, 0 <= p <= 1.
double inverse_regularized_incomplete_beta(double a, double b, double p);

// P(T <= t) for Student's t with nu > 0 degrees of freedom.
double student_t_cdf(double t, double nu);

// The t with P(T <= t) = p; requires 0 < p < 1, nu > 0.
double student_t_quantile(double p, double nu);

// P(X <= k) for X ~ Binomial(n, p); requires n >= 0, 0 <= p <= 1. k may be any integer.
double binomial_cdf(int64_t k, int64_t n, double p);

}  // namespace headway::statistics
