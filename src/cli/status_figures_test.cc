#include "cli/status_figures.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "knowledge/facts.h"
#include "knowledge/kernel_timings.h"
#include "knowledge/workspace_target.h"
#include "report/json_report.h"
#include "report/markdown_report.h"
#include "report/report_model.h"
#include "report/report_test_support.h"
#include "store/test_temp_dir.h"
#include "targets/fact_names.h"
#include "targets/registry/registry.h"
#include "targets/registry/test_targets.h"
#include "trees/decision_log.h"

namespace headway::cli {
namespace {

// Equal, or both NaN.
void expect_same(double a, double b, const char* what) {
  if (std::isnan(a) || std::isnan(b)) {
    EXPECT_TRUE(std::isnan(a) && std::isnan(b)) << what << ": " << a << " against " << b;
  } else {
    EXPECT_DOUBLE_EQ(a, b) << what;
  }
}

TEST(StatusFigures, ShowEveryKernelAsTheReportDoes) {
  store::TestTempDir dir;
  const auto target = report::make_sim_run(dir.path(), {"attn_out", "qkv"});
  auto ws = store::Workspace::open(dir.path()).value();
  const nlohmann::json figures = status_figures(ws, *target);
  const report::Report r = report::collect_report(ws, *target);
  ASSERT_EQ(figures["kernels"].size(), 2u);
  ASSERT_EQ(r.kernels.size(), 2u);
  int64_t tests = 0;
  for (size_t i = 0; i < r.kernels.size(); ++i) {
    const auto& s = figures["kernels"][i];
    const report::KernelReport& k = r.kernels[i];
    EXPECT_EQ(s["name"], k.name);
    expect_same(s["baseline_ms"].get<double>(), k.baseline_ms, "baseline");
    expect_same(s["head_ms"].get<double>(), k.head_ms, "head");
    expect_same(s["speedup"].get<double>(), k.speedup, "speedup");
    expect_same(s["floor_ms"].get<double>(), k.floor_ms, "floor");
    expect_same(s["ratio_to_floor"].get<double>(), k.ratio_to_floor(), "ratio to the floor");
    expect_same(s["decode_floor_ms"].get<double>(), k.decode_ms, "decode ceiling");
    expect_same(s["ratio_to_decode_ceiling"].get<double>(), k.ratio_to_decode(),
                "ratio to the decode ceiling");
    expect_same(s["device_seconds"].get<double>(), k.device_seconds, "device seconds");
    EXPECT_EQ(s["head_node"].get<int64_t>(), k.head_node);
    EXPECT_EQ(s["heads"].get<size_t>(), k.heads.size());
    EXPECT_EQ(s["nodes"], nlohmann::json(k.nodes_by_status));
    // Status lists every outcome, 0 included; the report those of at least one test.
    ASSERT_EQ(s["tests"].size(), 4u);
    for (const auto& [outcome, count] : s["tests"].items()) {
      const auto found = k.tests_by_outcome.find(outcome);
      EXPECT_EQ(count.get<int64_t>(), found == k.tests_by_outcome.end() ? 0 : found->second)
          << outcome;
      tests += count.get<int64_t>();
    }
  }
  EXPECT_GT(tests, 0) << "the sim run tests candidates";
  EXPECT_EQ(figures["decision_rate"]["decisions"].get<int64_t>(), tests)
      << "every finished test is a decision";
  EXPECT_EQ(figures["decision_rate"]["decisions"].get<int64_t>(), r.decision_rate.decisions);
  expect_same(figures["decision_rate"]["per_device_hour"].get<double>(),
              r.decision_rate.per_device_hour, "decisions a device-hour");
  EXPECT_GT(r.decision_rate.per_device_hour, 0.0);
  expect_same(figures["geomean_speedup"].get<double>(), r.geomean_speedup, "geomean");
  EXPECT_NEAR(r.geomean_speedup, std::sqrt(r.kernels[0].speedup * r.kernels[1].speedup), 1e-12);
}

TEST(StatusFigures, AreComputedAgainOnlyWhenTheWorkspaceChanged) {
  store::TestTempDir dir;
  const auto target = report::make_sim_run(dir.path(), {"attn_out"});
  auto ws = store::Workspace::open(dir.path()).value();
  StatusFigures figures(ws);
  const double floor = figures.current(*target)["kernels"][0]["floor_ms"].get<double>();
  EXPECT_EQ(figures.computations(), 1);
  figures.current(*target);
  figures.current(*target);
  EXPECT_EQ(figures.computations(), 1) << "nothing changed";

  // Another process reading the workspace changes nothing either.
  auto other = store::Workspace::open(dir.path()).value();
  EXPECT_EQ(other.db().query_int64("SELECT COUNT(*) FROM kernels"), 1);
  figures.current(*target);
  EXPECT_EQ(figures.computations(), 1) << "a read is no change";

  // Another process (here another connection) commits a change: the figures show it.
  other.db().exec("UPDATE kernels SET floor_ms = floor_ms * 2");
  const nlohmann::json& changed = figures.current(*target);
  EXPECT_EQ(figures.computations(), 2);
  EXPECT_DOUBLE_EQ(changed["kernels"][0]["floor_ms"].get<double>(), 2 * floor);
  figures.current(*target);
  EXPECT_EQ(figures.computations(), 2);

  // Another target object (a migration moved the toolchain) computes them again.
  const auto again = targets::make_target("sim");
  figures.current(*again);
  EXPECT_EQ(figures.computations(), 3);
}

TEST(StatusFigures, AnUnresolvedSpeedupSaysWhatTheTimingAndTheTestEachSupport) {
  nlohmann::json k = {{"name", "attn_out"},
                      {"speedup", 2.09},
                      {"speedup_interval", {0.87, 3.21}},
                      {"speedup_paired", true},
                      {"head_bimodal", true},
                      {"baseline_bimodal", false},
                      {"head_test",
                       {{"id", 12},
                        {"outcome", "FASTER"},
                        {"pairs", 6},
                        {"effect_pct", 52.1},
                        {"ci_pct", {30.2, 60.3}}}}};
  const std::string text = unresolved_speedup_text(k);
  for (const char* says : {"attn_out: its 2.09x is not supported by the last side-by-side timing",
                           "the ratios of its readings taken in turn",
                           "0.87x to 3.21x, which holds 1", "readings in two groups",
                           "said FASTER after 6 pairs", "52.1% of the time", "[30.2%, 60.3%]"}) {
    EXPECT_NE(text.find(says), std::string::npos) << says << " in: " << text;
  }
  k["head_test"] = nullptr;
  k["speedup_paired"] = false;
  const std::string alone = unresolved_speedup_text(k);
  EXPECT_NE(alone.find("the baseline's and the head's median intervals"), std::string::npos);
  EXPECT_EQ(alone.find("acceptance test"), std::string::npos) << alone;
}

// A workspace whose two kernels' heads were read on two device models of a pool: qkv's made head
// by an acceptance test whose readings a worker of model-b took, attn_out's timed side by side on
// model-a; with the chip facts of each model (10 GB/s read bandwidth on model-a, 20 on model-b).
class HeadsOfTwoModels : public ::testing::Test {
 protected:
  void SetUp() override {
    auto qkv = trees::DesignTree::create(ws_, {"qkv", target_->name(), 0.05, 1.5, ""},
                                         "// baseline\n", nlohmann::json::object(), 1.5)
                   .value();
    trees::NewNode n;
    n.kind = trees::NodeKind::kDesign;
    n.design = "tiled";
    n.source = "// tiled\n";
    n.proposer = "test";
    const int64_t candidate = qkv.add(n).value().node.id;
    trees::DecisionLog log(qkv);
    const int64_t test = log.begin_test(candidate, "betting").value();
    for (int pos = 0; pos < 2; ++pos) {
      trees::TestReading r;
      r.node_id = pos == 0 ? qkv.root().id : candidate;
      r.position = pos;
      r.seconds = pos == 0 ? 1.5e-3 : 1e-3;
      r.clock = {{"job", 0}, {"position", pos}, {"worker", "w2"}, {"model", "model-b"}};
      ASSERT_TRUE(log.record_reading(test, r).ok());
    }
    trees::TestDecision d;
    d.outcome = statistics::Outcome::kFaster;
    d.pairs = 1;
    ASSERT_TRUE(log.finish_test(test, d).ok());

    auto attn = trees::DesignTree::create(ws_, {"attn_out", target_->name(), 0.05, 2.0, ""},
                                          "// baseline\n", nlohmann::json::object(), 2.0)
                    .value();
    knowledge::KernelTiming t;
    t.kernel = "attn_out";
    t.toolchain = toolchain_;
    t.node_id = attn.head().node_id;
    t.role = knowledge::kHeadRole;
    t.median_ms = 1.9;
    t.readings = 3;
    t.device_model = "model-a";
    knowledge::record_kernel_timing(ws_, t);
    t.role = knowledge::kBaselineRole;
    knowledge::record_kernel_timing(ws_, t);
    store_bandwidth("model-a", 10.0);
  }
  void store_bandwidth(const std::string& model, double gbps) {
    knowledge::store_fact(
        ws_, {targets::kReadBandwidth, toolchain_, gbps, "GB/s", std::nullopt, "", "", model});
  }
  double floor_at(const char* kernel, double gbps) const {
    return target_->floors(*builtin_kernel(kernel), {{targets::kReadBandwidth, gbps}}).memory_ms;
  }

