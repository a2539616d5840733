#include "report/report_model.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <ctime>
#include <set>

#include "common/build_info.h"
#include "common/file_io.h"
#include "knowledge/docs_index.h"
#include "knowledge/facts.h"
#include "knowledge/onboard.h"
#include "knowledge/rules.h"
#include "knowledge/workspace_kernels.h"
#include "knowledge/workspace_target.h"
#include "loop/kernel_floors.h"
#include "report/tools.h"
#include "statistics/calibration.h"
#include "trees/tree_render.h"

namespace headway::report {

namespace {

// The scale estimate_s0 (statistics/calibration.h) takes from a warm-up, over the head's readings
// in pair order; nullopt with fewer than 3 readings or no variation.
std::optional<double> s0_from_head_readings(const std::vector<trees::TestReading>& readings,
                                            int64_t head) {
  std::vector<double> logs;
  for (const auto& r : readings) {
    if (r.node_id == head && r.seconds > 0) logs.push_back(std::log(r.seconds));
  }
  if (logs.size() < 3) return std::nullopt;
  const double s0 = statistics::s0_from_log_times(logs);
  return s0 > 0 ? std::optional<double>(s0) : std::nullopt;
}

TestReport test_report(const trees::DecisionLog& log, const trees::TestRecord& t,
                       const trees::DesignTree& tree) {
  TestReport out;
  out.record = t;
  out.readings = log.readings(t.id);
  std::map<int, std::pair<double, double>> pairs;  // pair -> (head s, candidate s); 0 if absent
  for (const auto& r : out.readings) {
    auto& p = pairs[r.pair_index];
    (r.node_id == t.candidate_node ? p.second : p.first) = r.seconds;
  }
  for (const auto& [index, p] : pairs) {
    if (p.first > 0 && p.second > 0) out.d.push_back(std::log(p.second) - std::log(p.first));
  }
  out.config_source = "none";
  if (t.rule != "betting") return out;
  // The candidate's evidence keeps the settings of the last test it took.
  if (const auto candidate = tree.node(t.candidate_node)) {
    const auto& e = candidate->evidence;
    if (e.is_object() && e.value("test_id", int64_t{-1}) == t.id && e.contains("rule_config")) {
      auto config = statistics::betting_config_from_json(e["rule_config"]);
      if (config) {
        out.config = config.value();
        out.config_source = "recorded";
      }
    }
  }
  if (!out.config) {
    if (const auto s0 = s0_from_head_readings(out.readings, t.head_node)) {
      statistics::BettingConfig config;
      config.s0 = *s0;
      out.config = config;
      out.config_source = "estimated";
    }
  }
  if (out.config) {
    auto path = statistics::wealth_path(*out.config, out.d);
    if (path) out.wealth = std::move(path.value());
  }
  return out;
}

KernelReport kernel_report(store::Workspace& ws, targets::Target& target,
                           const knowledge::RecordedKernel& recorded, const std::string& toolchain,
                           const std::optional<loop::FactValues>& facts) {
  const trees::KernelRecord& record = recorded.record;
  auto opened = trees::DesignTree::open(ws, record.name);
  if (!opened) throw std::runtime_error(opened.error().message);
  trees::DesignTree& tree = opened.value();
  trees::DecisionLog log(tree);
  KernelReport k;
  static_cast<KernelSummary&>(k) =
      summarize_kernel(ws, target, record, recorded.contract, tree, log, toolchain, facts);

  std::set<int64_t> former, path;
  for (const auto& h : k.heads) {
    if (h.node_id != k.head_node) former.insert(h.node_id);
  }
  for (const auto& n : tree.path_to_root(k.head_node)) path.insert(n.id);
  std::map<int64_t, std::string> sources;
  for (const auto& n : tree.nodes()) sources[n.id] = tree.source(n.id).value_or("");

  for (const auto& t : log.tests()) k.tests.push_back(test_report(log, t, tree));
  std::map<int64_t, std::vector<int64_t>> tests_of;
  std::map<int64_t, std::vector<double>> test_ms;
  for (const auto& t : k.tests) {
    tests_of[t.record.head_node].push_back(t.record.id);
    tests_of[t.record.candidate_node].push_back(t.record.id);
    for (const auto& reading : t.readings)
      test_ms[reading.node_id].push_back(reading.seconds * 1e3);
  }
  std::map<int64_t, std::vector<double>> race_ms;
  auto stmt = ws.db().prepare(
      "SELECT node_id, seconds FROM readings WHERE kernel = ?1 AND race_id IS NOT NULL "
      "ORDER BY id");
  stmt.bind(1, record.name);
  while (stmt.step()) race_ms[stmt.int64(0)].push_back(stmt.real(1) * 1e3);

  for (const auto& n : tree.nodes()) {
    NodeReport r;
    r.node = n;
    r.source = sources[n.id];
    if (n.parent_id) {
      r.diff = unified_diff(sources[*n.parent_id], r.source, fmt::format("#{}", *n.parent_id),
                            fmt::format("#{}", n.id));
    }
    if (const auto call = agents::node_agent_call(ws, n.id)) r.agent = call->describe();
    r.head = n.id == k.head_node;
    r.former_head = former.count(n.id) > 0;
    r.on_head_path = path.count(n.id) > 0;
    r.race_ms = race_ms[n.id];
    r.test_ms = test_ms[n.id];
    r.tests = tests_of[n.id];
    std::sort(r.tests.begin(), r.tests.end());
    k.nodes.push_back(std::move(r));
  }
  trees::DotOptions dot;
  dot.highlight_head_path = true;
  dot.link = [&k](const trees::Node& n) { return "#" + node_anchor(k.name, n.id); };
  k.dot = trees::render_dot(tree, dot);
  return k;
}

KnowledgeCounts knowledge_counts(store::Workspace& ws, const std::string& toolchain) {
  KnowledgeCounts c;
  if (const auto text = read_file(knowledge::knowledge_dir(ws) / "citations.json")) {
    const auto j = nlohmann::json::parse(*text, nullptr, /*allow_exceptions=*/false);
    if (j.is_object() && j.contains("totals") && j["totals"].is_object()) {
      std::map<std::string, int64_t> totals;
      for (const auto& [verdict, count] : j["totals"].items()) {
        if (count.is_number_integer()) totals[verdict] = count.get<int64_t>();
      }
      c.citations = totals;
    }
  }
  for (const auto& rule : knowledge::list_rules(ws)) {
    ++c.rules;
    std::string status = "no status";
    for (const auto& s : rule.statuses) {
      if (s.toolchain == toolchain) status = std::string(knowledge::to_string(s.state));
    }
    ++c.rules_by_status[status];
  }
  c.facts = static_cast<int64_t>(knowledge::list_facts(ws, toolchain).size());
  return c;
}

AgentTotals agent_totals(store::Workspace& ws) {
  AgentTotals a;
  a.roles = agents::usage_by_role(ws);
  static_cast<agents::RoleUsage&>(a) = agents::total_usage(a.roles);
  return a;
}

}  // namespace

std::vector<double> NodeReport::all_ms() const {
  std::vector<double> all = race_ms;
  all.insert(all.end(), test_ms.begin(), test_ms.end());
  return all;
}

const NodeReport* KernelReport::node(int64_t id) const {
  for (const auto& n : nodes) {
    if (n.node.id == id) return &n;
  }
  return nullptr;
}

std::string node_anchor(const std::string& kernel, int64_t id) {
  return fmt::format("node-{}-{}", kernel, id);
}

std::string test_anchor(const std::string& kernel, int64_t id) {
  return fmt::format("test-{}-{}", kernel, id);
}

std::optional<double> timestamp_seconds(const std::string& iso) {
  std::tm tm{};
  int year = 0, month = 0, day = 0, hour = 0, minute = 0;
  double second = 0;
  char t = 0;
  if (std::sscanf(iso.c_str(), "%d-%d-%d%c%d:%d:%lf", &year, &month, &day, &t, &hour, &minute,
                  &second) != 7 ||
      (t != 'T' && t != ' ')) {
    return std::nullopt;
  }
  tm.tm_year = year - 1900;
  tm.tm_mon = month - 1;
  tm.tm_mday = day;
  tm.tm_hour = hour;
  tm.tm_min = minute;
  tm.tm_sec = 0;
  const time_t whole = timegm(&tm);
  if (whole == static_cast<time_t>(-1)) return std::nullopt;
  return static_cast<double>(whole) + second;
}

Report collect_report(store::Workspace& ws, targets::Target& target,
                      const CollectOptions& options) {
  Report r;
  r.workspace = ws.root().string();
  r.target = target.name();
  r.toolchain = knowledge::toolchain_id_of(target);
  r.headway = version_label();
  r.generated_at = knowledge::utc_timestamp_now();
  const auto facts = loop::load_floor_facts(ws, target, r.toolchain);
  std::vector<double> speedups;
  for (const auto& recorded : knowledge::recorded_kernels(ws, options.catalog)) {
    r.kernels.push_back(kernel_report(ws, target, recorded, r.toolchain, facts));
    r.device_seconds += r.kernels.back().device_seconds;
    speedups.push_back(r.kernels.back().speedup);
  }
  r.geomean_speedup = geomean_speedup(speedups);
  r.decision_rate = loop::decision_rate(ws);
  std::vector<const KernelSummary*> summaries;
  for (const auto& k : r.kernels) summaries.push_back(&k);
  r.decode_step = summarize_decode_step(summaries);
  r.decode_layers = summarize_decode_layers(summaries);
  r.agents = agent_totals(ws);
  r.knowledge = knowledge_counts(ws, r.toolchain);
  r.calibration = options.calibration;
  r.calibration_from = options.calibration.is_null() ? "" : options.calibration_from;
  r.unsandboxed_runs = ws.db().query_int64("SELECT COUNT(*) FROM unsandboxed_runs");
  r.pools = pool_use_reports(ws);
  for (auto& e : knowledge::exported_heads(ws)) {
    for (const auto& k : r.kernels)
      if (k.name == e.kernel && k.head_node == e.node) r.exports.push_back(std::move(e));
  }
  return r;
}

}  // namespace headway::report
