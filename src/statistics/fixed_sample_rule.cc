#include "statistics/fixed_sample_rule.h"

#include <fmt/format.h>

#include <cmath>
#include <numeric>
#include <stdexcept>

namespace headway::statistics {

Status validate(const FixedSampleConfig& c) {
  if (c.pairs < 1) return invalid_input(fmt::format("pairs must be 1 or more, got {}", c.pairs));
  if (!(c.margin_pct >= 0.0 && c.margin_pct < 100.0)) {
    return invalid_input(
        fmt::format("the margin must be in [0, 100) percent, got {}", c.margin_pct));
  }
  return {};
}

FixedSampleRule::FixedSampleRule(const FixedSampleConfig& config) : config_(config) {
  if (auto valid = validate(config); !valid) throw std::invalid_argument(valid.error().message);
}

Arm FixedSampleRule::first_arm(int /*pair_index*/, Rng& coin) {
  return coin.coin() ? Arm::kCandidate : Arm::kHead;
}

std::optional<Outcome> FixedSampleRule::observe(double d) {
  if (outcome_) throw std::logic_error("FixedSampleRule::observe after the test decided");
  if (!std::isfinite(d)) throw std::invalid_argument("FixedSampleRule::observe: d is not finite");
  d_.push_back(d);
  if (static_cast<int>(d_.size()) < config_.pairs) return std::nullopt;
  const double mean = std::accumulate(d_.begin(), d_.end(), 0.0) / static_cast<double>(d_.size());
  const double ratio = std::exp(mean);
  const double margin = config_.margin_pct / 100.0;
  if (margin > 0.0 ? ratio <= 1.0 - margin : ratio < 1.0) {
    outcome_ = Outcome::kFaster;
  } else if (margin > 0.0 ? ratio >= 1.0 + margin : ratio > 1.0) {
    outcome_ = Outcome::kSlower;
  } else {
    outcome_ = Outcome::kSame;
  }
  return outcome_;
}

}  // namespace headway::statistics
