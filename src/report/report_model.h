#pragma once
// What `headway report` shows, collected from a workspace into plain values: per kernel its
// figures (baseline, head, floors), head history, every node of its Design Tree with its source
// and diff, every acceptance test with its readings and replayed wealth; and over the workspace
// the geomean, device time, agent use, knowledge counts and, when given, an A/A calibration.
// The renderers (html_report.h, markdown_report.h, json_report.h, t4_export.h) read only this.
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "agents/agent_ledger.h"
#include "kernels/kernel_catalog.h"
#include "knowledge/head_export.h"
#include "loop/device_time.h"
#include "report/kernel_summary.h"
#include "report/pool_use.h"
#include "statistics/betting_rule.h"
#include "store/workspace.h"
#include "targets/target.h"
#include "trees/decision_log.h"
#include "trees/design_tree.h"

namespace headway::report {

struct NodeReport {
  trees::Node node;
  std::string source;         // the node's source; empty when its artifact is missing
  std::string diff;           // unified diff against the parent's source; empty for the root
  std::string agent;          // the agent call that proposed it ("openai m, role variant, call 3")
  bool head = false;          // the kernel's current head
  bool former_head = false;   // was the head once
  bool on_head_path = false;  // on the path from the root to the head
  std::vector<double> race_ms;         // its readings in races, in ms
  std::vector<double> test_ms;         // its readings in acceptance tests, in ms
  std::vector<int64_t> tests;          // the acceptance tests it took part in (head or candidate)
  std::vector<double> all_ms() const;  // every reading of it (races and tests), in ms
};

struct TestReport {
  trees::TestRecord record;
  std::vector<trees::TestReading> readings;  // by pair, then position
  std::vector<double> d;                     // per complete pair: ln(candidate time / head time)
  // The betting rule's settings: as recorded with the test (the candidate's evidence), else
  // estimated (s0 from the head's readings in the test, alpha and the rest at their defaults);
  // nullopt for a test of another rule or too few readings to estimate.
  std::optional<statistics::BettingConfig> config;
  std::string config_source;                      // "recorded", "estimated" or "none"
  std::vector<statistics::BettingWealth> wealth;  // after each pair, until the rule decided
};

// A kernel's summary (kernel_summary.h, as status shows it) and its Design Tree in detail.
struct KernelReport : KernelSummary {
  std::vector<NodeReport> nodes;  // by id
  std::vector<TestReport> tests;  // by id
  std::string dot;  // the Design Tree as Graphviz, nodes linked to "#" + node_anchor(...)
  const NodeReport* node(int64_t id) const;  // nullptr when absent
};

// The workspace's agent use: the total over every role (agents::total_usage, role "total") and
// each role's own.
struct AgentTotals : agents::RoleUsage {
  std::vector<agents::RoleUsage> roles;
};

struct KnowledgeCounts {
  // Verdicts of the cited summary's citations (onboarding's citations.json); nullopt when the
  // workspace was never onboarded with a summary.
  std::optional<std::map<std::string, int64_t>> citations;
  std::map<std::string, int64_t> rules_by_status;  // under the current toolchain
  int64_t rules = 0;
  int64_t facts = 0;  // of the current toolchain
};

struct Report {
  std::string workspace;       // its root directory
  std::string target;          // the workspace's target
  std::string toolchain;       // the current toolchain id
  std::string headway;         // version_label() of the headway that made the report
  std::string generated_at;    // UTC, ISO 8601
  double geomean_speedup = 0;  // NaN when no kernel has a speedup
  // The decode step from the kernels' final side-by-side timings (summarize_decode_step);
  // nullopt unless every kernel of the step has re-measured figures.
  std::optional<DecodeStepSummary> decode_step;
  // The decode layer, the step and the attention kernel, at each of the attention kernel's shape
  // sets timed side by side (summarize_decode_layers); empty without one.
  std::vector<DecodeStepSummary> decode_layers;
  double device_seconds = 0;          // summed over kernels
  loop::DecisionRate decision_rate;   // over the whole workspace
  std::vector<KernelReport> kernels;  // by name
  AgentTotals agents;
  KnowledgeCounts knowledge;
  nlohmann::json calibration;    // `headway calibrate --json` output given to the report; or null
  std::string calibration_from;  // where it was read from; empty when null
  int64_t unsandboxed_runs = 0;
  std::vector<PoolUseReport> pools;  // the runs that had a device pool, oldest first
  // The latest `headway export` of each kernel whose head it still is (knowledge/head_export.h).
  std::vector<knowledge::ExportRecord> exports;
};

struct CollectOptions {
  nlohmann::json calibration;  // see Report::calibration
  std::string calibration_from;
  // The contracts of the workspace's kernels (cli: kernel_catalog_or_throw); by default the
  // built-in kernels only.
  KernelCatalog catalog;
};

// Collects the report of a workspace whose target is `target`. Throws store::StoreError on a
// database failure and std::runtime_error when `diff` (diffutils) cannot run.
Report collect_report(store::Workspace& ws, targets::Target& target,
                      const CollectOptions& options = {});

// The HTML id of a node's details: "node-<kernel>-<id>"; of a test's: "test-<kernel>-<id>".
std::string node_anchor(const std::string& kernel, int64_t id);
std::string test_anchor(const std::string& kernel, int64_t id);

// Seconds since the Unix epoch of a store timestamp ("2026-11-30T12:00:00.123Z"); nullopt when
// it does not parse.
std::optional<double> timestamp_seconds(const std::string& iso);

}  // namespace headway::report
