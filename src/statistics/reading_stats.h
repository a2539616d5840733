#pragma once
// Checks on logged readings: the head's noise, in-pair correlation, autocorrelation of d,
// sign balance and the effect of running first. A statistic that its data cannot define
// (too few readings, zero variance) is NaN.
#include <cstdint>
#include <limits>
#include <map>
#include <span>
#include <vector>

#include "statistics/reading.h"

namespace headway::statistics {

struct ReadingStats {
  static constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
  int64_t decisions = 0;
  int64_t pairs = 0;  // complete pairs (one head and one candidate reading)
  // Median over decisions with >= 2 head readings of the head's sample sd / mean (a fraction).
  double head_cv = kNaN;
  // Correlation of ln t_head with ln t_candidate over pairs, after subtracting each decision's
  // own means (decisions with >= 2 pairs). Var(d) = 2 sigma^2 (1 - rho).
  double in_pair_rho = kNaN;
  // Lag-1 autocorrelation of d between consecutive pairs of a decision, around the mean of all
  // d's (all decisions are taken to share one true effect, as in a calibration run).
  double lag1_autocorr = kNaN;
  double candidate_first_fraction = kNaN;  // of pairs
  double d_negative_fraction = kNaN;       // of pairs
  // 100 * (exp(mean over pairs of ln t_second - ln t_first) - 1): the cost of running second;
  // with a balanced order the true effect cancels out of it.
  double second_vs_first_pct = kNaN;
};

class ReadingStatsAccumulator {
 public:
  // Adds the readings of one decision, in any order; readings are paired by pair_index, and a
  // pair without exactly one head and one candidate reading is skipped.
  void add_decision(std::span<const Reading> readings);
  ReadingStats result() const;

 private:
  int64_t decisions_ = 0;
  std::vector<double> head_cvs_;
  // ln-time covariance pooled over decisions
  double sxx_ = 0.0, syy_ = 0.0, sxy_ = 0.0;
  // d sums for the lag-1 autocorrelation
  int64_t n_ = 0, lag_n_ = 0;
  double sum_d_ = 0.0, sum_d2_ = 0.0, lag_sum_ = 0.0, lag_cross_ = 0.0;
  int64_t candidate_first_ = 0, d_negative_ = 0;
  double sum_second_minus_first_ = 0.0;
};

// Groups readings by (kernel, node, test_id) and accumulates each group as one decision.
ReadingStats summarize_readings(std::span<const Reading> readings);

// d = ln t_candidate - ln t_head of every complete pair, per test_id, in pair_index order: the
// input for replaying a decision rule (decide_recorded) on logged readings.
std::map<int64_t, std::vector<double>> log_ratios_by_test(std::span<const Reading> readings);

}  // namespace headway::statistics
