// Candidates tied with a race's winner (loop/proposals.h, kTiedInRace) in the optimize loop,
// in-process on the tests' target timing on this machine's shared cores.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "loop/proposals.h"
#include "loop/scripted_run_test_support.h"
#include "store/test_temp_dir.h"
#include "targets/registry/test_targets.h"
#include "trees/decision_log.h"
#include "trees/design_tree.h"

namespace headway::loop {
namespace {

using trees::NodeStatus;

struct TiedRun {
  store::TestTempDir dir;
  store::Workspace ws = store::Workspace::create(dir.path()).value();
  std::unique_ptr<targets::Target> target = targets::make_test_target("test-1:host=shared");
  std::vector<Progress> progress;

  void run(std::vector<std::string> sources) {
    run_scripted(ws, *target, std::move(sources), &progress, 0.0);
  }
  trees::DesignTree tree() { return trees::DesignTree::open(ws, "attn_out").value(); }
  trees::Node node(const std::string& design) {
    for (auto& n : tree().nodes())
      if (n.design == design) return n;
    throw std::runtime_error("no node " + design);
  }
  bool tested(int64_t node_id) {
    auto t = tree();
    for (const auto& test : trees::DecisionLog(t).tests())
      if (test.candidate_node == node_id && test.outcome) return true;
    return false;
  }
  bool saw(int64_t node_id, const std::string& stage) {
    for (const auto& p : progress)
      if (p.node == node_id && p.stage == stage) return true;
    return false;
  }
};

// The loser of a tie is not raced out: after the kernel's other candidates it is decided again,
// here alone, so by an acceptance test against the head of that moment. One clearly behind is
// raced out at once.
TEST(TiedCandidates, ALoserTiedWithTheWinnerIsDecidedAgainAfterTheOthers) {
  TiedRun r;
  r.run({"time: 0.50\none-core: 3\n", "time: 0.52\none-core: 1.5\n", "time: 0.9\n"});
  const auto wide = r.node("scripted0"), lean = r.node("scripted1"), behind = r.node("scripted2");
  EXPECT_EQ(r.tree().head_history().at(1).node_id, lean.id)
      << "the tie is broken by one core: the lean design is tested first";
  EXPECT_TRUE(r.saw(wide.id, "tied: raced again later"));
  EXPECT_TRUE(r.tested(wide.id)) << "decided by a test in a later round";
  EXPECT_NE(wide.status, NodeStatus::kProposed);
  EXPECT_NE(wide.status, NodeStatus::kRacedOut);
  EXPECT_EQ(behind.status, NodeStatus::kRacedOut);
  EXPECT_FALSE(r.saw(behind.id, "tied: raced again later"));
  EXPECT_TRUE(r.tree().node(behind.id)->reason.starts_with("lost the race")) << behind.reason;
}

// Tied again in its second race, a candidate is raced out for good, its reason naming both races.
TEST(TiedCandidates, ACandidateTiedTwiceIsRacedOut) {
  TiedRun r;
  r.run(
      {"time: 0.50\none-core: 3\n", "time: 0.505\none-core: 3.2\n", "time: 0.52\none-core: 1.5\n"});
  const auto first = r.node("scripted0"), second = r.node("scripted1"), lean = r.node("scripted2");
  EXPECT_EQ(r.tree().head_history().at(1).node_id, lean.id);
  EXPECT_TRUE(r.saw(first.id, "tied: raced again later"));
  EXPECT_TRUE(r.saw(second.id, "tied: raced again later"));
  EXPECT_TRUE(r.tested(first.id)) << "the winner of the second race";
  EXPECT_EQ(second.status, NodeStatus::kRacedOut);
  EXPECT_NE(second.reason.find("tied in race"), std::string::npos) << second.reason;
  auto tree = r.tree();
  EXPECT_TRUE(tied_nodes(tree).empty());
}

}  // namespace
}  // namespace headway::loop
