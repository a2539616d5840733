// Every verb's --json object, as a script reads it: stdout alone parses as one JSON object with
// the fields docs/CLI.md lists; progress and warnings go to stderr. (check, bench, facts, rules,
// docs and check-citations are parsed in their own verbs' tests.)
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "cli/cli_test_support.h"
#include "common/build_info.h"
#include "knowledge/facts.h"
#include "knowledge/workspace_target.h"
#include "store/schema.h"
#include "store/test_temp_dir.h"
#include "store/workspace.h"
#include "trees/design_tree.h"

namespace headway::cli {
namespace {

namespace fs = std::filesystem;

// stdout of a run that succeeded (or ended with `status`), parsed; fails the test otherwise.
nlohmann::json json_of(const CliRun& r, int status = 0) {
  EXPECT_TRUE(r.problem.empty()) << r.problem;
  EXPECT_EQ(r.exit_code, status) << r.err;
  auto j = nlohmann::json::parse(r.out, nullptr, false);
  EXPECT_TRUE(j.is_object()) << "stdout: " << r.out << "\nstderr: " << r.err;
  return j;
}

void expect_fields(const nlohmann::json& j, const std::vector<std::string>& fields) {
  for (const auto& f : fields) EXPECT_TRUE(j.contains(f)) << f << " missing from " << j.dump(2);
}

class JsonVerbs : public ::testing::Test {
 protected:
  void SetUp() override {
    ws_ = (tmp_.path() / "ws").string();
    const CliRun init = run_headway({"init", ws_, "--json"});
    const auto j = json_of(init);
    expect_fields(j, {"root", "schema_version"});
    EXPECT_EQ(j["root"], fs::weakly_canonical(ws_).string());
    EXPECT_EQ(j["schema_version"], store::latest_schema_version());
  }
  store::TestTempDir tmp_;
  std::string ws_;
};

TEST_F(JsonVerbs, InitAndVersionRecordWhichHeadwayMadeTheWorkspace) {
  const auto j = json_of(run_headway({"version", "--json", "--workspace", ws_}));
  expect_fields(j, {"version", "git_commit", "compiler", "schema_version", "workspace"});
  EXPECT_EQ(j["version"], std::string(build_info().version));
  EXPECT_EQ(j["compiler"], std::string(build_info().compiler));
  if (build_info().git_commit.empty()) {
    EXPECT_TRUE(j["git_commit"].is_null());
  } else {
    EXPECT_EQ(j["git_commit"], std::string(build_info().git_commit));
  }
  EXPECT_EQ(j["schema_version"], store::latest_schema_version());
  const auto& ws = j["workspace"];
  EXPECT_EQ(ws["root"], fs::weakly_canonical(ws_).string());
  ASSERT_EQ(ws["versions"].size(), 1u) << ws.dump(2);
  EXPECT_EQ(ws["versions"][0]["version"], std::string(build_info().version));
  EXPECT_TRUE(ws["versions"][0]["created_workspace"].get<bool>());

  // Outside any workspace there is none to report.
  const auto outside = json_of(run_headway({"version", "--json"}, tmp_.path().string()));
  EXPECT_TRUE(outside["workspace"].is_null()) << outside.dump(2);
  const CliRun text = run_headway({"version"}, ws_);
  EXPECT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("  created by " + version_label()), std::string::npos) << text.out;
}

TEST_F(JsonVerbs, TreeListsTheKernelItsHeadsAndEveryNode) {
  {
    auto ws = store::Workspace::open(ws_).value();
    auto tree = trees::DesignTree::create(ws, {"qkv", "cpu", 0.5, 2.0, ""}, "// base\n").value();
    trees::NewNode n;
    n.design = "tiled";
    n.params = {{"tile", 64}};
    n.source = "// tiled\n";
    ASSERT_TRUE(tree.add(n).ok());
  }
  const auto j = json_of(run_headway({"tree", "qkv", "--json", "--workspace", ws_}));
  expect_fields(j, {"kernel", "target", "floor_ms", "baseline_ms", "head", "heads", "nodes"});
  EXPECT_EQ(j["kernel"], "qkv");
  EXPECT_EQ(j["target"], "cpu");
  EXPECT_DOUBLE_EQ(j["floor_ms"].get<double>(), 0.5);
  EXPECT_EQ(j["head"], 1);
  ASSERT_EQ(j["heads"].size(), 1u);
  ASSERT_EQ(j["nodes"].size(), 2u);
  const auto& tiled = j["nodes"][1];
  expect_fields(tiled, {"id", "parent", "kind", "design", "params", "status", "reason", "proposer",
                        "source_hash", "head", "created_at", "updated_at"});
  EXPECT_EQ(tiled["parent"], 1);
  EXPECT_EQ(tiled["kind"], "design");
  EXPECT_EQ(tiled["params"]["tile"], 64);
  EXPECT_EQ(tiled["status"], "proposed");
  EXPECT_FALSE(tiled["head"].get<bool>());
  EXPECT_TRUE(j["nodes"][0]["parent"].is_null());
  EXPECT_TRUE(j["nodes"][0]["head"].get<bool>());
  const CliRun both = run_headway({"tree", "qkv", "--json", "--format", "dot", "--workspace", ws_});
  EXPECT_EQ(both.exit_code, 2) << both.err;
}

// The loop's parts switched off or swapped (docs/ABLATIONS.md) are taken, run and reported; a
// part or rule it does not know is a usage error that touches nothing.
TEST_F(JsonVerbs, OptimizeRunsWithPartsOfTheLoopSwitchedOff) {
  for (const auto& [option, value] :
       {std::pair{"--without", "racing,screening"}, std::pair{"--acceptance-rule", "t-test"}}) {
    const CliRun bad = run_headway(
        {"optimize", "--target", "sim", "--kernels", "qkv", option, value, "--workspace", ws_});
    EXPECT_EQ(bad.exit_code, 2) << bad.err;
    EXPECT_NE(bad.err.find(option), std::string::npos) << bad.err;
  }
  EXPECT_TRUE(json_of(run_headway({"status", "--json", "--workspace", ws_}))["kernels"].empty());
  const auto j = json_of(
      run_headway({"optimize", "--target", "sim", "--kernels", "qkv", "--budget", "5m", "--without",
                   "racing", "--acceptance-rule", "threshold", "--json", "--workspace", ws_},
                  "", 300.0));
  EXPECT_EQ(j["acceptance_rule"], "threshold");
  EXPECT_EQ(j["switched_off"], "racing");
  EXPECT_GT(j["tests"].get<int>(), 0);
  const auto tree = json_of(run_headway({"tree", "qkv", "--json", "--workspace", ws_}));
  for (const auto& n : tree["nodes"]) {
    EXPECT_EQ(n["reason"].get<std::string>().rfind("lost the race", 0), std::string::npos)
        << "nothing races: " << n.dump();
  }
}

// A kernel whose baseline is found wrong when timed stops; the run goes on with the others, says
// which kernel stopped and why, and ends with exit 1, a negative result.
TEST_F(JsonVerbs, OptimizeGoesOnWithoutAKernelWhoseBaselineIsWrong) {
  {
    auto ws = store::Workspace::open(ws_).value();
    knowledge::set_workspace_target_name(ws, "sim");
    ws.set_meta("sim.toolchain", "sim-1:baseline-wrong=attn_out");
  }
  const auto j = json_of(run_headway({"optimize", "--kernels", "attn_out,qkv", "--budget", "5m",
                                      "--json", "--workspace", ws_},
                                     "", 300.0),
                         1);
  ASSERT_TRUE(j["kernels_stopped"].is_object()) << j.dump(2);
  ASSERT_EQ(j["kernels_stopped"].size(), 1u) << j.dump(2);
  const std::string why = j["kernels_stopped"]["attn_out"];
  EXPECT_EQ(why.rfind("its baseline ", 0), 0u) << why;
  EXPECT_NE(why.find("output is wrong in a timed call"), std::string::npos) << why;
  EXPECT_GE(j["accepted"].get<int>(), 1) << "qkv went on";
  std::set<std::string> timed;
  for (const auto& k : j["kernels"]) timed.insert(k["name"].get<std::string>());
  EXPECT_EQ(timed, std::set<std::string>{"qkv"}) << "attn_out was never registered";

  const CliRun text =
      run_headway({"optimize", "--kernels", "attn_out", "--budget", "1m", "--workspace", ws_});
  EXPECT_EQ(text.exit_code, 1) << text.err;
  EXPECT_NE(text.out.find("optimize: attn_out stopped, the run went on without it: its baseline "),
            std::string::npos)
      << text.out;
}

TEST_F(JsonVerbs, OptimizeOnTheSimTargetKeepsProgressOnStderr) {
  const auto j = json_of(run_headway({"optimize", "--target", "sim", "--kernels", "qkv", "--budget",
                                      "5m", "--json", "--workspace", ws_},
                                     "", 300.0));
  expect_fields(
      j, {"target", "rounds", "proposed", "tests", "accepted", "cheated", "stopped", "kernels"});
  EXPECT_EQ(j["target"], "sim");
  EXPECT_EQ(j["stopped"], "nothing left to try");
  EXPECT_GT(j["proposed"].get<int>(), 0);
  ASSERT_EQ(j["kernels"].size(), 1u);
  const auto& k = j["kernels"][0];
  expect_fields(
      k, {"name", "head_node", "baseline_ms", "head_ms", "speedup", "baseline_interval_ms",
          "head_interval_ms", "head_bimodal", "speedup_interval", "speedup_verdict", "failure"});
  EXPECT_EQ(k["name"], "qkv");
  EXPECT_TRUE(k["failure"].is_null()) << k.dump();
  EXPECT_GT(k["speedup"].get<double>(), 0.0);
  // The sim library's head is far faster than the baseline at 1% noise: the intervals support it.
  ASSERT_EQ(k["head_interval_ms"].size(), 2u) << k.dump();
  EXPECT_LE(k["head_interval_ms"][0].get<double>(), k["head_ms"].get<double>());
  EXPECT_GE(k["head_interval_ms"][1].get<double>(), k["head_ms"].get<double>());
  EXPECT_EQ(k["speedup_verdict"], "faster") << k.dump();
  // How the run went: the head's steps against device time, judged against the sim's truth.
  const auto& curve = k["curve"];
  ASSERT_GE(curve.size(), 2u) << k.dump();
  EXPECT_EQ(curve[0][0], 0.0);
  EXPECT_NEAR(curve[0][1].get<double>(), k["baseline_ms"].get<double>(),
              0.05 * k["baseline_ms"].get<double>())
      << "the baseline, at device time 0";
  for (size_t i = 1; i < curve.size(); ++i) {
    EXPECT_GT(curve[i][0].get<double>(), curve[i - 1][0].get<double>());
    EXPECT_LT(curve[i][1].get<double>(), curve[i - 1][1].get<double>());
  }
  EXPECT_GE(j["device_seconds"].get<double>(), curve.back()[0].get<double>());
  EXPECT_EQ(j["device_seconds_to_1_25x"].is_null(),
            curve.back()[1].get<double>() > 1.25 * k["floor_ms"].get<double>())
      << j.dump();
  const auto& truth = k["truth"];
  EXPECT_EQ(truth["judged"], j["tests"]);
  EXPECT_EQ(j["truth"], truth) << "one kernel: the run's truth is its own";
  EXPECT_GE(truth["true_gains"].get<int>(), 1);

  const auto status = json_of(run_headway({"status", "--json", "--workspace", ws_}));
  expect_fields(status, {"kernels", "toolchain", "geomean_speedup", "unsandboxed_runs", "run",
                         "decision_rate"});
  EXPECT_EQ(status["decision_rate"]["decisions"], j["tests"]);
  EXPECT_EQ(j["decision_rate"], status["decision_rate"]) << "optimize's summary says the same";
  EXPECT_TRUE(status["run"].is_null()) << "no optimize runs any more";
  ASSERT_EQ(status["kernels"].size(), 1u);
  EXPECT_EQ(status["kernels"][0]["name"], "qkv");
  EXPECT_EQ(status["kernels"][0]["untried"], 0) << "a run that ran out of ideas leaves none";
  EXPECT_EQ(status["kernels"][0]["head_interval_ms"], k["head_interval_ms"])
      << "status computes the interval from the stored readings";
  EXPECT_EQ(status["kernels"][0]["speedup_verdict"], "faster");
  EXPECT_TRUE(status["decode_step"].is_null()) << "one kernel of the step is not a step";
}

TEST_F(JsonVerbs, OnboardReportsDocsSummaryFactsRulesAndTheCheatSheet) {
  {
    auto ws = store::Workspace::open(ws_).value();
    knowledge::store_fact(ws, {knowledge::kReadBandwidth, knowledge::current_toolchain_id(ws), 9.5,
                               "GB/s", 1.0, "test", ""});
  }
  const CliRun r = run_headway({"onboard", "--keep-facts", "--json", "--workspace", ws_});
  const auto j = json_of(r);
  expect_fields(j, {"toolchain", "docs", "summary", "facts", "rules", "cheatsheet"});
  EXPECT_TRUE(j["docs"]["builtin"].get<bool>());
  EXPECT_GT(j["docs"]["files"].get<int>(), 0);
  ASSERT_TRUE(j["summary"].is_object()) << j.dump(2);
  EXPECT_GT(j["summary"]["citations"].get<int>(), 0);
  EXPECT_EQ(j["summary"]["verdicts"]["supported-by-text"], j["summary"]["citations"]);
  EXPECT_FALSE(j["facts"]["measured"].get<bool>());
  EXPECT_EQ(j["facts"]["count"], 1);
  EXPECT_TRUE(fs::exists(j["cheatsheet"].get<std::string>()));
}

TEST_F(JsonVerbs, MigrateReportsRulesHeadsAndTimings) {
  const CliRun r = run_headway(
      {"migrate", "--toolchain", "clang++", "--no-remeasure", "--json", "--workspace", ws_});
  const auto j = json_of(r);
  expect_fields(j, {"from", "to", "mined_new_rules", "rules", "heads", "notes", "timings",
                    "facts_measured", "paused_optimize_pid", "summary"});
  EXPECT_NE(j["to"].get<std::string>().find("clang"), std::string::npos) << j.dump(2);
  expect_fields(j["rules"], {"total", "verified", "rewritten", "retired", "carried"});
  expect_fields(j["heads"], {"kept", "fell_back", "broken"});
  EXPECT_EQ(j["heads"]["broken"], 0);
  EXPECT_TRUE(j["paused_optimize_pid"].is_null());
  EXPECT_TRUE(j["timings"].empty());
}

TEST(JsonVerbsNoWorkspace, CalibrateOnTheSimTarget) {
  const auto j =
      json_of(run_headway({"calibrate", "--target", "sim", "--decisions", "20", "--json"}));
  expect_fields(j, {"decisions", "faster_rate", "outcomes", "target", "seed"});
  EXPECT_EQ(j["decisions"], 20);
  EXPECT_EQ(j["target"], "sim");
}

TEST(JsonVerbsNoWorkspace, CompareABaselineWithItself) {
  const std::string source = std::string(HEADWAY_SOURCE_DIR) + "/kernels/baselines/attn_out.cc";
  const CliRun r = run_headway(
      {"compare", "--kernel", "attn_out", "--a", source, "--b", source, "--cap", "4", "--json"}, "",
      300.0);
  const auto j = json_of(r, r.exit_code == 3 ? 3 : 0);
  if (r.exit_code == 3) GTEST_SKIP() << "no sandbox here: " << r.err;
  expect_fields(j, {"kernel", "target", "toolchain", "shape_sets", "outcome", "pairs", "effect_pct",
                    "ci_pct", "rule_config", "warmup_readings", "seed", "device_time"});
  EXPECT_EQ(j["kernel"], "attn_out");
  EXPECT_EQ(j["target"], "cpu");
  EXPECT_LE(j["pairs"].get<int>(), 4);
  EXPECT_EQ(j["rule_config"]["rule"], "betting");
  EXPECT_EQ(j["rule_config"]["cap"], 4);
  EXPECT_EQ(j["rule_config"]["adapt_s0"], true) << "the warm-up's s0 is a prior the pairs update";
  // The readings' time is its parts, and the timed calls' share of it is theirs.
  const auto& time = j["device_time"];
  const double phase = time["reading_phase_seconds"].get<double>();
  EXPECT_NEAR(phase,
              time["process_start_seconds"].get<double>() + time["warm_up_seconds"].get<double>() +
                  time["timed_seconds"].get<double>() + time["guard_seconds"].get<double>() +
                  time["verification_seconds"].get<double>(),
              1e-9);
  ASSERT_GT(phase, 0.0);
  EXPECT_NEAR(time["timed_share_of_readings"].get<double>(),
              time["timed_seconds"].get<double>() / phase, 1e-9);
  const double huge = time["input_huge_page_share"].get<double>();
  EXPECT_TRUE(huge >= 0.0 && huge <= 1.0) << huge;
  // The guard is its steps.
  double steps = 0.0;
  for (const auto& [step, seconds] : time["guard_steps_seconds"].items())
    steps += seconds.get<double>();
  EXPECT_NEAR(steps, time["guard_seconds"].get<double>(), 1e-9);
  EXPECT_EQ(time["guard_steps_seconds"].size(), 9u);
  EXPECT_EQ(j["confirmation"]["readings"], 0) << "nothing to confirm without a FASTER";
}

TEST(JsonVerbsNoWorkspace, CompareConfirmsAFasterByReadingsOfBAlone) {
  const std::string a = std::string(HEADWAY_SOURCE_DIR) + "/kernels/baselines/attn_out.cc";
  const std::string b = std::string(HEADWAY_SOURCE_DIR) + "/kernels/designs/attn_out/perm_bf16.cc";
  const CliRun r = run_headway({"compare", "--kernel", "attn_out", "--a", a, "--b", b,
                                "--confirm-calls", "400", "--seed", "7", "--json"},
                               "", 300.0);
  const auto j = json_of(r, r.exit_code == 3 ? 3 : 0);
  if (r.exit_code == 3) GTEST_SKIP() << "no sandbox here: " << r.err;
  ASSERT_EQ(j["outcome"], "FASTER") << j.dump();
  const auto& c = j["confirmation"];
  // More calls than the decision's readings hold (16 a reading, a FASTER within a few pairs).
  EXPECT_GE(c["verified_calls"].get<int64_t>(), 400);
  EXPECT_GT(c["readings"].get<int>(), 0);
  EXPECT_EQ(c["pairs"], 0) << "no head reading confirms the candidate's calls";
  // Every confirming reading is a reading of B: the session read more than the decision's pairs.
  EXPECT_EQ(
      j["device_time"]["readings"].get<int>(),
      2 + 2 * j["pairs"].get<int>() + j["warmup_readings"].get<int>() + c["readings"].get<int>())
      << "the probe's 2, the pairs', the warm-up's and the confirming readings";
  EXPECT_GT(j["effect_pct"].get<double>(), 0.0) << "time saved, as the tree and the tests say";
}

}  // namespace
}  // namespace headway::cli
