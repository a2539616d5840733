// Ties broken by one core's readings, on the loop tests' target: its `:host=shared` lets it time
// on one core, where a candidate's `one-core: F` line multiplies its time.
#include "targets/one_core_ties.h"

#include <gtest/gtest.h>

#include <limits>

#include "targets/testing/loop_test_target_test_support.h"

namespace headway::targets {
namespace {

struct TieArms {
  std::unique_ptr<Target> target;
  std::vector<Artifact> artifacts;
};

TieArms tie_arms(const std::string& spec, const std::vector<std::string>& sources) {
  TieArms a{testing::make_loop_test_target(spec), {}};
  for (const auto& s : sources) {
    const BuildOutcome b = a.target->build(s, "/nonexistent");
    EXPECT_TRUE(b.built()) << b.diagnostics;
    a.artifacts.push_back(b.artifact);
  }
  return a;
}

const KernelContract& attn_out_contract() { return *builtin_kernel("attn_out"); }

TEST(OneCoreTies, TheArmsTiedWithTheFastestAreReadOnOneCore) {
  auto a = tie_arms(
      "test-1:host=shared",
      {"time: 0.50\none-core: 3\n", "time: 0.52\none-core: 1.5\n", "time: 0.60\none-core: 0.5\n"});
  const auto ties = time_ties_on_one_core(*a.target, attn_out_contract(), a.artifacts, {0, 1, 2},
                                          {0.50, 0.52, 0.60}, 5.0, 5, 1);
  ASSERT_TRUE(ties);
  EXPECT_EQ(ties->tied, (std::vector<int>{0, 1})) << "the third is 20% behind: not tied";
  ASSERT_EQ(ties->seconds.size(), 2u);
  EXPECT_NEAR(ties->seconds[0] / ties->seconds[1], (0.50 * 3) / (0.52 * 1.5), 0.1);
  EXPECT_EQ(fastest_on_one_core(*ties), 1);
  // The target times on all its cores again.
  const auto all = a.target->time_side_by_side(attn_out_contract(), {a.artifacts[0]}, 3, 2);
  ASSERT_TRUE(all[0].ok()) << all[0].failure;
  EXPECT_NEAR(all[0].median_seconds / ties->seconds[0], 1.0 / 3, 0.05);
}

TEST(OneCoreTies, NoneWithoutTwoTiedArmsOrOneCoreReadings) {
  const std::vector<std::string> two = {"time: 0.50\none-core: 3\n", "time: 0.51\n"};
  auto shared = tie_arms("test-1:host=shared", two);
  EXPECT_FALSE(time_ties_on_one_core(*shared.target, attn_out_contract(), shared.artifacts, {0, 1},
                                     {0.50, 0.60}, 5.0, 5, 1))
      << "20% apart";
  EXPECT_FALSE(time_ties_on_one_core(*shared.target, attn_out_contract(), shared.artifacts, {0, 1},
                                     {0.50, std::numeric_limits<double>::infinity()}, 5.0, 5, 1))
      << "an arm that broke a rule";
  auto device = tie_arms("test-1", two);
  EXPECT_FALSE(time_ties_on_one_core(*device.target, attn_out_contract(), device.artifacts, {0, 1},
                                     {0.50, 0.51}, 5.0, 5, 1))
      << "a target that does not time on this machine's cores";
}

}  // namespace
}  // namespace headway::targets
