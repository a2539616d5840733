#include "report/kernel_summary.h"

#include <gtest/gtest.h>

#include <cmath>

#include "knowledge/workspace_target.h"
#include "report/report_test_support.h"

namespace headway::report {
namespace {

TEST(GeomeanSpeedup, IsTheGeometricMeanOfTheFinitePositiveSpeedups) {
  EXPECT_DOUBLE_EQ(geomean_speedup({2.0, 8.0}), 4.0);
  EXPECT_DOUBLE_EQ(geomean_speedup({2.0, NAN, 8.0, 0.0, -1.0, INFINITY}), 4.0);
  EXPECT_TRUE(std::isnan(geomean_speedup({})));
  EXPECT_TRUE(std::isnan(geomean_speedup({NAN, 0.0})));
}

TEST(KernelSummary, HasTheTreesHeadCountsAndTheFloors) {
  store::TestTempDir dir;
  const auto target = make_sim_run(dir.path(), {"attn_out"});
  auto ws = store::Workspace::open(dir.path()).value();
  const auto records = trees::DesignTree::kernels(ws);
  ASSERT_EQ(records.size(), 1u);
  auto tree = trees::DesignTree::open(ws, "attn_out").value();
  trees::DecisionLog log(tree);
  const std::string toolchain = knowledge::toolchain_id_of(*target);
  const auto facts = loop::load_floor_facts(ws, *target, toolchain);
  ASSERT_TRUE(facts) << "the sim run measured its floor facts";
  const KernelSummary k = summarize_kernel(ws, *target, records[0], tree, log, toolchain, facts);

  EXPECT_EQ(k.name, "attn_out");
  EXPECT_EQ(k.target, "sim");
  const auto head = tree.node(tree.head().node_id);
  ASSERT_TRUE(head);
  EXPECT_EQ(k.head_node, head->id);
  EXPECT_EQ(k.head_design, head->design);
  EXPECT_EQ(k.head_params, head->params);
  ASSERT_GE(k.heads.size(), 2u) << "the sim library improves on the baseline";
  EXPECT_EQ(k.heads.back().node_id, k.head_node);
  EXPECT_GT(k.speedup, 1.0);
  EXPECT_DOUBLE_EQ(k.speedup, k.baseline_ms / k.head_ms);
  EXPECT_GT(k.floor_ms, 0);
  EXPECT_DOUBLE_EQ(k.ratio_to_floor(), k.head_ms / k.floor_ms);
  EXPECT_TRUE(std::isfinite(k.decode_ms)) << "the sim target has a decode ceiling";
  EXPECT_DOUBLE_EQ(k.ratio_to_decode(), k.head_ms / k.decode_ms);
  EXPECT_GT(k.device_seconds, 0);

  int64_t nodes = 0;
  for (const auto& [status, count] : k.nodes_by_status) {
    EXPECT_GT(count, 0) << status;
    nodes += count;
  }
  EXPECT_EQ(nodes, static_cast<int64_t>(tree.nodes().size()));
  int64_t tests = 0;
  for (const auto& [outcome, count] : k.tests_by_outcome) {
    EXPECT_GT(count, 0) << outcome;
    tests += count;
  }
  EXPECT_EQ(tests + log.counts().unfinished, static_cast<int64_t>(log.tests().size()));
  EXPECT_GE(k.tests_by_outcome.at("FASTER"), 1);

  // Without floor facts there is no decode ceiling.
  const KernelSummary no_facts =
      summarize_kernel(ws, *target, records[0], tree, log, toolchain, std::nullopt);
  EXPECT_TRUE(std::isnan(no_facts.decode_ms));
  EXPECT_DOUBLE_EQ(no_facts.head_ms, k.head_ms);
}

}  // namespace
}  // namespace headway::report
