#include "loop/optimize_switches.h"

#include <gtest/gtest.h>

namespace headway::loop {
namespace {

TEST(OptimizeSwitches, TheFullLoopHasNothingSwitchedOff) {
  const OptimizeOptions options;
  EXPECT_TRUE(options.static_cost_screen);
  EXPECT_TRUE(options.racing);
  EXPECT_TRUE(options.floor_guidance);
  EXPECT_TRUE(options.isa_gating);
  EXPECT_TRUE(options.slow_designs);
  EXPECT_TRUE(options.rule_lint);
  EXPECT_TRUE(options.cheat_sheet);
  EXPECT_EQ(options.acceptance.rule, statistics::RuleKind::kBetting);
  EXPECT_EQ(switched_off(options), "");
}

TEST(OptimizeSwitches, KnowledgeSwitchesOffItsFivePartsAndIsNamedForThemAll) {
  OptimizeOptions options;
  ASSERT_TRUE(switch_off("knowledge", &options).ok());
  EXPECT_FALSE(options.floor_guidance);
  EXPECT_FALSE(options.isa_gating);
  EXPECT_FALSE(options.slow_designs);
  EXPECT_FALSE(options.rule_lint);
  EXPECT_FALSE(options.cheat_sheet);
  EXPECT_TRUE(options.racing);
  EXPECT_TRUE(options.static_cost_screen);
  EXPECT_EQ(switched_off(options), "knowledge");
  ASSERT_TRUE(switch_off("racing", &options).ok());
  EXPECT_EQ(switched_off(options), "knowledge,racing");
  // Some of the group: each by its own name.
  OptimizeOptions some;
  ASSERT_TRUE(switch_off("cheat-sheet,floor-guidance", &some).ok());
  EXPECT_FALSE(some.floor_guidance);
  EXPECT_TRUE(some.isa_gating);
  EXPECT_TRUE(some.slow_designs);
  EXPECT_TRUE(some.rule_lint);
  EXPECT_FALSE(some.cheat_sheet);
  EXPECT_EQ(switched_off(some), "floor-guidance,cheat-sheet");
  // The group's parts one by one name the group.
  OptimizeOptions each;
  ASSERT_TRUE(
      switch_off("floor-guidance,isa-gating,slow-designs,rule-lint,cheat-sheet", &each).ok());
  EXPECT_EQ(switched_off(each), "knowledge");
}

TEST(OptimizeSwitches, EachNamedPartIsSwitchedOffAndNamedBack) {
  OptimizeOptions options;
  ASSERT_TRUE(switch_off("racing", &options).ok());
  EXPECT_FALSE(options.racing);
  EXPECT_TRUE(options.static_cost_screen);
  EXPECT_EQ(switched_off(options), "racing");
  ASSERT_TRUE(switch_off(" racing , static-cost-screen ", &options).ok());
  EXPECT_FALSE(options.static_cost_screen);
  EXPECT_EQ(switched_off(options), "static-cost-screen,racing");
  OptimizeOptions again;
  ASSERT_TRUE(switch_off(switched_off(options), &again).ok());
  EXPECT_EQ(switched_off(again), switched_off(options));
  EXPECT_EQ(switchable_parts(),
            (std::vector<std::string>{"knowledge", "floor-guidance", "isa-gating", "slow-designs",
                                      "rule-lint", "cheat-sheet", "static-cost-screen", "racing"}));
}

TEST(OptimizeSwitches, AnEmptyListSwitchesOffNothing) {
  OptimizeOptions options;
  ASSERT_TRUE(switch_off("", &options).ok());
  ASSERT_TRUE(switch_off(" , ,", &options).ok());
  EXPECT_EQ(switched_off(options), "");
}

TEST(OptimizeSwitches, AnUnknownPartIsAnErrorThatChangesNothing) {
  OptimizeOptions options;
  const Status s = switch_off("racing,screening", &options);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("'screening'"), std::string::npos) << s.error().message;
  EXPECT_NE(s.error().message.find("knowledge, floor-guidance"), std::string::npos);
  EXPECT_NE(s.error().message.find("static-cost-screen, racing"), std::string::npos);
  EXPECT_TRUE(options.racing) << "the valid name before it is not applied either";
}

}  // namespace
}  // namespace headway::loop
