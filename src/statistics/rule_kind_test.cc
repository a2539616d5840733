#include "statistics/rule_kind.h"

#include <gtest/gtest.h>

#include <map>

namespace headway::statistics {
namespace {

TEST(RuleKind, EveryNameParsesBackToItsKind) {
  for (RuleKind kind : kAllRuleKinds) {
    const auto parsed = parse_rule_kind(to_string(kind));
    ASSERT_TRUE(parsed.ok()) << to_string(kind);
    EXPECT_EQ(parsed.value(), kind);
    EXPECT_FALSE(describe(kind).empty());
  }
  const auto unknown = parse_rule_kind("t-test");
  ASSERT_FALSE(unknown.ok());
  for (const char* name : {"'t-test'", "betting", "reference", "threshold", "lowest-mean"})
    EXPECT_NE(unknown.error().message.find(name), std::string::npos) << name;
  EXPECT_FALSE(parse_rule_kind("").ok());
  EXPECT_FALSE(parse_rule_kind("Betting").ok());
}

TEST(RuleKind, EachFactoryMakesAFreshRuleOfItsKind) {
  RuleSettings settings;
  settings.s0 = 0.01;
  settings.cap = 30;
  const std::map<RuleKind, int> max_pairs{{RuleKind::kBetting, 30},
                                          {RuleKind::kReference, 11},
                                          {RuleKind::kThreshold, 7},
                                          {RuleKind::kLowestMean, 7}};
  for (const auto& [kind, pairs] : max_pairs) {
    settings.kind = kind;
    const auto factory = rule_factory(settings);
    ASSERT_TRUE(factory.ok()) << to_string(kind);
    auto first = factory.value()();
    auto second = factory.value()();
    EXPECT_EQ(first->max_pairs(), pairs) << to_string(kind);
    // Deciding one leaves the other undecided.
    std::optional<Outcome> outcome;
    for (int i = 0; i < first->max_pairs() && !outcome; ++i) outcome = first->observe(-0.2);
    EXPECT_EQ(outcome, Outcome::kFaster) << to_string(kind);
    EXPECT_EQ(second->observe(-0.2), std::nullopt) << to_string(kind);
  }
}

TEST(RuleKind, OnlyBettingTakesAPriorScaleAndItsSettingsAreChecked) {
  EXPECT_TRUE(takes_s0(RuleKind::kBetting));
  for (RuleKind kind : {RuleKind::kReference, RuleKind::kThreshold, RuleKind::kLowestMean})
    EXPECT_FALSE(takes_s0(kind)) << to_string(kind);
  RuleSettings settings;  // s0 0: not valid for betting
  EXPECT_FALSE(rule_factory(settings).ok());
  settings.kind = RuleKind::kThreshold;
  EXPECT_TRUE(rule_factory(settings).ok()) << "s0 is not the threshold's";
  settings.kind = RuleKind::kReference;
  settings.alpha = 1.5;
  EXPECT_FALSE(rule_factory(settings).ok());
}

TEST(RuleKind, TheStoredConfigNamesTheRuleAndKeepsBettingsPrior) {
  RuleSettings settings;
  settings.s0 = 0.02;
  const auto betting = rule_config_json(settings);
  EXPECT_EQ(betting["rule"], "betting");
  EXPECT_EQ(betting["s0"], 0.02);
  settings.kind = RuleKind::kThreshold;
  const auto threshold = rule_config_json(settings);
  EXPECT_EQ(threshold["rule"], "threshold");
  EXPECT_EQ(threshold["pairs"], 7);
  EXPECT_EQ(threshold["margin_pct"], 3.0);
  EXPECT_FALSE(threshold.contains("s0"));
  settings.kind = RuleKind::kReference;
  EXPECT_EQ(rule_config_json(settings)["looks"], nlohmann::json({5, 11}));
}

}  // namespace
}  // namespace headway::statistics
