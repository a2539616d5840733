#include "statistics/special_functions.h"

#include <cmath>
#include <limits>
#include <stdexcept>

namespace headway::statistics {
namespace {

double beta_continued_fraction(double a, double b, double x) {
  constexpr double kTiny = 1e-300;
  constexpr double kEps = 1e-16;
  const double qab = a + b;
  const double qap = a + 1.0;
  const double qam = a - 1.0;
  double c = 1.0;
  double d = 1.0 - qab * x / qap;
  if (std::fabs(d) < kTiny) d = kTiny;
  d = 1.0 / d;
  double h = d;
  for (int m = 1; m <= 10000; ++m) {
    const double md = m;
    const double m2 = 2.0 * md;
    double aa = md * (b - md) * x / ((qam + m2) * (a + m2));
    d = 1.0 + aa * d;
    if (std::fabs(d) < kTiny) d = kTiny;
    c = 1.0 + aa / c;
    if (std::fabs(c) < kTiny) c = kTiny;
    d = 1.0 / d;
    h *= d * c;
    aa = -(a + md) * (qab + md) * x / ((a + m2) * (qap + m2));
    d = 1.0 + aa * d;
    if (std::fabs(d) < kTiny) d = kTiny;
    c = 1.0 + aa / c;
    if (std::fabs(c) < kTiny) c = kTiny;
    d = 1.0 / d;
    const double del = d * c;
    h *= del;
    if (std::fabs(del - 1.0) < kEps) break;
  }
  return h;
}

}  // namespace

double regularized_incomplete_beta(double a, double b, double x) {
  if (!(a > 0.0) || !(b > 0.0) || !(x >= 0.0 && x <= 1.0)) {
    throw std::invalid_argument("regularized_incomplete_beta: need a > 0, b > 0, 0 <= x <= 1");
  }
  if (x == 0.0) return 0.0;
  if (x == 1.0) return 1.0;
  const double log_front =
      std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) + a * std::log(x) + b * std::log1p(-x);
  const double front = std::exp(log_front);
  if (x < (a + 1.0) / (a + b + 2.0)) return front * beta_continued_fraction(a, b, x) / a;
  return 1.0 - front * beta_continued_fraction(b, a, 1.0 - x) / b;
}

double inverse_regularized_incomplete_beta(double a, double b, double p) {
  if (!(a > 0.0) || !(b > 0.0) || !(p >= 0.0 && p <= 1.0)) {
    throw std::invalid_argument(
        "inverse_regularized_incomplete_beta: need a > 0, b > 0, 0 <= p <= 1");
  }
  if (p == 0.0) return 0.0;
  if (p == 1.0) return 1.0;
  double lo = 0.0;
  double hi = 1.0;
  for (int i = 0; i < 2000; ++i) {
    const double mid = 0.5 * (lo + hi);
    if (mid <= lo || mid >= hi) break;
    if (regularized_incomplete_beta(a, b, mid) < p) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  return 0.5 * (lo + hi);
}

double student_t_cdf(double t, double nu) {
  if (!(nu > 0.0) || std::isnan(t)) throw std::invalid_argument("student_t_cdf: need nu > 0");
  if (std::isinf(t)) return t > 0 ? 1.0 : 0.0;
  const double x = nu / (nu + t * t);
  const double tail = 0.5 * regularized_incomplete_beta(0.5 * nu, 0.5, x);
  return t > 0.0 ? 1.0 - tail : tail;
}

double student_t_quantile(double p, double nu) {
  if (!(nu > 0.0) || !(p > 0.0 && p < 1.0)) {
    throw std::invalid_argument("student_t_quantile: need 0 < p < 1, nu > 0");
  }
  if (p == 0.5) return 0.0;
  if (p < 0.5) return -student_t_quantile(1.0 - p, nu);
  const double x = inverse_regularized_incomplete_beta(0.5 * nu, 0.5, 2.0 * (1.0 - p));
  return std::sqrt(nu * (1.0 - x) / x);
}

double binomial_cdf(int64_t k, int64_t n, double p) {
  if (n < 0 || !(p >= 0.0 && p <= 1.0)) {
    throw std::invalid_argument("binomial_cdf: need n >= 0, 0 <= p <= 1");
  }
  if (k < 0) return 0.0;
  if (k >= n) return 1.0;
  return regularized_incomplete_beta(static_cast<double>(n - k), static_cast<double>(k + 1),
                                     1.0 - p);
}

}  // namespace headway::statistics
