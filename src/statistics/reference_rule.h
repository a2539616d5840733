#pragma once
// The seed system's rule, kept as a reference to compare against: fixed alternating order
// (pair 0 head first, pair 1 candidate first, ...: ABBA ABBA), a one-sided paired t-test on d at
// alpha looked at after 5 and after 11 pairs; FASTER when significant with the candidate faster at
// any look, else INCONCLUSIVE at the last look. It has no SLOWER and no SAME, and its
// false-FASTER rate exceeds alpha (several looks; fixed order).
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "common/result.h"
#include "statistics/decision_rule.h"

namespace headway::statistics {

struct ReferenceConfig {
  double alpha = 0.05;            // one-sided, per look; in (0, 1)
  std::vector<int> looks{5, 11};  // strictly increasing, first >= 2
};

// nullopt when valid, else a one-line message.
Status validate(const ReferenceConfig& config);

// mean(d) / (sd(d) / sqrt(n)) with the sample sd; requires n >= 2 (throws std::invalid_argument).
// When sd = 0: -inf, 0 or +inf by the sign of the mean.
double paired_t_statistic(std::span<const double> d);

class ReferenceRule final : public DecisionRule {
 public:
  // Requires validate(config).ok(); throws std::invalid_argument otherwise.
  explicit ReferenceRule(ReferenceConfig config);
  // Head first on even pairs, candidate first on odd pairs; never draws from `coin`.
  Arm first_arm(int pair_index, Rng& coin) override;
  // At a look with n pairs: FASTER when t <= -t_{1-alpha, n-1}; INCONCLUSIVE at the last look.
  std::optional<Outcome> observe(double d) override;
  int max_pairs() const override { return config_.looks.back(); }
  int pairs() const { return static_cast<int>(d_.size()); }

 private:
  ReferenceConfig config_;
  std::vector<double> critical_;  // t_{1-alpha, look-1} per look
  std::vector<double> d_;
  std::optional<Outcome> outcome_;
};

}  // namespace headway::statistics