  store::TestTempDir dir_;
  store::Workspace ws_ = store::Workspace::create(dir_.path()).value();
  std::unique_ptr<targets::Target> target_ = targets::make_test_target();
  std::string toolchain_ = knowledge::toolchain_id_of(*target_);
};

TEST_F(HeadsOfTwoModels, StatusAndTheReportNameEachHeadsModelAndDivideByItsFloor) {
  // One model's facts: each kernel keeps the floor it was registered with, as before models.
  nlohmann::json figures = status_figures(ws_, *target_);
  ASSERT_EQ(figures["kernels"].size(), 2u);
  const auto& attn = figures["kernels"][0];
  const auto& qkv = figures["kernels"][1];
  EXPECT_EQ(attn["name"], "attn_out");
  EXPECT_EQ(attn["device_model"], "model-a");
  EXPECT_EQ(qkv["device_model"], "model-b");
  EXPECT_DOUBLE_EQ(qkv["floor_ms"].get<double>(), 0.05);
  EXPECT_EQ(figures["device_models"],
            (nlohmann::json{{"model-a", {"attn_out"}}, {"model-b", {"qkv"}}}));

  // Facts of both models: each head's figures are divided by its own model's floor.
  store_bandwidth("model-b", 20.0);
  figures = status_figures(ws_, *target_);
  EXPECT_DOUBLE_EQ(figures["kernels"][0]["floor_ms"].get<double>(), floor_at("attn_out", 10.0));
  EXPECT_DOUBLE_EQ(figures["kernels"][1]["floor_ms"].get<double>(), floor_at("qkv", 20.0));
  EXPECT_DOUBLE_EQ(figures["kernels"][1]["ratio_to_floor"].get<double>(),
                   1.0 / floor_at("qkv", 20.0));

  const report::Report r = report::collect_report(ws_, *target_);
  ASSERT_EQ(r.kernels.size(), 2u);
  EXPECT_EQ(r.kernels[1].device_model, "model-b");
  EXPECT_DOUBLE_EQ(r.kernels[1].floor_ms, floor_at("qkv", 20.0));
  const nlohmann::json j = report::to_json(r);
  EXPECT_EQ(j["kernels"][0]["device_model"], "model-a");
  EXPECT_EQ(j["device_models"], figures["device_models"]);
  const std::string line =
      "heads' figures read on 2 device models: model-a (attn_out); model-b (qkv)";
  EXPECT_NE(report::render_markdown(r).find(line), std::string::npos) << report::render_markdown(r);
}

TEST(HeadsByModel, NameOneModelOrEachWithItsKernels) {
  EXPECT_EQ(report::heads_by_model_line({}), "");
  EXPECT_EQ(report::heads_by_model_line({{"NVIDIA H100", {"qkv", "ffn"}}}),
            "heads' figures read on device model NVIDIA H100");
  EXPECT_EQ(
      report::heads_by_model_line({{"NVIDIA H100", {"qkv", "ffn"}}, {"NVIDIA H200", {"attn_out"}}}),
      "heads' figures read on 2 device models: NVIDIA H100 (qkv, ffn); NVIDIA H200 "
      "(attn_out)");
}

}  // namespace
}  // namespace headway::cli
