#include "targets/sim/sim_landscape.h"

#include <gtest/gtest.h>

namespace headway::sim {
namespace {

TEST(SimLandscape, TextWithoutDirectivesIsCorrectWithAFactorFromItsHash) {
  const SimModel a = simulate_source("int main() {}\n");
  EXPECT_EQ(a.behaviour, SimModel::Behaviour::kCorrect);
  EXPECT_FALSE(a.build_error);
  EXPECT_GE(a.time_factor, 0.8);
  EXPECT_LT(a.time_factor, 1.2);
  EXPECT_EQ(simulate_source("int main() {}\n").time_factor, a.time_factor);
  EXPECT_NE(simulate_source("int main() { }\n").time_factor, a.time_factor);
}

TEST(SimLandscape, ParametersMoveTheTimeAroundTheirBestValue) {
  const std::string design = "sim-x 0.5\nsim-best P_T 4 0.5\n";
  EXPECT_DOUBLE_EQ(simulate_source("#define P_T 4\n" + design).time_factor, 0.5);
  EXPECT_DOUBLE_EQ(simulate_source("#define P_T 2\n" + design).time_factor, 0.75);
  EXPECT_DOUBLE_EQ(simulate_source("#define P_T 16\n" + design).time_factor, 1.0);
  EXPECT_EQ(simulate_source("#define P_T 16\n" + design).params.at("P_T"), 16);
  // A parameter the source does not define costs nothing.
  EXPECT_DOUBLE_EQ(simulate_source(design).time_factor, 0.5);
}

TEST(SimLandscape, BuildErrorsAndFailuresFollowTheirConditions) {
  const SimModel broken = simulate_source("x\nsim-build-error 'foo' was not declared\n");
  ASSERT_TRUE(broken.build_error);
  EXPECT_EQ(*broken.build_error, "candidate.sim:2:1: error: 'foo' was not declared\n");
  const std::string wrong = "sim-wrong when P_C=32\nsim-crash when P_C=64\nsim-hang when P_C=128\n";
  EXPECT_EQ(simulate_source("#define P_C 16\n" + wrong).behaviour, SimModel::Behaviour::kCorrect);
  EXPECT_EQ(simulate_source("#define P_C 32\n" + wrong).behaviour, SimModel::Behaviour::kWrong);
  EXPECT_EQ(simulate_source("#define P_C 64\n" + wrong).behaviour, SimModel::Behaviour::kCrash);
  EXPECT_EQ(simulate_source("#define P_C 128\n" + wrong).behaviour, SimModel::Behaviour::kHang);
  EXPECT_EQ(simulate_source("sim-wrong\n").behaviour, SimModel::Behaviour::kWrong);
  EXPECT_FALSE(simulate_source("sim-build-error x when P_C=1\n").build_error);
  EXPECT_EQ(to_string(SimModel::Behaviour::kHang), "hang");
}

TEST(SimLandscape, ACheatPassesItsCheckButIsMarkedAsCheating) {
  const SimModel cheat = simulate_source("sim-x 0.2\nsim-cheat\n");
  EXPECT_TRUE(cheat.cheats);
  EXPECT_EQ(cheat.behaviour, SimModel::Behaviour::kCorrect);
  EXPECT_DOUBLE_EQ(cheat.time_factor, 0.2);
  EXPECT_FALSE(simulate_source("sim-x 0.2\n").cheats);
  EXPECT_FALSE(simulate_source("#define P_C 1\nsim-cheat when P_C=2\n").cheats);
  EXPECT_TRUE(simulate_source("#define P_C 2\nsim-cheat when P_C=2\n").cheats);
}

}  // namespace
}  // namespace headway::sim
