#pragma once
// The rules an acceptance test can decide by, by name, and a factory of fresh rules of one kind:
//   betting      the default; its false FASTER and SLOWER rates are bounded by alpha
//                (statistics/betting_rule.h)
//   reference    the seed loop's paired t-test, looked at after 5 and 11 pairs in a fixed order
//                (statistics/reference_rule.h)
//   threshold    7 pairs, FASTER beyond a fixed 3% margin (statistics/fixed_sample_rule.h)
//   lowest-mean  7 pairs, the lower geometric mean wins (statistics/fixed_sample_rule.h)
// The last three are kept to measure what the first buys (`headway ablate`, `headway calibrate`).
#include <array>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string_view>

#include "common/result.h"
#include "statistics/decision_rule.h"

namespace headway::statistics {

enum class RuleKind { kBetting, kReference, kThreshold, kLowestMean };
inline constexpr std::array<RuleKind, 4> kAllRuleKinds{RuleKind::kBetting, RuleKind::kReference,
                                                       RuleKind::kThreshold, RuleKind::kLowestMean};

std::string_view to_string(RuleKind kind);
// The inverse of to_string; the error lists every name.
Result<RuleKind> parse_rule_kind(std::string_view name);

// One line on how the rule decides, for help texts and headers (betting's settings aside).
std::string_view describe(RuleKind kind);

// Whether the rule scales its pairs by a prior s0 (only betting), which a test estimates first.
bool takes_s0(RuleKind kind);

// A fresh, undecided rule per call.
using RuleFactory = std::function<std::unique_ptr<DecisionRule>()>;

struct RuleSettings {
  RuleKind kind = RuleKind::kBetting;
  double alpha = 0.05;    // betting: FASTER/SLOWER level; reference: per look; others: unused
  int cap = 24;           // betting only
  double s0 = 0.0;        // betting only; > 0
  bool adapt_s0 = false;  // betting only (BettingConfig::adapt_s0)
};

// An error names the setting out of range.
Result<RuleFactory> rule_factory(const RuleSettings& settings);
// What a decision stores of its rule: the kind's config (for betting, to_json(BettingConfig),
// which holds s0) with "rule": the kind's name.
nlohmann::json rule_config_json(const RuleSettings& settings);

}  // namespace headway::statistics
