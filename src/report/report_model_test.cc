#include "report/report_model.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>

#include "report/report_test_support.h"
#include "trees/decision_log.h"

namespace headway::report {
namespace {

class ReportModel : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new store::TestTempDir();
    target_ = make_sim_run(dir_->path(), {"attn_out"}).release();
  }
  static void TearDownTestSuite() {
    delete target_;
    delete dir_;
  }
  static store::TestTempDir* dir_;
  static targets::Target* target_;
};
store::TestTempDir* ReportModel::dir_ = nullptr;
targets::Target* ReportModel::target_ = nullptr;

TEST_F(ReportModel, CollectsTheRunAsTheStoreHasIt) {
  auto ws = store::Workspace::open(dir_->path()).value();
  const Report r = collect_report(ws, *target_);
  ASSERT_EQ(r.kernels.size(), 1u);
  const KernelReport& k = r.kernels[0];
  auto tree = trees::DesignTree::open(ws, "attn_out").value();
  trees::DecisionLog log(tree);
  EXPECT_EQ(r.target, "sim");
  EXPECT_EQ(k.head_node, tree.head().node_id);
  EXPECT_EQ(k.nodes.size(), tree.nodes().size());
  EXPECT_EQ(k.tests.size(), log.tests().size());
  EXPECT_EQ(k.heads.size(), tree.head_history().size());
  ASSERT_GE(k.heads.size(), 2u) << "the sim library improves on the baseline";
  EXPECT_NEAR(k.speedup, k.baseline_ms / k.head_ms, 1e-12);
  EXPECT_NEAR(r.geomean_speedup, k.speedup, 1e-12) << "one kernel: the geomean is its speedup";
  EXPECT_GT(k.floor_ms, 0);
  EXPECT_GT(k.device_seconds, 0);

  int64_t on_path = 0;
  for (const auto& n : k.nodes) {
    EXPECT_EQ(n.source, tree.source(n.node.id).value_or("")) << n.node.id;
    if (n.node.parent_id) {
      const std::string parent = tree.source(*n.node.parent_id).value_or("");
      EXPECT_EQ(n.diff.empty(), parent == n.source) << n.node.id;
      if (!n.diff.empty()) {
        EXPECT_EQ(n.diff.rfind(fmt::format("--- #{}\n+++ #{}\n", *n.node.parent_id, n.node.id), 0),
                  0u)
            << n.diff;
      }
    } else {
      EXPECT_TRUE(n.diff.empty());
    }
    on_path += n.on_head_path;
    EXPECT_EQ(n.head, n.node.id == k.head_node);
  }
  EXPECT_EQ(on_path, static_cast<int64_t>(tree.path_to_root(k.head_node).size()));
  EXPECT_NE(k.dot.find(fmt::format("URL=\"#{}\"", node_anchor("attn_out", k.head_node))),
            std::string::npos);

  // Every test's readings are the log's, and its wealth is the betting rule replayed on its d's
  // with the settings the loop recorded.
  int recorded = 0;
  for (const auto& t : k.tests) {
    EXPECT_EQ(t.readings.size(), log.readings(t.record.id).size());
    EXPECT_EQ(t.d.size(), static_cast<size_t>(t.record.pairs)) << t.record.id;
    ASSERT_TRUE(t.config) << t.record.id;
    recorded += t.config_source == "recorded";
    const auto path = statistics::wealth_path(*t.config, t.d).value();
    ASSERT_EQ(t.wealth.size(), path.size());
    EXPECT_EQ(t.wealth.back().faster, path.back().faster);
    if (t.record.outcome == statistics::Outcome::kFaster && t.config_source == "recorded") {
      EXPECT_GE(t.wealth.back().faster, 1 / t.config->alpha) << t.record.id;
    }
  }
  EXPECT_GE(recorded, 1);
}

TEST(ReportModelTime, TimestampsParseToEpochSeconds) {
  EXPECT_EQ(timestamp_seconds("1970-01-01T00:00:00.000Z"), 0.0);
  EXPECT_NEAR(*timestamp_seconds("2026-11-30T12:00:01.250Z") -
                  *timestamp_seconds("2026-11-30T11:59:00.000Z"),
              61.25, 1e-6);
  EXPECT_FALSE(timestamp_seconds("yesterday").has_value());
  EXPECT_EQ(node_anchor("qkv", 7), "node-qkv-7");
  EXPECT_EQ(test_anchor("ffn", 3), "test-ffn-3");
}

}  // namespace
}  // namespace headway::report
