#include "report/json_report.h"

#include <cmath>

#include "report/report_text.h"

namespace headway::report {

namespace {

using nlohmann::json;

json number(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }

template <typename T>
json or_null(const std::optional<T>& v) {
  return v ? json(*v) : json(nullptr);
}

json node_json(const NodeReport& n) {
  const auto& node = n.node;
  return {{"id", node.id},
          {"parent", or_null(node.parent_id)},
          {"kind", std::string(trees::to_string(node.kind))},
          {"design", node.design},
          {"params", node.params},
          {"status", std::string(trees::to_string(node.status))},
          {"reason", node.reason},
          {"evidence", node.evidence},
          {"proposer", node.proposer},
          {"agent", n.agent.empty() ? json(nullptr) : json(n.agent)},
          {"source_hash", node.source_hash},
          {"head", n.head},
          {"former_head", n.former_head},
          {"on_head_path", n.on_head_path},
          {"created_at", node.created_at},
          {"updated_at", node.updated_at},
          {"race_ms", n.race_ms},
          {"test_ms", n.test_ms},
          {"tests", n.tests}};
}

json test_json(const TestReport& t) {
  const auto& r = t.record;
  json readings = json::array();
  for (const auto& x : t.readings) {
    readings.push_back({{"pair", x.pair_index},
                        {"position", x.position},
                        {"node", x.node_id},
                        {"ms", x.seconds * 1e3}});
  }
  json wealth = json::array();
  for (size_t i = 0; i < t.wealth.size(); ++i) {
    const auto& w = t.wealth[i];
    wealth.push_back({{"pair", i + 1},
                      {"faster", w.faster},
                      {"slower", w.slower},
                      {"same_lower", w.same_lower},
                      {"same_upper", w.same_upper}});
  }
  return {
      {"id", r.id},
      {"head_node", r.head_node},
      {"candidate_node", r.candidate_node},
      {"rule", r.rule},
      {"outcome", r.outcome ? json(std::string(statistics::to_string(*r.outcome))) : json(nullptr)},
      {"pairs", r.pairs},
      {"effect_pct", or_null(r.effect_pct)},
      {"ci_low", or_null(r.ci_low)},
      {"ci_high", or_null(r.ci_high)},
      {"note", r.note},
      {"started_at", r.started_at},
      {"finished_at", or_null(r.finished_at)},
      {"readings", readings},
      {"d", t.d},
      {"rule_config", t.config ? statistics::to_json(*t.config) : json(nullptr)},
      {"rule_config_source", t.config_source},
      {"wealth", wealth}};
}

json interval_or_null(const std::optional<MedianInterval>& i) {
  return i ? json{i->low, i->high} : json(nullptr);
}

json kernel_json(const KernelReport& k) {
  json heads = json::array();
  for (const auto& h : k.heads) {
    heads.push_back({{"node", h.node_id},
                     {"since", h.since},
                     {"median_ms", or_null(h.median_ms)},
                     {"test", or_null(h.test_id)}});
  }
  json nodes = json::array(), tests = json::array();
  for (const auto& n : k.nodes) nodes.push_back(node_json(n));
  for (const auto& t : k.tests) tests.push_back(test_json(t));
  return {
      {"name", k.name},
      {"target", k.target},
      {"baseline_ms", number(k.baseline_ms)},
      {"head_ms", number(k.head_ms)},
      {"speedup", number(k.speedup)},
      {"baseline_interval_ms", interval_or_null(k.baseline_interval)},
      {"head_interval_ms", interval_or_null(k.head_interval)},
      {"baseline_bimodal", k.baseline_bimodal},
      {"head_bimodal", k.head_bimodal},
      {"speedup_interval", k.speedup_interval
                               ? json{k.speedup_interval->low, k.speedup_interval->high}
                               : json(nullptr)},
      {"speedup_verdict", k.speedup_verdict().empty() ? json(nullptr) : json(k.speedup_verdict())},
      {"speedup_paired", k.speedup_paired},
      {"floor_ms", number(k.floor_ms)},
      {"floor_beside_head", k.floor_beside_head},
      {"device_model", k.device_model.empty() ? json(nullptr) : json(k.device_model)},
      {"ratio_to_floor", number(k.ratio_to_floor())},
      {"decode_floor_ms", number(k.decode_ms)},
      {"ratio_to_decode_ceiling", number(k.ratio_to_decode())},
      {"remeasured", k.remeasured},
      {"device_seconds", k.device_seconds},
      {"head_node", k.head_node},
      {"heads", heads},
      {"nodes_by_status", k.nodes_by_status},
      {"tests_by_outcome", k.tests_by_outcome},
      {"nodes", nodes},
      {"tests", tests}};
}

json pool_json(const PoolUseReport& p) {
  json workers = json::array();
  for (const auto& w : p.workers) {
    json busy = json::array();
    for (const auto& [start, end] : w.busy) busy.push_back({start, end});
    workers.push_back({{"name", w.name},
                       {"node", w.node},
                       {"jobs", w.jobs},
                       {"connected_s", w.connected_s < 0 ? json(nullptr) : json(w.connected_s)},
                       {"ended_s", w.ended_s < 0 ? json(nullptr) : json(w.ended_s)},
                       {"held_seconds", w.held_seconds(p.elapsed_s)},
                       {"busy_seconds", w.busy_seconds()},
                       {"busy", busy}});
  }
  return {{"id", p.id},
          {"kind", p.kind},
          {"at", p.at},
          {"devices", p.devices},
          {"elapsed_s", p.elapsed_s},
          {"held_seconds", p.held_seconds()},
          {"busy_seconds", p.busy_seconds()},
          {"busy_share", p.busy_share()},
          {"workers", workers}};
}

}  // namespace

json to_json(const Report& r) {
  json roles = json::array();
  for (const auto& u : r.agents.roles) {
    roles.push_back({{"role", u.role},
                     {"calls", u.calls},
                     {"input_tokens", u.input_tokens},
                     {"output_tokens", u.output_tokens},
                     {"cost_usd", u.cost_usd},
                     {"outcomes", u.outcomes},
                     {"candidates", u.candidates},
                     {"accepted", u.accepted}});
  }
  json kernels = json::array();
  for (const auto& k : r.kernels) kernels.push_back(kernel_json(k));
  json pools = json::array();
  for (const auto& p : r.pools) pools.push_back(pool_json(p));
  const auto& kn = r.knowledge;
  return {
      {"schema", kReportSchema},
      {"workspace", r.workspace},
      {"target", r.target},
      {"toolchain", r.toolchain},
      {"headway", r.headway},
      {"generated_at", r.generated_at},
      {"geomean_speedup", number(r.geomean_speedup)},
      {"decision_rate", loop::to_json(r.decision_rate)},
      {"decode_layer", r.decode_layers.empty() ? json(nullptr) : to_json(r.decode_layers.front())},
      {"decode_layers", to_json(r.decode_layers)},
      {"decode_step", r.decode_step ? to_json(*r.decode_step) : json(nullptr)},
      {"device_seconds", r.device_seconds},
      {"agents",
       {{"calls", r.agents.calls},
        {"input_tokens", r.agents.input_tokens},
        {"output_tokens", r.agents.output_tokens},
        {"cost_usd", r.agents.cost_usd},
        {"candidates", r.agents.candidates},
        {"accepted", r.agents.accepted},
        {"roles", roles}}},
      {"knowledge",
       {{"citations", kn.citations ? json(*kn.citations) : json(nullptr)},
        {"rules", kn.rules},
        {"rules_by_status", kn.rules_by_status},
        {"facts", kn.facts}}},
      {"calibration", r.calibration},
      {"calibration_from", r.calibration_from.empty() ? json(nullptr) : json(r.calibration_from)},
      {"unsandboxed_runs", r.unsandboxed_runs},
      {"pools", pools},
      {"kernels", kernels},
      {"device_models", heads_by_model(r.kernels)}};
}

}  // namespace headway::report
