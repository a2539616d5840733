// Toolchain migration in-process on the sim target: rules re-verified, heads re-checked and
// re-measured under the new toolchain, meta switched; no compiler, no timing.
#include <gtest/gtest.h>

#include "knowledge/kernel_timings.h"
#include "knowledge/migration.h"
#include "knowledge/rules.h"
#include "knowledge/workspace_target.h"
#include "store/test_temp_dir.h"
#include "targets/registry/registry.h"
#include "trees/design_tree.h"

namespace headway::knowledge {
namespace {

using trees::NodeStatus;

class SimMigration : public ::testing::Test {
 protected:
  void SetUp() override {
    ws_.emplace(store::Workspace::create(dir_.path()).value());
    set_workspace_target_name(*ws_, "sim");
    sim_ = targets::make_target("sim");
    kernel_ = builtin_kernel("attn_out");
    tree_.emplace(trees::DesignTree::create(*ws_, {"attn_out", "sim", 0.1, 0.6, ""},
                                            sim_->baseline_source(*kernel_))
                      .value());
    // A build failure (mined into a rule) and a faster head.
    trees::NewNode broken;
    broken.design = "wide";
    broken.source = "sim-build-error 'x' was not declared in this scope\n";
    const auto b = tree_->add(broken).value().node;
    const auto built = sim_->build(broken.source, {});
    ASSERT_TRUE(
        tree_
            ->set_status(b.id, NodeStatus::kBuildFailed, "does not build",
                         {{"diagnostics", built.diagnostics}, {"toolchain", sim_->identity().id}})
            .ok());
    trees::NewNode fast;
    fast.design = "fast";
    fast.source = "sim-x 0.5\n";
    head_ = tree_->add(fast).value().node.id;
    ASSERT_TRUE(tree_->set_head(head_, 0.3, std::nullopt, "test").ok());
  }

  store::TestTempDir dir_;
  std::optional<store::Workspace> ws_;
  std::unique_ptr<targets::Target> sim_;
  const KernelContract* kernel_ = nullptr;
  std::optional<trees::DesignTree> tree_;
  int64_t head_ = 0;
};

TEST_F(SimMigration, ReverifiesRulesKeepsHeadsAndRemeasures) {
  EXPECT_EQ(current_toolchain_id(*ws_), "sim:sim-1");
  auto to = targets::make_target("sim", "sim-2");
  const auto report =
      migrate_toolchain(*ws_, *to, {dir_.path() / "builds", true, true, 5, {}, {}, {}});
  ASSERT_TRUE(report.ok()) << report.error().message;
  EXPECT_EQ(report->from_id, "sim:sim-1");
  EXPECT_EQ(report->to_id, "sim:sim-2");
  EXPECT_EQ(report->mined_new_rules, 1);
  EXPECT_EQ(report->verified, 1);
  EXPECT_EQ(report->heads_kept, 1);
  ASSERT_EQ(report->timings.size(), 1u);
  ASSERT_TRUE(report->timings[0].baseline_ms && report->timings[0].head_ms)
      << report->timings[0].failure;
  EXPECT_NEAR(*report->timings[0].head_ms / *report->timings[0].baseline_ms, 0.5, 0.05);
  EXPECT_EQ(current_toolchain_id(*ws_), "sim:sim-2");
  EXPECT_EQ(workspace_toolchain(*ws_, "sim"), "sim-2");
  EXPECT_EQ(current_head_ms(*ws_, *tree_, "sim:sim-2"), report->timings[0].head_ms);
}

TEST_F(SimMigration, AMissingToolchainIsRefusedChangingNothing) {
  auto to = targets::make_target("sim", "missing-2");
  const auto report =
      migrate_toolchain(*ws_, *to, {dir_.path() / "builds", true, true, 5, {}, {}, {}});
  ASSERT_FALSE(report.ok());
  EXPECT_NE(report.error().message.find("missing-2"), std::string::npos) << report.error().message;
  EXPECT_EQ(current_toolchain_id(*ws_), "sim:sim-1");
  EXPECT_TRUE(list_rules(*ws_).empty());
}

}  // namespace
}  // namespace headway::knowledge
