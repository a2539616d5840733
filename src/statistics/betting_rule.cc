#include "statistics/betting_rule.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "common/stats.h"

namespace headway::statistics {
namespace {

double clip1(double x) { return std::clamp(x, -1.0, 1.0); }

// log of the mean over lambdas of exp(log_wealth).
double log_mean_wealth(const std::array<double, kBettingLambdas.size()>& log_wealth) {
  const double m = *std::max_element(log_wealth.begin(), log_wealth.end());
  double sum = 0.0;
  for (double lw : log_wealth) sum += std::exp(lw - m);
  return m + std::log(sum / static_cast<double>(log_wealth.size()));
}

}  // namespace

Status validate(const BettingConfig& c) {
  if (!(c.alpha > 0.0 && c.alpha < 1.0)) {
    return invalid_input(fmt::format("alpha must be in (0, 1), got {}", c.alpha));
  }
  if (!(c.alpha_e > 0.0 && c.alpha_e < 1.0)) {
    return invalid_input(fmt::format("alpha_e must be in (0, 1), got {}", c.alpha_e));
  }
  if (c.cap < 2)
    return invalid_input(fmt::format("the pair cap must be at least 2, got {}", c.cap));
  if (!(c.s0 > 0.0) || !std::isfinite(c.s0)) {
    return invalid_input(fmt::format("s0 must be positive and finite, got {}", c.s0));
  }
  if (!(c.delta_e > 0.0) || !std::isfinite(c.delta_e)) {
    return invalid_input(fmt::format("delta_e must be positive and finite, got {}", c.delta_e));
  }
  return {};
}

double s0_for_cv(double cv) { return std::sqrt(2.0) * cv; }

BettingRule::BettingRule(const BettingConfig& config) : config_(config) {
  if (auto valid = validate(config); !valid) throw std::invalid_argument(valid.error().message);
  d_.reserve(static_cast<size_t>(std::min(config.cap, 1024)));
}

Arm BettingRule::first_arm(int /*pair_index*/, Rng& coin) {
  return coin.coin() ? Arm::kCandidate : Arm::kHead;
}

std::optional<Outcome> BettingRule::observe(double d) {
  if (outcome_) throw std::logic_error("BettingRule::observe after the test decided");
  if (!std::isfinite(d)) throw std::invalid_argument("BettingRule::observe: d is not finite");
  const double s0 = scale();
  const double g = clip1(d / s0);
  const std::array<double, 4> x{-g, g, clip1((d + config_.delta_e) / s0),
                                clip1((config_.delta_e - d) / s0)};
  for (size_t p = 0; p < x.size(); ++p) {
    for (size_t j = 0; j < kBettingLambdas.size(); ++j) {
      log_wealth_[p][j] += std::log1p(kBettingLambdas[j] * x[p]);
    }
  }
  d_.push_back(d);
  const double log_bar = -std::log(config_.alpha);
  const double log_bar_e = -std::log(config_.alpha_e);
  if (log_mean_wealth(log_wealth_[0]) >= log_bar) {
    outcome_ = Outcome::kFaster;
  } else if (log_mean_wealth(log_wealth_[1]) >= log_bar) {
    outcome_ = Outcome::kSlower;
  } else if (log_mean_wealth(log_wealth_[2]) >= log_bar_e &&
             log_mean_wealth(log_wealth_[3]) >= log_bar_e) {
    outcome_ = Outcome::kSame;
  } else if (pairs() >= config_.cap || !decidable_by_cap()) {
    outcome_ = Outcome::kInconclusive;
  }
  return outcome_;
}

double BettingRule::scale() const {
  const size_t n = d_.size();
  if (!config_.adapt_s0 || n < static_cast<size_t>(kAdaptAfterPairs)) return config_.s0;
  const double center = median(d_);
  std::vector<double> deviations(n);
  for (size_t i = 0; i < n; ++i) deviations[i] = std::fabs(d_[i] - center);
  const double spread = kNormalSdPerMad * median(deviations);
  if (!(spread > 0.0)) return config_.s0;  // the d's so far are all alike: nothing to learn yet
  const double w = static_cast<double>(n);
  return std::exp((kPriorWeightPairs * std::log(config_.s0) + w * std::log(spread)) /
                  (kPriorWeightPairs + w));
}

bool BettingRule::decidable_by_cap() const {
  // Each pair multiplies a bet's wealth by at most 1 + lambda (x is clipped to [-1, 1]).
  const int left = config_.cap - pairs();
  const auto best = [&](size_t process) {
    std::array<double, kBettingLambdas.size()> most{};
    for (size_t j = 0; j < most.size(); ++j) {
      most[j] = log_wealth_[process][j] + left * std::log1p(kBettingLambdas[j]);
    }
    return log_mean_wealth(most);
  };
  // A hair below the bars, so that rounding never stops a test that could still decide.
  constexpr double kSlack = 1e-9;
  const double bar = -std::log(config_.alpha) - kSlack;
  const double bar_e = -std::log(config_.alpha_e) - kSlack;
  return best(0) >= bar || best(1) >= bar || (best(2) >= bar_e && best(3) >= bar_e);
}

std::string BettingRule::state() const {
  const BettingWealth w = wealth();
  const bool faster_leads = w.faster >= w.slower;
  return fmt::format("{} wealth {:.2g} of {:.3g}, {} {:.2g}", faster_leads ? "FASTER" : "SLOWER",
                     faster_leads ? w.faster : w.slower, 1.0 / config_.alpha,
                     faster_leads ? "SLOWER" : "FASTER", faster_leads ? w.slower : w.faster);
}

BettingWealth BettingRule::wealth() const {
  return BettingWealth{
      std::exp(log_mean_wealth(log_wealth_[0])), std::exp(log_mean_wealth(log_wealth_[1])),
      std::exp(log_mean_wealth(log_wealth_[2])), std::exp(log_mean_wealth(log_wealth_[3]))};
}

Result<BettingDecision> decide_recorded(const BettingConfig& config, std::span<const double> d) {
  if (auto valid = validate(config); !valid) return valid.error();
  BettingRule rule(config);
  BettingDecision decision;
  for (double value : d) {
    if (!std::isfinite(value)) {
      return invalid_input(fmt::format("d of pair {} is not finite", rule.pairs()));
    }
    decision.outcome = rule.observe(value);
    if (decision.outcome) break;
  }
  decision.pairs = rule.pairs();
  decision.wealth = rule.wealth();
  if (decision.pairs > 0) decision.effect = estimate_effect(rule.d());
  if (decision.outcome) {
    decision.note = early_stop_note(*decision.outcome, rule.pairs(), config.cap);
  }
  return decision;
}

nlohmann::json to_json(const BettingConfig& config) {
  return {{"s0", config.s0},           {"alpha", config.alpha}, {"alpha_e", config.alpha_e},
          {"delta_e", config.delta_e}, {"cap", config.cap},     {"adapt_s0", config.adapt_s0}};
}

Result<BettingConfig> betting_config_from_json(const nlohmann::json& object) {
  if (!object.is_object()) return invalid_input("a betting config must be a JSON object");
  BettingConfig config;
  for (const auto& [key, field] :
       {std::pair{"s0", &config.s0}, std::pair{"alpha", &config.alpha},
        std::pair{"alpha_e", &config.alpha_e}, std::pair{"delta_e", &config.delta_e}}) {
    if (!object.contains(key) || !object[key].is_number()) {
      return invalid_input(fmt::format("betting config: '{}' is missing or not a number", key));
    }
    *field = object[key].get<double>();
  }
  if (!object.contains("cap") || !object["cap"].is_number_integer()) {
    return invalid_input("betting config: 'cap' is missing or not an integer");
  }
  config.cap = object["cap"].get<int>();
  if (object.contains("adapt_s0")) {
    if (!object["adapt_s0"].is_boolean())
      return invalid_input("betting config: 'adapt_s0' is not a boolean");
    config.adapt_s0 = object["adapt_s0"].get<bool>();
  }
  if (auto valid = validate(config); !valid)
    return invalid_input("betting config: " + valid.error().message);
  return config;
}

Result<std::vector<BettingWealth>> wealth_path(const BettingConfig& config,
                                               std::span<const double> d) {
  if (auto valid = validate(config); !valid) return valid.error();
  BettingRule rule(config);
  std::vector<BettingWealth> path;
  for (double value : d) {
    if (!std::isfinite(value)) {
      return invalid_input(fmt::format("d of pair {} is not finite", rule.pairs()));
    }
    const bool decided = rule.observe(value).has_value();
    path.push_back(rule.wealth());
    if (decided) break;
  }
  return path;
}

}  // namespace headway::statistics
