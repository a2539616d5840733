#include "loop/optimize_switches.h"

#include <gtest/gtest.h>

namespace headway::loop {
namespace {

TEST(OptimizeSwitches, TheFullLoopHasNothingSwitchedOff) {
  const OptimizeOptions options;
  EXPECT_TRUE(options.static_cost_screen);
  EXPECT_TRUE(options.racing);
  EXPECT_EQ(options.acceptance_rule, statistics::RuleKind::kBetting);
  EXPECT_EQ(switched_off(options), "");
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
  EXPECT_EQ(switchable_parts(), (std::vector<std::string>{"static-cost-screen", "racing"}));
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
  EXPECT_NE(s.error().message.find("static-cost-screen, racing"), std::string::npos);
  EXPECT_TRUE(options.racing) << "the valid name before it is not applied either";
}

}  // namespace
}  // namespace headway::loop
