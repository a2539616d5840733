#include "statistics/rule_kind.h"

#include <fmt/format.h>

#include "statistics/betting_rule.h"
#include "statistics/fixed_sample_rule.h"
#include "statistics/reference_rule.h"

namespace headway::statistics {

namespace {

constexpr int kFixedPairs = 7;
constexpr double kThresholdPct = 3.0;

FixedSampleConfig fixed_sample_config(RuleKind kind) {
  return {kFixedPairs, kind == RuleKind::kThreshold ? kThresholdPct : 0.0};
}

BettingConfig betting_config(const RuleSettings& s) {
  BettingConfig c;
  c.s0 = s.s0;
  c.alpha = s.alpha;
  c.cap = s.cap;
  c.adapt_s0 = s.adapt_s0;
  return c;
}

ReferenceConfig reference_config(const RuleSettings& s) {
  ReferenceConfig c;
  c.alpha = s.alpha;
  return c;
}

}  // namespace

std::string_view to_string(RuleKind kind) {
  switch (kind) {
    case RuleKind::kBetting:
      return "betting";
    case RuleKind::kReference:
      return "reference";
    case RuleKind::kThreshold:
      return "threshold";
    case RuleKind::kLowestMean:
      return "lowest-mean";
  }
  return "?";
}

Result<RuleKind> parse_rule_kind(std::string_view name) {
  for (RuleKind kind : kAllRuleKinds) {
    if (name == to_string(kind)) return kind;
  }
  return invalid_input(fmt::format(
      "unknown acceptance rule '{}' (valid: betting, reference, threshold, lowest-mean)", name));
}

std::string_view describe(RuleKind kind) {
  switch (kind) {
    case RuleKind::kBetting:
      return "betting on each pair in random order, FASTER or SLOWER each at most alpha when false";
    case RuleKind::kReference:
      return "a one-sided paired t-test looked at after 5 and 11 pairs, fixed ABBA order";
    case RuleKind::kThreshold:
      return "7 pairs in random order, FASTER or SLOWER beyond a 3% geometric-mean margin";
    case RuleKind::kLowestMean:
      return "7 pairs in random order, the lower geometric mean wins";
  }
  return "?";
}

bool takes_s0(RuleKind kind) { return kind == RuleKind::kBetting; }

Result<RuleFactory> rule_factory(const RuleSettings& settings) {
  switch (settings.kind) {
    case RuleKind::kBetting: {
      const BettingConfig c = betting_config(settings);
      if (auto valid = validate(c); !valid) return valid.error();
      return RuleFactory([c] { return std::make_unique<BettingRule>(c); });
    }
    case RuleKind::kReference: {
      const ReferenceConfig c = reference_config(settings);
      if (auto valid = validate(c); !valid) return valid.error();
      return RuleFactory([c] { return std::make_unique<ReferenceRule>(c); });
    }
    case RuleKind::kThreshold:
    case RuleKind::kLowestMean: {
      const FixedSampleConfig c = fixed_sample_config(settings.kind);
      return RuleFactory([c] { return std::make_unique<FixedSampleRule>(c); });
    }
  }
  return invalid_input("unknown acceptance rule");
}

nlohmann::json rule_config_json(const RuleSettings& settings) {
  nlohmann::json j;
  switch (settings.kind) {
    case RuleKind::kBetting:
      j = to_json(betting_config(settings));
      break;
    case RuleKind::kReference:
      j = {{"alpha", settings.alpha}, {"looks", reference_config(settings).looks}};
      break;
    case RuleKind::kThreshold:
    case RuleKind::kLowestMean: {
      const FixedSampleConfig c = fixed_sample_config(settings.kind);
      j = {{"pairs", c.pairs}, {"margin_pct", c.margin_pct}};
      break;
    }
  }
  j["rule"] = std::string(to_string(settings.kind));
  return j;
}

}  // namespace headway::statistics
