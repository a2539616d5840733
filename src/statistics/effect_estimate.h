#pragma once
// The effect of a decision: the median of d as a percent change of the candidate's time, with a
// distribution-free confidence interval for the median (the sign-test / order-statistic interval).
#include <span>
#include <string>

#include "statistics/outcome.h"

namespace headway::statistics {

// Percent change of the candidate's time for a log ratio d: 100 * (exp(d) - 1).
// Negative means the candidate is faster.
double log_ratio_to_percent(double d);

struct EffectEstimate {
  int n = 0;
  double median_pct = 0.0;  // 100 * (exp(median d) - 1)
  double lower_pct = 0.0;   // interval for the median, same units
  double upper_pct = 0.0;
  // The interval's exact coverage: 1 - 2 P(Bin(n, 1/2) < k) for the order statistics
  // [d_(k), d_(n+1-k)]; k is the largest with coverage >= the requested confidence, or 1 (the
  // range, coverage below the request) when n is too small (n <= 5 at 95%).
  double coverage = 0.0;
};

// Requires d non-empty and 0 < confidence < 1 (throws std::invalid_argument otherwise). Valid for
// any continuous distribution of d when the d's are independent; NOT corrected for optional
// stopping (see early_stop_note).
EffectEstimate estimate_effect(std::span<const double> d, double confidence = 0.95);

// The caveat to print next to the estimate of a sequential test that ended with `outcome` after
// `pairs` of at most `cap` pairs; empty when the test ran to the cap.
std::string early_stop_note(Outcome outcome, int pairs, int cap);

}  // namespace headway::statistics
