#include "statistics/clopper_pearson.h"

#include <stdexcept>

#include "statistics/special_functions.h"

namespace headway::statistics {
namespace {

void check(int64_t k, int64_t n, double confidence) {
  if (n < 1 || k < 0 || k > n || !(confidence > 0.0 && confidence < 1.0)) {
    throw std::invalid_argument("clopper_pearson: need n >= 1, 0 <= k <= n, 0 < confidence < 1");
  }
}

double upper_bound(int64_t k, int64_t n, double tail) {
  if (k == n) return 1.0;
  return inverse_regularized_incomplete_beta(static_cast<double>(k + 1), static_cast<double>(n - k),
                                             1.0 - tail);
}

double lower_bound(int64_t k, int64_t n, double tail) {
  if (k == 0) return 0.0;
  return inverse_regularized_incomplete_beta(static_cast<double>(k), static_cast<double>(n - k + 1),
                                             tail);
}

}  // namespace

Interval clopper_pearson(int64_t k, int64_t n, double confidence) {
  check(k, n, confidence);
  const double tail = 0.5 * (1.0 - confidence);
  return Interval{lower_bound(k, n, tail), upper_bound(k, n, tail)};
}

double clopper_pearson_upper(int64_t k, int64_t n, double confidence) {
  check(k, n, confidence);
  return upper_bound(k, n, 1.0 - confidence);
}

}  // namespace headway::statistics
