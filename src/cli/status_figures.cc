#include "cli/status_figures.h"

#include <fmt/format.h>

#include <cmath>
#include <string>
#include <vector>

#include "cli/cli_support.h"
#include "cli/unsandboxed_runs.h"
#include "common/median_interval.h"
#include "knowledge/facts.h"
#include "knowledge/kernel_timings.h"
#include "knowledge/workspace_kernels.h"
#include "knowledge/workspace_target.h"
#include "loop/device_time.h"
#include "loop/kernel_floors.h"
#include "loop/library_proposer.h"
#include "report/kernel_summary.h"
#include "statistics/outcome.h"
#include "trees/decision_log.h"
#include "trees/design_tree.h"

namespace headway::cli {

nlohmann::json screen_calibration_json(const loop::ScreenCalibration& c) {
  const auto rate = c.false_gain_rate();
  return {{"candidates", c.candidates},
          {"spearman", c.spearman ? nlohmann::json(*c.spearman) : nlohmann::json(nullptr)},
          {"predicted_gains", c.predicted_gains},
          {"false_gains", c.false_gains},
          {"false_gain_rate", rate ? nlohmann::json(*rate) : nlohmann::json(nullptr)},
          {"trusted", loop::static_cost_trusted(c)}};
}

namespace {

// The test that made the head: {"id", "outcome", "pairs", "effect_pct", "ci_pct", "note"}, or
// null.
nlohmann::json head_test_json(const std::optional<trees::TestRecord>& t) {
  if (!t || !t->outcome) return nullptr;
  const auto number = [](const std::optional<double>& v) {
    return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
  };
  return {{"id", t->id},
          {"outcome", statistics::to_string(*t->outcome)},
          {"pairs", t->pairs},
          {"effect_pct", number(t->effect_pct)},
          {"ci_pct", {number(t->ci_low), number(t->ci_high)}},
          {"note", t->note}};
}

// A kernel with several timed shape sets: baseline, head, floor and ratios at each (the first is
// the kernel's own figures; the others are those remeasure_baseline_and_head stored by name, null
// until it has run). An empty array for a kernel with one (check-only sets are never timed).
nlohmann::json shape_figures(store::Workspace& ws, const targets::Target& target,
                             const report::KernelSummary& k, const std::string& toolchain,
                             const std::optional<loop::FactValues>& facts) {
  nlohmann::json out = nlohmann::json::array();
  const KernelContract* contract = k.contract;
  if (!contract || timed_shape_sets(*contract).size() < 2) return out;
  for (const KernelContract* at : timed_shape_sets(*contract)) {
    const bool first = at == contract;
    const std::string shape = at->shape_set_name();
    // NAN where there is no figure (yet).
    const auto timed = [&](const char* role) {
      return first ? std::nullopt
                   : knowledge::latest_kernel_timing(ws, k.name, toolchain, role, shape);
    };
    const auto baseline_timing = timed(knowledge::kBaselineRole);
    const auto head_timing = timed(knowledge::kHeadRole);
    const double baseline = first             ? k.baseline_ms
                            : baseline_timing ? baseline_timing->median_ms
                                              : NAN;
    const double head = first ? k.head_ms : head_timing ? head_timing->median_ms : NAN;
    // The floor measured around the head's readings where there is one (the first set's is
    // the summary's), else from the workspace's facts.
    double floor = facts ? target.floors(*at, *facts).memory_ms : NAN;
    if (first && k.floor_beside_head) floor = k.floor_ms;
    if (head_timing && head_timing->floor_ms) floor = *head_timing->floor_ms;
    const auto json_of = [](double v) {
      return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr);
    };
    out.push_back({{"shape", shape},
                   {"bytes_to_move", at->bytes_to_move()},
                   {"baseline_ms", json_of(baseline)},
                   {"head_ms", json_of(head)},
                   {"floor_ms", json_of(floor)},
                   {"speedup", json_of(baseline / head)},
                   {"ratio_to_floor", json_of(head / floor)}});
  }
  return out;
}

}  // namespace

