// The optimize loop with its knowledge switched off (OptimizeOptions::floor_guidance, rule_lint;
// `headway optimize --without knowledge`) and with a beam of heads (OptimizeOptions::beam),
// in-process on the tests' target.
#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "knowledge/workspace_target.h"
#include "loop/library_proposer.h"
#include "loop/optimizer.h"
#include "loop/scripted_run_test_support.h"
#include "store/test_temp_dir.h"
#include "targets/registry/test_targets.h"
#include "trees/design_tree.h"

namespace headway::loop {
namespace {

struct KnowledgeRun {
  store::TestTempDir dir;
  store::Workspace ws = store::Workspace::create(dir.path()).value();
  std::unique_ptr<targets::Target> target = targets::make_test_target();
  std::vector<std::string> proposed_for;  // the kernel of each round, in order

  OptimizeSummary run(bool floor_guidance, double done_within_floor = 1.10) {
    knowledge::set_workspace_target_name(ws, target->name());
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
    auto target = targets::make_test_target();
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

namespace headway::loop {
namespace {

// Records the node each round's proposals vary (ProposalContext::head_source), then proposes
// from the library.
class ParentRecordingProposer final : public Proposer {
 public:
  explicit ParentRecordingProposer(const targets::Target& target) : library_(target) {}
  std::string name() const override { return "library"; }
  std::vector<Proposal> propose(const ProposalContext& ctx) override {
    varied.push_back(ctx.head_source);
    return library_.propose(ctx);
  }
  std::vector<std::string> varied;

 private:
  LibraryProposer library_;
};

// With one head every round varies a head of the moment; with a beam of 3 some rounds vary a
// design that never was head, and the head still changes only through acceptance tests.
TEST(OptimizeWithABeam, RoundsVaryTheBeamsDesignsInTurnAndOnlyTestsMoveTheHead) {
  for (const int beam : {1, 3}) {
    store::TestTempDir dir;
    auto ws = store::Workspace::create(dir.path()).value();
    auto target = targets::make_test_target();
    knowledge::set_workspace_target_name(ws, target->name());
    OptimizeOptions options;
    options.kernels = {"attn_out"};
    options.target = target.get();
    options.beam = beam;
    ParentRecordingProposer proposer(*target);
    const auto summary = optimize(ws, proposer, options, [](const Progress&) {});
    auto tree = trees::DesignTree::open(ws, "attn_out").value();
    std::set<std::string> head_sources;
    for (const auto& h : tree.head_history()) head_sources.insert(*tree.source(h.node_id));
    const auto not_heads =
        std::count_if(proposer.varied.begin(), proposer.varied.end(),
                      [&](const std::string& s) { return !head_sources.count(s); });
    if (beam == 1) {
      EXPECT_EQ(not_heads, 0);
    } else {
      EXPECT_GT(not_heads, 0) << "a runner-up's turn";
    }
    EXPECT_EQ(static_cast<int>(tree.head_history().size()), 1 + summary.accepted) << beam;
    EXPECT_FALSE(summary.budget_spent) << "the library runs out either way";
  }
}

}  // namespace
}  // namespace headway::loop
