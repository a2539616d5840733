#include "statistics/reference_rule.h"

#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <stdexcept>

#include "statistics/special_functions.h"

namespace headway::statistics {

Status validate(const ReferenceConfig& c) {
  if (!(c.alpha > 0.0 && c.alpha < 1.0)) {
    return invalid_input(fmt::format("alpha must be in (0, 1), got {}", c.alpha));
  }
  if (c.looks.empty()) return invalid_input("the reference rule needs at least one look");
  if (c.looks.front() < 2) return invalid_input("the first look must be at 2 pairs or more");
  for (size_t i = 1; i < c.looks.size(); ++i) {
    if (c.looks[i] <= c.looks[i - 1]) return invalid_input("looks must be strictly increasing");
  }
  return {};
}

double paired_t_statistic(std::span<const double> d) {
  if (d.size() < 2) throw std::invalid_argument("paired_t_statistic: need at least 2 pairs");
  const double n = static_cast<double>(d.size());
  double mean = 0.0;
  for (double v : d) mean += v;
  mean /= n;
  double ss = 0.0;
  for (double v : d) ss += (v - mean) * (v - mean);
  const double sd = std::sqrt(ss / (n - 1.0));
  if (sd == 0.0) {
    if (mean == 0.0) return 0.0;
    return mean < 0.0 ? -std::numeric_limits<double>::infinity()
                      : std::numeric_limits<double>::infinity();
  }
  return mean / (sd / std::sqrt(n));
}

ReferenceRule::ReferenceRule(ReferenceConfig config) : config_(std::move(config)) {
  if (auto valid = validate(config_); !valid) throw std::invalid_argument(valid.error().message);
  for (int look : config_.looks) {
    critical_.push_back(student_t_quantile(1.0 - config_.alpha, look - 1));
  }
}

Arm ReferenceRule::first_arm(int pair_index, Rng& /*coin*/) {
  return pair_index % 2 == 0 ? Arm::kHead : Arm::kCandidate;
}

std::optional<Outcome> ReferenceRule::observe(double d) {
  if (outcome_) throw std::logic_error("ReferenceRule::observe after the test decided");
  if (!std::isfinite(d)) throw std::invalid_argument("ReferenceRule::observe: d is not finite");
  d_.push_back(d);
  for (size_t i = 0; i < config_.looks.size(); ++i) {
    if (config_.looks[i] != pairs()) continue;
    if (paired_t_statistic(d_) <= -critical_[i]) {
      outcome_ = Outcome::kFaster;
    } else if (i + 1 == config_.looks.size()) {
      outcome_ = Outcome::kInconclusive;
    }
  }
  return outcome_;
}

}  // namespace headway::statistics
