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

TEST(SimLandscape, TheStaticCostFollowsTheTimeWithinTheCostModelsError) {
  for (const char* params : {"#define P_T 4\n", "#define P_T 1\n", "#define P_T 32\n", ""}) {
    const SimModel m = simulate_source(std::string(params) + "sim-x 0.5\nsim-best P_T 4 0.5\n");
    EXPECT_GE(m.static_cost / m.time_factor, 0.93) << params;
    EXPECT_LT(m.static_cost / m.time_factor, 1.07) << params;
  }
  // The error is the source's own: two texts of the same time get different costs.
  EXPECT_NE(simulate_source("sim-x 0.5\n").static_cost,
            simulate_source("sim-x  0.5\n").static_cost);
}

TEST(SimLandscape, SimCostLinesMakeTheStaticCostMislead) {
  const std::string design =
      "sim-x 0.5\nsim-cost 0.9\nsim-best P_T 4 0.5\nsim-best P_U 4 0.5\nsim-cost-best P_T 1 1\n";
  const SimModel best = simulate_source("#define P_T 4\n#define P_U 4\n" + design);
  const SimModel first = simulate_source("#define P_T 1\n#define P_U 4\n" + design);
  EXPECT_DOUBLE_EQ(best.time_factor, 0.5);
  EXPECT_DOUBLE_EQ(first.time_factor, 0.5 * 2.0);
  // The cost model: 0.9 instead of 0.5, P_T best at 1 with 1 a step, P_U as it truly is.
  EXPECT_NEAR(best.static_cost, 0.9 * 3.0, 0.07 * 0.9 * 3.0);
  EXPECT_NEAR(first.static_cost, 0.9, 0.07 * 0.9);
  EXPECT_LT(first.static_cost, best.static_cost) << "the model ranks them the wrong way round";
  const SimModel off = simulate_source("#define P_T 1\n#define P_U 1\n" + design);
  EXPECT_NEAR(off.static_cost / first.static_cost, 2.0, 0.3) << "P_U's penalty is the true one";
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