std::string unresolved_speedup_text(const nlohmann::json& k) {
  const auto& interval = k["speedup_interval"];
  std::string text = fmt::format(
      "{}: its {:.2f}x is not supported by the last side-by-side timing: {} give the speedup a "
      "95% interval of {:.2f}x to {:.2f}x, which holds 1{}",
      k["name"].get<std::string>(), k["speedup"].get<double>(),
      k.value("speedup_paired", false) ? "the ratios of its readings taken in turn"
                                       : "the baseline's and the head's median intervals",
      interval[0].get<double>(), interval[1].get<double>(),
      k.value("head_bimodal", false) || k.value("baseline_bimodal", false)
          ? " (readings in two groups: a machine switching between speeds)"
          : "");
  const auto& test = k["head_test"];
  if (test.is_object() && test["effect_pct"].is_number() && test["ci_pct"][0].is_number()) {
    text += fmt::format(
        ". The acceptance test that made its head said {} after {} pairs, {:.1f}% of the time of "
        "the head before it saved [{:.1f}%, {:.1f}%]: the test reads in pairs until it is sure, "
        "the final timing reads a fixed number, too few at this spread",
        test["outcome"].get<std::string>(), test["pairs"].get<int64_t>(),
        test["effect_pct"].get<double>(), test["ci_pct"][0].get<double>(),
        test["ci_pct"][1].get<double>());
  }
  return text;
}

std::string head_evidence(const nlohmann::json& k, const std::string& toolchain,
                          const std::string& recheck) {
  const auto ms = [](const nlohmann::json& v) {
    return v.is_number() ? fmt::format("{:.4g} ms", v.get<double>()) : std::string("-");
  };
  const auto times = [](const nlohmann::json& v) {
    return v.is_number() ? fmt::format("{:.2f}x", v.get<double>()) : std::string("-");
  };
  const std::string name = k["name"].get<std::string>();
  std::string text = fmt::format("{}: headway head {}, {} the baseline, {} of its floor\n\n", name,
                                 k["head_design"].get<std::string>(), times(k["speedup"]),
                                 times(k["ratio_to_floor"]));
  text += fmt::format("head: node {}, design {}, parameters {}\n", k["head_node"].get<int64_t>(),
                      k["head_design"].get<std::string>(), k["head_params"].dump());
  if (const auto& t = k["head_test"]; t.is_object()) {
    text +=
        fmt::format("made head by acceptance test #{}: {} after {} pairs", t["id"].get<int64_t>(),
                    t["outcome"].get<std::string>(), t["pairs"].get<int64_t>());
    if (t["effect_pct"].is_number() && t["ci_pct"][0].is_number())
      text += fmt::format(", {:.2f}% of the time of the head before it saved [{:.2f}%, {:.2f}%]",
                          t["effect_pct"].get<double>(), t["ci_pct"][0].get<double>(),
                          t["ci_pct"][1].get<double>());
    if (const std::string note = t.value("note", ""); !note.empty()) text += "; " + note;
    text += "\n";
  }
  text += fmt::format("baseline {}, head {}: {} the baseline", ms(k["baseline_ms"]),
                      ms(k["head_ms"]), times(k["speedup"]));
  if (const auto& i = k["speedup_interval"]; i.is_array())
    text += fmt::format(" (95% interval {:.2f}x to {:.2f}x, {})", i[0].get<double>(),
                        i[1].get<double>(), k["speedup_verdict"].get<std::string>());
  text += fmt::format("; {} of the floor ({})\n", times(k["ratio_to_floor"]), ms(k["floor_ms"]));
  for (const auto& s : k["shapes"]) {
    text += fmt::format("at shape set {}: head {}, {} the baseline, {} of the floor ({})\n",
                        s["shape"].get<std::string>(), ms(s["head_ms"]), times(s["speedup"]),
                        times(s["ratio_to_floor"]), ms(s["floor_ms"]));
  }
  text += fmt::format("toolchain: {} (target {})\n", toolchain, k["target"].get<std::string>());
  text += "re-check: " + recheck;
  return text;
}

