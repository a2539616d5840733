#pragma once
// Exact (Clopper-Pearson) binomial confidence bounds for k successes in n trials.
// All require n >= 1, 0 <= k <= n, 0 < confidence < 1, and throw std::invalid_argument otherwise.
#include <cstdint>

namespace headway::statistics {

struct Interval {
  double lower = 0.0;
  double upper = 0.0;
};

// Two-sided interval at `confidence`: each tail holds at most (1 - confidence) / 2.
// lower = 0 when k = 0, upper = 1 when k = n.
Interval clopper_pearson(int64_t k, int64_t n, double confidence = 0.95);

// One-sided upper bound at `confidence`: the p with P(Bin(n, p) <= k) = 1 - confidence, i.e. the
// beta quantile B^-1(confidence; k + 1, n - k); 1 when k = n. This is the `upper95` of reports:
// 8 of 300 gives 0.0476 <= 5%, while the two-sided 95% upper bound is 0.0519.
double clopper_pearson_upper(int64_t k, int64_t n, double confidence = 0.95);

}  // namespace headway::statistics
