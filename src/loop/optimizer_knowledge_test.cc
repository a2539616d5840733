// The optimize loop with its knowledge switched off (OptimizeOptions::floor_guidance, rule_lint;
// `headway optimize --without knowledge`), in-process on the loop's test target.
#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "knowledge/workspace_target.h"
#include "loop/library_proposer.h"
#include "loop/loop_test_target_test_support.h"
#include "loop/optimizer.h"
#include "loop/scripted_run_test_support.h"
#include "store/test_temp_dir.h"
#include "trees/design_tree.h"

namespace headway::loop {
namespace {

struct KnowledgeRun {
  store::TestTempDir dir;
  store::Workspace ws = store::Workspace::create(dir.path()).value();
  std::unique_ptr<targets::Target> target = testing::make_loop_test_target();
  std::vector<std::string> proposed_for;  // the kernel of each round, in order

  OptimizeSummary run(bool floor_guidance, double done_within_floor = 1.10) {
    knowledge::set_workspace_target_name(ws, testing::kLoopTestTargetName);
    OptimizeOptions options;
    options.kernels = {"qkv", "attn_out", "ffn"};
    options.done_within_floor = done_within_floor;
    options.floor_guidance = floor_guidance;
    options.target = target.get();
    LibraryProposer proposer(*target);
    return optimize(ws, proposer, options, [this](const Progress& p) {
      if (p.stage == "propose") proposed_for.push_back(p.kernel);
    });
  }
};

// With floors, ffn (the most bytes, so the most milliseconds above its floor) comes first; without,
// the kernels take turns in the order given.
TEST(OptimizeWithoutKnowledge, WithoutFloorGuidanceRoundsGoToTheKernelsInTurn) {
  KnowledgeRun guided;
  guided.run(true);
  ASSERT_FALSE(guided.proposed_for.empty());
  EXPECT_EQ(guided.proposed_for.front(), "ffn");
  KnowledgeRun in_turn;
  in_turn.run(false);
  ASSERT_GE(in_turn.proposed_for.size(), 3u);
  EXPECT_EQ(
      std::vector<std::string>(in_turn.proposed_for.begin(), in_turn.proposed_for.begin() + 3),
      (std::vector<std::string>{"qkv", "attn_out", "ffn"}));
}

TEST(OptimizeWithoutKnowledge, WithoutFloorGuidanceAKernelNearItsFloorIsNotLeftAlone) {
  KnowledgeRun guided;
  const auto left_alone = guided.run(true, 7.0);  // every baseline is 6x its floor
  EXPECT_EQ(left_alone.proposed, 0);
  EXPECT_EQ(left_alone.near_floor.size(), 3u);
  KnowledgeRun blind;
  const auto tried = blind.run(false, 7.0);
  EXPECT_GT(tried.proposed, 0);
  EXPECT_TRUE(tried.near_floor.empty());
}

// The lint hook rejects everything; without the rule lint it is never asked.
TEST(OptimizeWithoutKnowledge, WithoutTheRuleLintNoCandidateIsLinted) {
  for (const bool rule_lint : {true, false}) {
    store::TestTempDir dir;
    auto ws = store::Workspace::create(dir.path()).value();
    auto target = testing::make_loop_test_target();
    int asked = 0;
    const auto summary =
        run_scripted(ws, *target, {"time: 0.5\n"}, nullptr, 1.10, [&](OptimizeOptions& o) {
          o.rule_lint = rule_lint;
          o.lint = [&asked](const std::string&) -> std::optional<std::string> {
            ++asked;
            return "a learned rule forbids it";
          };
        });
    auto tree = trees::DesignTree::open(ws, "attn_out").value();
    const auto linted = tree.count_by_status().at(trees::NodeStatus::kLintRejected);
    EXPECT_EQ(asked, rule_lint ? 1 : 0) << rule_lint;
    EXPECT_EQ(linted, rule_lint ? 1 : 0) << rule_lint;
    EXPECT_EQ(summary.accepted, rule_lint ? 0 : 1) << rule_lint;
  }
}

}  // namespace
}  // namespace headway::loop
