#pragma once
// The rules tuners without a statistical test use, kept to measure what the betting rule buys
// (headway ablate): a fixed number of pairs, then the candidate's geometric-mean time ratio
// r = exp(mean of the pairs' d = ln t_candidate - ln t_head) against a fixed margin.
//   threshold (margin 3%): FASTER when r <= 0.97, SLOWER when r >= 1.03, else SAME.
//   lowest mean (margin 0, Kernel Tuner's choice of the lower mean of 7 runs): FASTER when
//     r < 1, SLOWER when r > 1, SAME only when equal.
// Neither bounds its false FASTER rate: with noise larger than the margin, an A/A test decides
// FASTER up to half the time.
#include <optional>
#include <vector>

#include "common/result.h"
#include "statistics/decision_rule.h"

namespace headway::statistics {

struct FixedSampleConfig {
  int pairs = 7;            // >= 1
  double margin_pct = 3.0;  // >= 0 and < 100
};

// nullopt when valid, else a one-line message naming the field and its allowed range.
Status validate(const FixedSampleConfig& config);

class FixedSampleRule final : public DecisionRule {
 public:
  // Requires validate(config).ok(); throws std::invalid_argument with its message otherwise.
  explicit FixedSampleRule(const FixedSampleConfig& config);
  // A fair coin flip per pair, as the betting rule, so that only the decision differs.
  Arm first_arm(int pair_index, Rng& coin) override;
  // Requires a finite d (throws std::invalid_argument) and no earlier outcome (std::logic_error).
  // Decides at the config.pairs-th pair, never before.
  std::optional<Outcome> observe(double d) override;
  int max_pairs() const override { return config_.pairs; }

 private:
  FixedSampleConfig config_;
  std::vector<double> d_;
  std::optional<Outcome> outcome_;
};

}  // namespace headway::statistics
