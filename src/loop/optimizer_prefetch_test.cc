// The optimize loop asks a proposer that works in the background for the next round's
// proposals while the device times the current round, keeps every one of them, and has them
// built on the build target meanwhile where the device is not the host.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "knowledge/workspace_target.h"
#include "loop/library_proposer.h"
#include "loop/optimizer.h"
#include "store/test_temp_dir.h"
#include "targets/registry/test_targets.h"
#include "trees/design_tree.h"

namespace headway::loop {
namespace {

using trees::NodeStatus;

// The test target's design library, presented as a proposer that works in the background or not:
// begin() records what the loop last reported and whether it may prebuild, and prebuilds what it
// proposes when it may.
class RecordingProposer final : public Proposer {
 public:
  RecordingProposer(const targets::Target& target, bool background,
                    const std::vector<Progress>& progress)
      : library_(target), background_(background), progress_(progress) {}
  std::string name() const override { return "library"; }
  std::vector<Proposal> propose(const ProposalContext& ctx) override {
    return library_.propose(ctx);
  }
  bool works_in_background() const override { return background_; }
  std::unique_ptr<PendingProposals> begin(const ProposalContext& ctx) override {
    last_stage.push_back(progress_.empty() ? "" : progress_.back().stage);
    could_prebuild.push_back(static_cast<bool>(ctx.prebuild));
    auto proposals = library_.propose(ctx);
    if (ctx.prebuild) {
      for (const auto& p : proposals) {
        ctx.prebuild(p.source);
        prebuilt.push_back(p.source);
      }
    }
    return ready_proposals(std::move(proposals));
  }
  std::vector<std::string> last_stage;  // per begin(): the loop's last reported stage
  std::vector<bool> could_prebuild;     // per begin(): ctx.prebuild was set
  std::vector<std::string> prebuilt;    // the sources handed to ctx.prebuild

 private:
  LibraryProposer library_;
  bool background_;
  const std::vector<Progress>& progress_;
};

struct PrefetchRun {
  store::TestTempDir dir;
  store::Workspace ws = store::Workspace::create(dir.path()).value();
  std::unique_ptr<targets::Target> target = targets::make_test_target();
  std::unique_ptr<targets::Target> build_target = targets::make_test_target();
  std::vector<Progress> progress;

  OptimizeSummary run(RecordingProposer& proposer, bool with_build_target) {
    knowledge::set_workspace_target_name(ws, target->name());
    OptimizeOptions options;
    options.kernels = {"attn_out", "qkv"};
    options.target = target.get();
    if (with_build_target) options.build_target = build_target.get();
    return optimize(ws, proposer, options, [this](const Progress& p) { progress.push_back(p); });
  }
  // Nodes besides the baseline, and those still proposed, over the run's kernels.
  int candidates() {
    int n = 0;
    for (const char* k : {"attn_out", "qkv"}) {
      n += static_cast<int>(trees::DesignTree::open(ws, k).value().nodes().size()) - 1;
    }
    return n;
  }
  int64_t still_proposed() {
    int64_t n = 0;
    for (const char* k : {"attn_out", "qkv"})
      n += trees::DesignTree::open(ws, k).value().count_by_status().at(NodeStatus::kProposed);
    return n;
  }
};

int asked_while_timing(const RecordingProposer& p) {
  int n = 0;
  for (const auto& stage : p.last_stage) n += stage != "propose";
  return n;
}

TEST(OptimizePrefetch, ABackgroundProposerIsAskedForTheNextRoundWhileTheDeviceTimes) {
  PrefetchRun r;
  RecordingProposer proposer(*r.target, /*background=*/true, r.progress);
  const OptimizeSummary summary = r.run(proposer, /*with_build_target=*/false);
  EXPECT_FALSE(summary.budget_spent) << "the test library runs out first";
  EXPECT_GE(summary.accepted, 1);
  // Asked right after a round's screening, before its race or acceptance test: the loop's last
  // report then is a screened candidate, not "propose".
  // Every round that timed something asked ahead, but perhaps the last (nothing left to ask for).
  EXPECT_GE(summary.tests, 2);
  EXPECT_GE(asked_while_timing(proposer), summary.tests - 1);
  // Nothing asked ahead is lost or left undecided.
  EXPECT_EQ(summary.proposed, r.candidates());
  EXPECT_EQ(r.still_proposed(), 0);
  for (const bool b : proposer.could_prebuild) EXPECT_FALSE(b) << "no build target given";
}

TEST(OptimizePrefetch, AProposerThatWorksInTheForegroundIsAskedOnlyWhenTheRoundNeedsIt) {
  PrefetchRun r;
  RecordingProposer proposer(*r.target, /*background=*/false, r.progress);
  const OptimizeSummary summary = r.run(proposer, /*with_build_target=*/true);
  EXPECT_GE(summary.accepted, 1);
  ASSERT_FALSE(proposer.last_stage.empty());
  EXPECT_EQ(asked_while_timing(proposer), 0);
  EXPECT_EQ(r.still_proposed(), 0);
}

TEST(OptimizePrefetch, WhereTheDeviceIsNotTheHostTheBuildTargetBuildsProposalsMeanwhile) {
  PrefetchRun r;
  RecordingProposer proposer(*r.target, /*background=*/true, r.progress);
  ASSERT_FALSE(r.target->times_on_host());
  r.run(proposer, /*with_build_target=*/true);
  ASSERT_FALSE(proposer.could_prebuild.empty());
  for (const bool b : proposer.could_prebuild) EXPECT_TRUE(b);
  // A source the build target built before comes back from it as cached; from another instance
  // of the same target it does not.
  ASSERT_FALSE(proposer.prebuilt.empty());
  const auto elsewhere = targets::make_test_target();
  int built = 0;
  for (const auto& source :
       std::set<std::string>(proposer.prebuilt.begin(), proposer.prebuilt.end())) {
    const auto again = r.build_target->build(source, r.dir.path() / "builds");
    if (!again.built()) continue;  // a design that never builds
    ++built;
    EXPECT_TRUE(again.cached) << "the loop built it on the build target";
    EXPECT_FALSE(elsewhere->build(source, r.dir.path() / "builds").cached);
  }
  EXPECT_GT(built, 0);
}

}  // namespace
}  // namespace headway::loop
