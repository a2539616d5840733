#include "statistics/special_functions.h"

#include <boost/math/distributions/binomial.hpp>
#include <boost/math/distributions/students_t.hpp>
#include <boost/math/special_functions/beta.hpp>
#include <cmath>
#include <stdexcept>

// The functions are Boost.Math's (header-only, libboost-math-dev) with its default policy; the
// arguments are checked here first, so that a bad one is the std::invalid_argument the header
// promises rather than Boost's std::domain_error.

namespace headway::statistics {

double regularized_incomplete_beta(double a, double b, double x) {
  if (!(a > 0.0) || !(b > 0.0) || !(x >= 0.0 && x <= 1.0)) {
    throw std::invalid_argument("regularized_incomplete_beta: need a > 0, b > 0, 0 <= x <= 1");
  }
  return boost::math::ibeta(a, b, x);
}

double inverse_regularized_incomplete_beta(double a, double b, double p) {
  if (!(a > 0.0) || !(b > 0.0) || !(p >= 0.0 && p <= 1.0)) {
    throw std::invalid_argument(
        "inverse_regularized_incomplete_beta: need a > 0, b > 0, 0 <= p <= 1");
  }
  if (p == 0.0) return 0.0;
  if (p == 1.0) return 1.0;
  return boost::math::ibeta_inv(a, b, p);
}

double student_t_cdf(double t, double nu) {
  if (!(nu > 0.0) || std::isnan(t)) throw std::invalid_argument("student_t_cdf: need nu > 0");
  if (std::isinf(t)) return t > 0 ? 1.0 : 0.0;
  return boost::math::cdf(boost::math::students_t_distribution<double>(nu), t);
}

double student_t_quantile(double p, double nu) {
  if (!(nu > 0.0) || !(p > 0.0 && p < 1.0)) {
    throw std::invalid_argument("student_t_quantile: need 0 < p < 1, nu > 0");
  }
  if (p == 0.5) return 0.0;
  return boost::math::quantile(boost::math::students_t_distribution<double>(nu), p);
}

double binomial_cdf(int64_t k, int64_t n, double p) {
  if (n < 0 || !(p >= 0.0 && p <= 1.0)) {
    throw std::invalid_argument("binomial_cdf: need n >= 0, 0 <= p <= 1");
  }
  if (k < 0) return 0.0;
  if (k >= n) return 1.0;
  return boost::math::cdf(boost::math::binomial_distribution<double>(static_cast<double>(n), p),
                          static_cast<double>(k));
}

}  // namespace headway::statistics
