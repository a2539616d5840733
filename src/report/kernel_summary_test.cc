#include "report/kernel_summary.h"

#include <gtest/gtest.h>

#include <cmath>

#include "knowledge/kernel_timings.h"
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

TEST(DecodeStepSummary, SumsTheHeadsAndFloorsOfEveryKernelOfTheStep) {
  std::vector<KernelSummary> k(3);
  const char* names[] = {"ffn", "qkv", "attn_out"};  // any order
  for (size_t i = 0; i < 3; ++i) {
    k[i].name = names[i];
    k[i].remeasured = true;
    k[i].baseline_ms = 4.0 * static_cast<double>(i + 1);
    k[i].head_ms = static_cast<double>(i + 1);
    k[i].floor_ms = 0.5;
    k[i].head_interval = MedianInterval{k[i].head_ms - 0.1, k[i].head_ms + 0.2, 2, 0.98};
  }
  const std::vector<const KernelSummary*> all = {&k[0], &k[1], &k[2]};
  const auto step = summarize_decode_step(all);
  ASSERT_TRUE(step);
  EXPECT_DOUBLE_EQ(step->head_ms, 6.0);
  EXPECT_DOUBLE_EQ(step->baseline_ms, 24.0);
  EXPECT_DOUBLE_EQ(step->floor_ms, 1.5);
  EXPECT_DOUBLE_EQ(step->ratio_to_floor(), 4.0);
  EXPECT_DOUBLE_EQ(step->speedup(), 4.0);
  ASSERT_TRUE(step->interval);
  EXPECT_DOUBLE_EQ(step->interval->low, 5.7);
  EXPECT_DOUBLE_EQ(step->interval->high, 6.6);
  EXPECT_NEAR(step->interval->coverage, 0.94, 1e-12) << "1 - three misses of 2%";
  // A head without readings: the step without an interval.
  k[1].head_interval.reset();
  EXPECT_FALSE(summarize_decode_step(all)->interval);
  // A kernel missing, or not re-measured: no step.
  EXPECT_FALSE(summarize_decode_step({&k[0], &k[1]}));
  k[2].remeasured = false;
  EXPECT_FALSE(summarize_decode_step(all));
}

TEST(DecodeStepSummary, ALayerAddsTheAttentionKernelAndNamesIt) {
  std::vector<KernelSummary> k(5);
  const char* names[] = {"qkv", "attn_out", "ffn", "attn_decode_f8", "attn_decode"};
  for (size_t i = 0; i < k.size(); ++i) {
    k[i].name = names[i];
    k[i].remeasured = true;
    k[i].baseline_ms = 10.0;
    k[i].head_ms = 1.0 + static_cast<double>(i);
    k[i].floor_ms = 0.5;
  }
  std::vector<const KernelSummary*> all = {&k[0], &k[1], &k[2], &k[3], &k[4]};
  const auto layer = summarize_decode_layer(all);
  ASSERT_TRUE(layer);
  EXPECT_EQ(layer->attention, "attn_decode") << "bf16 first; no contract: no shape set named";
  EXPECT_DOUBLE_EQ(layer->head_ms, 1.0 + 2.0 + 3.0 + 5.0);
  EXPECT_DOUBLE_EQ(layer->floor_ms, 2.0);
  EXPECT_DOUBLE_EQ(layer->baseline_ms, 40.0);
  EXPECT_TRUE(summarize_decode_step(all)->attention.empty());
  // With a contract, the shape set its timing read (the first) is named.
  k[4].contract = builtin_kernel("qkv");  // its one shape set is "gemma4"
  EXPECT_EQ(summarize_decode_layer(all)->attention, "attn_decode@gemma4");
  // Without the bf16 kernel, the f8 one; without either, no layer.
  all.pop_back();
  EXPECT_EQ(summarize_decode_layer(all)->attention, "attn_decode_f8");
  all.pop_back();
  EXPECT_FALSE(summarize_decode_layer(all));
  // The attention kernel not re-measured: no layer.
  all.push_back(&k[3]);
  k[3].remeasured = false;
  EXPECT_FALSE(summarize_decode_layer(all));
}

TEST(DecodeStepSummary, ALayerAtEachShapeSetOfTheAttentionWithFigures) {
  std::vector<KernelSummary> k(4);
  const char* names[] = {"qkv", "attn_out", "ffn", "attn_decode"};
  for (size_t i = 0; i < k.size(); ++i) {
    k[i].name = names[i];
    k[i].remeasured = true;
    k[i].baseline_ms = 10.0;
    k[i].head_ms = 1.0;
    k[i].floor_ms = 0.5;
    k[i].head_interval = MedianInterval{0.9, 1.1, 2, 0.99};
  }
  ShapeSetFigures global4k{"global4k", nullptr, 80.0, 4.0, 3.0, MedianInterval{3.8, 4.4, 2, 0.99}};
  ShapeSetFigures untimed{"global8k", nullptr, NAN, NAN, 6.0, std::nullopt};
  ShapeSetFigures global32k{"global32k", nullptr, 640.0, 30.0, 25.0, std::nullopt};
  k[3].other_shape_sets = {global4k, untimed, global32k};
  const std::vector<const KernelSummary*> all = {&k[0], &k[1], &k[2], &k[3]};
  const auto layers = summarize_decode_layers(all);
  ASSERT_EQ(layers.size(), 3u) << "the first, then global4k and global32k; global8k has no figures";
  EXPECT_EQ(layers[0].attention, "attn_decode");
  EXPECT_DOUBLE_EQ(layers[0].head_ms, 4.0);
  EXPECT_EQ(layers[1].attention, "attn_decode@global4k");
  EXPECT_DOUBLE_EQ(layers[1].head_ms, 3.0 + 4.0) << "the step of three plus the attention there";
  EXPECT_DOUBLE_EQ(layers[1].floor_ms, 1.5 + 3.0);
  EXPECT_DOUBLE_EQ(layers[1].baseline_ms, 30.0 + 80.0);
  ASSERT_TRUE(layers[1].interval);
  EXPECT_DOUBLE_EQ(layers[1].interval->low, 2.7 + 3.8);
  EXPECT_NEAR(layers[1].interval->coverage, 0.96, 1e-12) << "1 - four misses of 1%";
  EXPECT_EQ(layers[2].attention, "attn_decode@global32k");
  EXPECT_DOUBLE_EQ(layers[2].head_ms, 33.0);
  EXPECT_FALSE(layers[2].interval) << "the attention kept no readings there";
  // No layer at the first shape set: none at the others either.
  k[3].remeasured = false;
  EXPECT_TRUE(summarize_decode_layers(all).empty());
}

