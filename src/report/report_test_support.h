#pragma once
// For tests: a workspace with a real run in it, made by the optimize loop on the sim target
// (screening failures, races, acceptance tests, new heads), in-process and in seconds.
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "knowledge/rule_lint.h"
#include "knowledge/rules.h"
#include "knowledge/workspace_target.h"
#include "loop/library_proposer.h"
#include "loop/optimizer.h"
#include "report/report_model.h"
#include "store/test_temp_dir.h"
#include "store/workspace.h"
#include "targets/registry/registry.h"

namespace headway::report {

// Runs the design library on `kernels` of the sim target to its end in the workspace at `dir`
// (created), and returns the sim target.
inline std::unique_ptr<targets::Target> make_sim_run(const std::filesystem::path& dir,
                                                     std::vector<std::string> kernels) {
  auto ws = store::Workspace::create(dir).value();
  auto target = targets::make_target("sim");
  knowledge::set_workspace_target_name(ws, "sim");
  loop::OptimizeOptions options;
  options.kernels = std::move(kernels);
  options.target = target.get();
  options.lint = knowledge::rule_lint_following_workspace(ws);
  options.on_screen_failure = [&ws](const std::string& kernel, int64_t) {
    (void)knowledge::mine_rules_from_tree(ws, kernel);
  };
  loop::LibraryProposer proposer(*target);
  loop::optimize(ws, proposer, options, [](const loop::Progress&) {});
  return target;
}

// A small report by hand: kernel qkv with a root (#1), a design accepted as head by test #1
// (#2, parameters {"tile":64}) and a design that failed to build (#3, "a|b" in its reason);
// one agent call; citations, rules and facts; and an A/A calibration.
inline Report sample_report() {
  Report r;
  r.workspace = "/ws";
  r.target = "cpu";
  r.toolchain = "gcc-12";
  r.headway = "0.1.0 (commit test)";
  r.generated_at = "2026-11-30T12:00:00.000Z";
  r.geomean_speedup = 4.0;
  r.device_seconds = 42.0;
  r.decision_rate = {3, 42.0, 3 * 3600.0 / 42.0, 0.5};
  KernelReport k;
  k.name = "qkv";
  k.target = "cpu";
  k.baseline_ms = 8.0;
  k.head_ms = 2.0;
  k.floor_ms = 1.0;
  k.decode_ms = 0.5;
  k.speedup = 4.0;
  k.device_seconds = 42.0;
  k.head_node = 2;
  k.heads = {{1, 1, "2026-11-30T11:00:00.000Z", 8.0, std::nullopt, std::nullopt},
             {2, 2, "2026-11-30T11:30:00.000Z", 2.0, 1, 30.0}};
  NodeReport root, head, failed;
  root.node.id = 1;
  root.node.kind = trees::NodeKind::kBaseline;
  root.node.design = "baseline";
  root.node.status = trees::NodeStatus::kAccepted;
  root.node.updated_at = "2026-11-30T11:00:00.000Z";
  root.source = "int base;\n";
  root.former_head = root.on_head_path = true;
  root.test_ms = {8.1, 7.9};
  root.tests = {1};
  head.node.id = 2;
  head.node.parent_id = 1;
  head.node.design = "tiled";
  head.node.params = {{"tile", 64}};
  head.node.status = trees::NodeStatus::kAccepted;
  head.node.reason = "FASTER vs #1 in test #1";
  head.node.updated_at = "2026-11-30T11:30:00.000Z";
  head.source = "int tiled<64>;\n";
  head.diff = "--- #1\n+++ #2\n@@ -1 +1 @@\n-int base;\n+int tiled<64>;\n";
  head.agent = "openai m, role design, call 1";
  head.head = head.on_head_path = true;
  head.race_ms = {2.2, 2.1};
  head.test_ms = {2.0, 1.9};
  head.tests = {1};
  failed.node.id = 3;
  failed.node.parent_id = 1;
  failed.node.design = "wide";
  failed.node.status = trees::NodeStatus::kBuildFailed;
  failed.node.reason = "error: a|b <not declared>";
  failed.node.evidence = {{"diagnostics", "x.cc:1: error: 'a' was not declared"}};
  failed.node.updated_at = "2026-11-30T11:40:00.000Z";
  failed.source = "int wide;\n";
  k.nodes = {root, head, failed};
  TestReport t;
  t.record.id = 1;
  t.record.kernel = "qkv";
  t.record.head_node = 1;
  t.record.candidate_node = 2;
  t.record.rule = "betting";
  t.record.outcome = statistics::Outcome::kFaster;
  t.record.pairs = 2;
  t.record.effect_pct = 75.0;
  t.record.ci_low = 70.0;
  t.record.ci_high = 80.0;
  t.record.finished_at = "2026-11-30T11:30:00.000Z";
  t.readings = {{1, 0, 0, 0, 0.0081, nullptr},
                {2, 0, 1, 0, 0.0020, nullptr},
                {2, 1, 0, 0, 0.0019, nullptr},
                {1, 1, 1, 0, 0.0079, nullptr}};
  t.d = {std::log(2.0 / 8.1), std::log(1.9 / 7.9)};
  statistics::BettingConfig c;
  c.s0 = 0.02;
  t.config = c;
  t.config_source = "recorded";
  t.wealth = statistics::wealth_path(c, t.d).value();
  k.tests = {t};
  k.nodes_by_status = {{"accepted", 2}, {"build-failed", 1}};
  k.tests_by_outcome = {{"FASTER", 1}};
  k.dot = "digraph \"qkv\" { n1 -> n2; n1 -> n3; }";
  r.kernels = {k};
  r.agents.calls = 1;
  r.agents.input_tokens = 1000;
  r.agents.output_tokens = 200;
  r.agents.cost_usd = 0.25;
  r.agents.candidates = 1;
  r.agents.accepted = 1;
  agents::RoleUsage role;
  role.role = "design";
  role.calls = 1;
  role.cost_usd = 0.25;
  r.agents.roles = {role};
  r.knowledge.citations =
      std::map<std::string, int64_t>{{"supported-by-text", 12}, {"unsupported", 1}};
  r.knowledge.rules_by_status = {{"verified", 3}};
  r.knowledge.rules = 3;
  r.knowledge.facts = 24;
  r.calibration = {{"decisions", 300},    {"faster_rate", 0.02}, {"faster_rate_upper95", 0.04},
                   {"slower_rate", 0.03}, {"same_rate", 0.9},    {"inconclusive_rate", 0.05},
                   {"mean_pairs", 9.5},   {"target", "sim"},     {"rule", "betting"},
                   {"alpha", 0.05},       {"effect_pct", 0.0}};
  r.calibration_from = "aa.json";
  return r;
}

// A slurm pool of two workers over 100 s, as pool::pool_use_json writes it: w1 on dev1 held its
// device from 2 s to the end and was busy 60 s (7 jobs), w2 on dev2 from 10 s until it was lost at
// 50 s, busy 30 s (3 jobs).
inline nlohmann::json sample_pool_use() {
  return {{"kind", "slurm"},
          {"devices", 2},
          {"elapsed_s", 100.0},
          {"workers",
           {{{"name", "w1"},
             {"node", "dev1"},
             {"jobs", 7},
             {"connected_s", 2.0},
             {"ended_s", nullptr},
             {"busy", {{10.0, 40.0}, {50.0, 80.0}}}},
            {{"name", "w2"},
             {"node", "dev2"},
             {"jobs", 3},
             {"connected_s", 10.0},
             {"ended_s", 50.0},
             {"busy", {{10.0, 40.0}}}}}}};
}

// That pool as run #7's, ended 2026-11-30T12:00:00.000Z.
inline PoolUseReport sample_pool() {
  return parse_pool_use(7, "slurm", "2026-11-30T12:00:00.000Z", sample_pool_use());
}

}  // namespace headway::report