nlohmann::json status_figures(store::Workspace& ws, targets::Target& target,
                              const KernelCatalog& catalog) {
  nlohmann::json out = {{"kernels", nlohmann::json::array()}};
  const std::string toolchain = knowledge::toolchain_id_of(target);
  const auto facts = loop::load_floor_facts(ws, target, toolchain);
  out["toolchain"] = toolchain;
  out["toolchain_caveat"] = target.identity().caveat.empty()
                                ? nlohmann::json(nullptr)
                                : nlohmann::json(target.identity().caveat);
  // What the design library has left per kernel, by the facts of the current toolchain.
  const loop::FactLookup fact_of = [&ws,
                                    &toolchain](const std::string& name) -> std::optional<double> {
    const auto f = knowledge::find_fact(ws, name, toolchain);
    return f ? std::optional<double>(f->value) : std::nullopt;
  };
  std::vector<double> speedups;
  std::vector<report::KernelSummary> summaries;
  const auto interval_json = [](const std::optional<MedianInterval>& i) {
    return i ? nlohmann::json{i->low, i->high} : nlohmann::json(nullptr);
  };
  for (const auto& [record, contract] : knowledge::recorded_kernels(ws, catalog)) {
    auto tree = trees::DesignTree::open(ws, record.name);
    if (!tree) fail_with(tree.error());
    trees::DecisionLog log(tree.value());
    const report::KernelSummary k =
        report::summarize_kernel(ws, target, record, contract, tree.value(), log, toolchain, facts);
    speedups.push_back(k.speedup);
    summaries.push_back(k);
    // Every outcome, with 0 for those no test had.
    nlohmann::json tests = nlohmann::json::object();
    for (const auto outcome : statistics::kAllOutcomes) {
      const std::string name(statistics::to_string(outcome));
      const auto found = k.tests_by_outcome.find(name);
      tests[name] = found == k.tests_by_outcome.end() ? int64_t{0} : found->second;
    }
    out["kernels"].push_back(
        {{"name", k.name},
         {"target", k.target},
         {"baseline_ms", k.baseline_ms},
         {"head_ms", k.head_ms},
         {"remeasured", k.remeasured},
         {"head_node", k.head_node},
         {"head_design", k.head_design},
         {"head_params", k.head_params},
         {"heads", k.heads.size()},
         {"speedup", k.speedup},
         {"baseline_interval_ms", interval_json(k.baseline_interval)},
         {"head_interval_ms", interval_json(k.head_interval)},
         {"baseline_bimodal", k.baseline_bimodal},
         {"head_bimodal", k.head_bimodal},
         {"speedup_interval",
          k.speedup_interval ? nlohmann::json{k.speedup_interval->low, k.speedup_interval->high}
                             : nlohmann::json(nullptr)},
         {"speedup_verdict", k.speedup_verdict().empty() ? nlohmann::json(nullptr)
                                                         : nlohmann::json(k.speedup_verdict())},
         {"speedup_paired", k.speedup_paired},
         {"head_test", head_test_json(k.head_test)},
         {"floor_ms", k.floor_ms},
         {"floor_beside_head", k.floor_beside_head},
         {"device_model",
          k.device_model.empty() ? nlohmann::json(nullptr) : nlohmann::json(k.device_model)},
         {"ratio_to_floor", k.ratio_to_floor()},
         {"decode_floor_ms", k.decode_ms},
         {"ratio_to_decode_ceiling", k.ratio_to_decode()},
         {"nodes", k.nodes_by_status},
         {"untried",
          contract ? loop::untried_library_candidates(target, fact_of, *contract, tree.value())
                   : 0},
         {"tests", tests},
         {"device_seconds", k.device_seconds},
         {"screen_calibration",
          screen_calibration_json(loop::summarize_screen_calibration(ws, record.name))},
         {"device_seconds_by_activity", loop::device_seconds_split(ws, record.name)},
         {"shapes",
          shape_figures(ws, target, k, toolchain, k.model_facts ? k.model_facts : facts)}});
  }
  out["geomean_speedup"] = report::geomean_speedup(speedups);
  out["decision_rate"] = loop::to_json(loop::decision_rate(ws));
  std::vector<const report::KernelSummary*> summary_ptrs;
  for (const auto& k : summaries) summary_ptrs.push_back(&k);
  // The models the heads' figures were read on, each with its kernels.
  out["device_models"] = report::heads_by_model(summary_ptrs);
  const auto step = report::summarize_decode_step(summary_ptrs);
  out["decode_step"] = step ? report::to_json(*step) : nlohmann::json(nullptr);
  const auto layer = report::summarize_decode_layer(summary_ptrs);
  out["decode_layer"] = layer ? report::to_json(*layer) : nlohmann::json(nullptr);
  // How well the target's static cost ranked the raced candidates (targets with a static cost).
  out["screen_calibration"] = screen_calibration_json(loop::summarize_screen_calibration(ws));
  const UnsandboxedRuns unsandboxed = unsandboxed_runs(ws);
  out["unsandboxed_runs"] = {{"count", unsandboxed.count}, {"last_at", unsandboxed.last_at}};
  return out;
}

const nlohmann::json& StatusFigures::current(targets::Target& target) {
  // Read before the figures: a commit while they are computed makes the next call compute again.
  const int64_t version = ws_->db().query_int64("PRAGMA data_version");
  if (computations_ == 0 || version != data_version_ || &target != target_) {
    figures_ = status_figures(*ws_, target, catalog_);
    data_version_ = version;
    target_ = &target;
    ++computations_;
  }
  return figures_;
}

}  // namespace headway::cli
