#include "statistics/effect_estimate.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "statistics/special_functions.h"

namespace headway::statistics {

double log_ratio_to_percent(double d) { return 100.0 * std::expm1(d); }

EffectEstimate estimate_effect(std::span<const double> d, double confidence) {
  if (d.empty()) throw std::invalid_argument("estimate_effect: no pairs");
  if (!(confidence > 0.0 && confidence < 1.0)) {
    throw std::invalid_argument("estimate_effect: need 0 < confidence < 1");
  }
  std::vector<double> sorted(d.begin(), d.end());
  std::sort(sorted.begin(), sorted.end());
  const int n = static_cast<int>(sorted.size());
  const double median = n % 2 == 1 ? sorted[n / 2] : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);
  int k = 1;
  for (int candidate = 1; candidate <= (n + 1) / 2; ++candidate) {
    if (1.0 - 2.0 * binomial_cdf(candidate - 1, n, 0.5) >= confidence) k = candidate;
  }
  EffectEstimate e;
  e.n = n;
  e.median_pct = log_ratio_to_percent(median);
  e.lower_pct = log_ratio_to_percent(sorted[k - 1]);
  e.upper_pct = log_ratio_to_percent(sorted[n - k]);
  e.coverage = 1.0 - 2.0 * binomial_cdf(k - 1, n, 0.5);
  return e;
}

std::string early_stop_note(Outcome outcome, int pairs, int cap) {
  if (pairs >= cap) return "";
  if (outcome == Outcome::kInconclusive) {
    return fmt::format("stopped at pair {}: no outcome was reachable by pair {}", pairs, cap);
  }
  if (outcome == Outcome::kSame) {
    return fmt::format("stopped early at pair {}: the estimate is biased toward zero", pairs);
  }
  return fmt::format("stopped early at pair {}: the estimate is biased away from zero", pairs);
}

}  // namespace headway::statistics
