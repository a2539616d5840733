#pragma once
// The acceptance test by betting (docs/STATISTICS.md): after each pair, four wealth processes
// decide FASTER, SLOWER or SAME; INCONCLUSIVE at the pair cap. With the order of each pair drawn
// by a fair coin, P(FASTER | no true gain) <= alpha whatever the noise (Ville's inequality), and
// likewise for SLOWER.
#include <array>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "common/result.h"
#include "statistics/decision_rule.h"
#include "statistics/effect_estimate.h"

namespace headway::statistics {

// Each wealth is the average over these bets of prod_i (1 + lambda * x_i).
inline constexpr std::array<double, 4> kBettingLambdas{0.25, 0.5, 0.75, 0.9};

struct BettingConfig {
  double s0 = 0.0;        // scale of d (log ratio); sqrt(2) * head CV is a good choice; > 0
  double alpha = 0.05;    // FASTER and SLOWER each at most this often when false; in (0, 1)
  double alpha_e = 0.10;  // SAME (equivalence within +-delta_e); in (0, 1)
  double delta_e = 0.01;  // equivalence margin as a log ratio (0.01 ~ 1%); > 0
  int cap = 24;           // INCONCLUSIVE after this many pairs; >= 2
  // false: every pair is scaled by s0. true: s0 is a prior (a warm-up's estimate) that the
  // test's own pairs update (BettingRule::scale). Either keeps the guarantee: the scale of a pair
  // depends only on the pairs before it.
  bool adapt_s0 = false;
};

// With adapt_s0, the pairs a test needs before its own spread enters the scale, and the weight of
// the prior in pairs (BettingRule::scale).
inline constexpr int kAdaptAfterPairs = 3;
inline constexpr double kPriorWeightPairs = 4.0;

// nullopt when valid, else a one-line message naming the field and its allowed range.
Status validate(const BettingConfig& config);

// The s0 for a head CV given as a fraction: sqrt(2) * cv, the standard deviation of d when the
// two readings of a pair are independent.
double s0_for_cv(double cv);

struct BettingWealth {
  double faster = 1.0;      // x_i = -clip(d_i / s0)
  double slower = 1.0;      // x_i = +clip(d_i / s0)
  double same_lower = 1.0;  // x_i = clip((d_i + delta_e) / s0): evidence against d <= -delta_e
  double same_upper = 1.0;  // x_i = clip((delta_e - d_i) / s0): evidence against d >= +delta_e
};

class BettingRule final : public DecisionRule {
 public:
  // Requires validate(config).ok(); throws std::invalid_argument with its message otherwise.
  explicit BettingRule(const BettingConfig& config);

  // A fair coin flip per pair: true puts the candidate first.
  Arm first_arm(int pair_index, Rng& coin) override;
  // Requires a finite d (throws std::invalid_argument) and no earlier outcome. Checks, in this
  // order: FASTER when wealth.faster >= 1/alpha; SLOWER when wealth.slower >= 1/alpha; SAME when
  // both equivalence wealths >= 1/alpha_e; INCONCLUSIVE when cap pairs are in, or earlier when
  // no outcome can be reached by the cap whatever the pairs left bring (each can multiply a
  // bet's wealth by 1 + lambda at most): the outcome is the one the full test would give, in
  // fewer pairs.
  std::optional<Outcome> observe(double d) override;
  int max_pairs() const override { return config_.cap; }
  // "FASTER wealth W of 1/alpha, SLOWER wealth W": the larger of the two directions first.
  std::string state() const override;
  // The scale of the next pair's d. config.s0 without adapt_s0 or before kAdaptAfterPairs pairs;
  // after n pairs, the geometric mean of s0 (weight kPriorWeightPairs) and the pairs' own robust
  // spread, 1.4826 x the median absolute deviation of their d's from its median (weight n), so a
  // warm-up taken in a noisier or a quieter minute than the test's is outweighed within a few
  // pairs. The spread ignores the effect (it is measured around the median), so a true effect
  // does not shrink the bets that detect it.
  double scale() const;

  const BettingConfig& config() const { return config_; }
  BettingWealth wealth() const;
  int pairs() const { return static_cast<int>(d_.size()); }
  std::optional<Outcome> outcome() const { return outcome_; }
  const std::vector<double>& d() const { return d_; }

 private:
  // False when no continuation up to the cap can reach any outcome's bar.
  bool decidable_by_cap() const;
  BettingConfig config_;
  // log of prod (1 + lambda x) per process (faster, slower, same_lower, same_upper) and lambda.
  std::array<std::array<double, kBettingLambdas.size()>, 4> log_wealth_{};
  std::vector<double> d_;
  std::optional<Outcome> outcome_;
};

struct BettingDecision {
  std::optional<Outcome> outcome;  // nullopt when the d's ran out before a decision
  int pairs = 0;                   // d's consumed
  BettingWealth wealth;
  std::optional<EffectEstimate> effect;  // absent when pairs == 0
  std::string note;                      // early_stop_note when the test stopped before the cap
};

// Feeds recorded d's, in order, until the test decides; the rest are ignored. An error when the
// config is invalid or a d is not finite.
Result<BettingDecision> decide_recorded(const BettingConfig& config, std::span<const double> d);

// {"s0", "alpha", "alpha_e", "delta_e", "cap", "adapt_s0"}.
nlohmann::json to_json(const BettingConfig& config);
// The inverse of to_json; an error names the first missing or mistyped key, or (validate) the
// first field out of range. "adapt_s0" may be absent (a test recorded before it existed): false.
Result<BettingConfig> betting_config_from_json(const nlohmann::json& object);

// The wealth after each pair of recorded d's, in order, until the test decides (the rest are
// ignored): element i is the wealth after pair i + 1. An error when the config is invalid or a d
// is not finite.
Result<std::vector<BettingWealth>> wealth_path(const BettingConfig& config,
                                               std::span<const double> d);

}  // namespace headway::statistics