TEST(KernelSummary, SpeedupVerdictFollowsTheInterval) {
  KernelSummary k;
  EXPECT_EQ(k.speedup_verdict(), "");
  k.speedup_interval = RatioInterval{1.1, 1.5, 0.9};
  EXPECT_EQ(k.speedup_verdict(), "faster");
  k.speedup_interval = RatioInterval{0.9, 1.5, 0.9};
  EXPECT_EQ(k.speedup_verdict(), "unresolved");
  k.speedup_interval = RatioInterval{0.5, 0.9, 0.9};
  EXPECT_EQ(k.speedup_verdict(), "slower");
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
  const KernelSummary k = summarize_kernel(ws, *target, records[0], builtin_kernel(records[0].name),
                                           tree, log, toolchain, facts);

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
  const KernelSummary no_facts = summarize_kernel(
      ws, *target, records[0], builtin_kernel(records[0].name), tree, log, toolchain, std::nullopt);
  EXPECT_TRUE(std::isnan(no_facts.decode_ms));
  EXPECT_DOUBLE_EQ(no_facts.head_ms, k.head_ms);
  EXPECT_FALSE(k.head_interval) << "nothing re-measured yet";
  EXPECT_EQ(k.speedup_verdict(), "");

  // Re-measured side by side: the intervals come from the stored readings, and the sim head
  // (far faster than the baseline, 1% noise) is supported as faster.
  store::TestTempDir cache;
  const auto r = knowledge::remeasure_baseline_and_head(ws, tree, *builtin_kernel("attn_out"),
                                                        *target, cache.path(), 11);
  ASSERT_TRUE(r.failure.empty()) << r.failure;
  const KernelSummary m = summarize_kernel(ws, *target, records[0], builtin_kernel(records[0].name),
                                           tree, log, toolchain, facts);
  EXPECT_TRUE(m.remeasured);
  ASSERT_TRUE(m.head_interval && m.baseline_interval);
  EXPECT_EQ(m.head_interval->rank, 2) << "11 readings: the 2nd and 10th";
  EXPECT_LE(m.head_interval->low, m.head_ms);
  EXPECT_GE(m.head_interval->high, m.head_ms);
  ASSERT_TRUE(m.speedup_interval);
  EXPECT_LE(m.speedup_interval->low, m.speedup);
  EXPECT_GE(m.speedup_interval->high, m.speedup);
  EXPECT_EQ(m.speedup_verdict(), "faster");
  EXPECT_TRUE(m.speedup_paired) << "remeasure_baseline_and_head reads the two in turn";
  ASSERT_TRUE(m.head_test) << "the head came from a FASTER";
  EXPECT_EQ(m.head_test->id, *tree.head().test_id);
  EXPECT_EQ(m.head_test->outcome, statistics::Outcome::kFaster);
  EXPECT_FALSE(m.floor_beside_head) << "the sim's floor was not measured beside the readings";
  EXPECT_DOUBLE_EQ(m.floor_ms, k.floor_ms);

  // A head timing that carries the floor of its own minutes: the ratio is to that floor.
  knowledge::KernelTiming beside = *r.head;
  beside.floor_ms = k.floor_ms / 2;
  knowledge::record_kernel_timing(ws, beside);
  const KernelSummary b = summarize_kernel(ws, *target, records[0], builtin_kernel(records[0].name),
                                           tree, log, toolchain, facts);
  EXPECT_TRUE(b.floor_beside_head);
  EXPECT_DOUBLE_EQ(b.floor_ms, k.floor_ms / 2);
  EXPECT_DOUBLE_EQ(b.ratio_to_floor(), b.head_ms / (k.floor_ms / 2));
  EXPECT_DOUBLE_EQ(b.decode_ms, k.decode_ms) << "no decode ceiling beside it: the facts' one";

  // One that carries the decode ceiling of its own minutes too: the decode ratio is to that.
  beside.decode_floor_ms = k.decode_ms / 4;
  knowledge::record_kernel_timing(ws, beside);
  const KernelSummary d = summarize_kernel(ws, *target, records[0], builtin_kernel(records[0].name),
                                           tree, log, toolchain, facts);
  EXPECT_DOUBLE_EQ(d.decode_ms, k.decode_ms / 4);
  EXPECT_DOUBLE_EQ(d.ratio_to_decode(), d.head_ms / (k.decode_ms / 4));
}

}  // namespace
}  // namespace headway::report
