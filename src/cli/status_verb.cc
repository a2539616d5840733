#include <fmt/format.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "cli/cli_support.h"
#include "cli/unsandboxed_runs.h"
#include "cli/verbs.h"
#include "knowledge/facts.h"
#include "knowledge/kernel_timings.h"
#include "loop/kernel_floors.h"
#include "loop/library_proposer.h"
#include "loop/optimizer.h"
#include "loop/screen_calibration.h"
#include "search/decision_log.h"
#include "search/design_tree.h"

namespace headway::cli {

namespace {
// The screen calibration (loop/screen_calibration.h) as JSON; nulls where undefined.
nlohmann::json calibration_json(const loop::CalibrationSummary& c) {
  const auto rate = c.false_gain_rate();
  return {{"candidates", c.candidates},
          {"spearman", c.spearman ? nlohmann::json(*c.spearman) : nlohmann::json(nullptr)},
          {"predicted_gains", c.predicted_gains},
          {"false_gains", c.false_gains},
          {"false_gain_rate", rate ? nlohmann::json(*rate) : nlohmann::json(nullptr)},
          {"trusted", loop::static_cost_trusted(c)}};
}

std::string calibration_text(const nlohmann::json& c) {
  const std::string rho = c["spearman"].is_null()
                              ? "n/a (fewer than 3 candidates or no variation)"
                              : fmt::format("{:+.2f}", c["spearman"].get<double>());
  const std::string rate =
      c["false_gain_rate"].is_null()
          ? "no gain predicted"
          : fmt::format("{} of {} ({:.0f}%)", c["false_gains"].get<int>(),
                        c["predicted_gains"].get<int>(), 100 * c["false_gain_rate"].get<double>());
  return fmt::format(
      "{} candidates, Spearman rank correlation {}, predicted gains the device did not show: {}{}",
      c["candidates"].get<int>(), rho, rate,
      c["trusted"].get<bool>() ? "" : " (not trusted: not used to screen)");
}

// v with `decimals` decimals and `suffix`, or "-" when v is not finite.
std::string finite_or_dash(double v, int decimals, const char* suffix = "") {
  return std::isfinite(v) ? fmt::format("{:.{}f}{}", v, decimals, suffix) : std::string("-");
}

struct StatusArgs {
  std::string workspace;
  bool json = false;
};

int run_status(const StatusArgs& args) {
  store::Workspace ws = open_workspace_or_throw(args.workspace);
  nlohmann::json out = {{"kernels", nlohmann::json::array()}};
  const std::unique_ptr<targets::Target> target = workspace_target_or_throw(ws);
  // Figures re-measured side by side under the current toolchain (at the end of every optimize
  // run, and by a toolchain migration) replace the recorded ones, which may come from an
  // acceptance test long ago or from an earlier toolchain; the old ones stay in the workspace.
  const std::string toolchain = knowledge::toolchain_id_of(*target);
  const auto facts = loop::load_floor_facts(ws, *target, toolchain);
  out["toolchain"] = toolchain;
  bool any_remeasured = false;
  double log_sum = 0.0;
  int counted = 0;
  // What the design library has left per kernel, by the facts of the current toolchain.
  const loop::FactLookup fact_of = [&ws,
                                    &toolchain](const std::string& name) -> std::optional<double> {
    const auto f = knowledge::find_fact(ws, name, toolchain);
    return f ? std::optional<double>(f->value) : std::nullopt;
  };
  for (const auto& record : search::DesignTree::kernels(ws)) {
    auto tree = search::DesignTree::open(ws, record.name);
    if (!tree) throw UsageError(tree.error().message);
    search::DecisionLog log(tree.value());
    const auto head = tree.value().head();
    const auto head_node = tree.value().node(head.node_id);
    const double baseline =
        knowledge::current_baseline_ms(ws, tree.value(), toolchain).value_or(NAN);
    const double head_ms =
        knowledge::current_head_ms(ws, tree.value(), toolchain).value_or(baseline);
    const bool remeasured =
        knowledge::latest_kernel_timing(ws, record.name, toolchain, knowledge::kBaselineRole)
            .has_value();
    any_remeasured |= remeasured;
    const double floor = record.floor_ms.value_or(NAN);
    nlohmann::json nodes = nlohmann::json::object();
    for (const auto& [status, count] : tree.value().count_by_status()) {
      if (count) nodes[std::string(search::to_string(status))] = count;
    }
    nlohmann::json tests = nlohmann::json::object();
    for (const auto& [outcome, count] : log.counts().by_outcome)
      tests[std::string(measure::to_string(outcome))] = count;
    const double speedup = baseline / head_ms;
    const KernelContract* kernel = find_kernel(record.name);
    const double decode_ms =
        facts && kernel ? target->floors(*kernel, *facts).instruction_ms.value_or(NAN) : NAN;
    if (std::isfinite(speedup) && speedup > 0) {
      log_sum += std::log(speedup);
      ++counted;
    }
    out["kernels"].push_back(
        {{"name", record.name},
         {"target", record.target},
         {"baseline_ms", baseline},
         {"head_ms", head_ms},
         {"remeasured", remeasured},
         {"head_node", head.node_id},
         {"head_design", head_node ? head_node->design : ""},
         {"head_params", head_node ? head_node->params : nlohmann::json::object()},
         {"heads", tree.value().head_history().size()},
         {"speedup", speedup},
         {"floor_ms", floor},
         {"ratio_to_floor", head_ms / floor},
         {"decode_floor_ms", decode_ms},
         {"ratio_to_decode_ceiling", head_ms / decode_ms},
         {"nodes", nodes},
         {"untried", loop::untried_library_candidates(*target, fact_of, tree.value())},
         {"tests", tests},
         {"device_seconds", loop::device_seconds(ws, record.name)},
         {"screen_calibration", calibration_json(loop::summarize_calibration(ws, record.name))},
         {"device_seconds_by_activity", loop::device_seconds_split(ws, record.name)}});
  }
  out["geomean_speedup"] = counted ? std::exp(log_sum / counted) : NAN;
  // How well the target's static cost ranked the raced candidates (targets with a static cost).
  out["screen_calibration"] = calibration_json(loop::summarize_calibration(ws));
  const UnsandboxedRuns unsandboxed = unsandboxed_runs(ws);
  out["unsandboxed_runs"] = {{"count", unsandboxed.count}, {"last_at", unsandboxed.last_at}};
  if (args.json) {
    fmt::print("{}\n", out.dump(2));
    return 0;
  }
  if (unsandboxed.count > 0) fmt::print(stderr, "headway: warning: {}\n", describe(unsandboxed));
  if (out["kernels"].empty()) {
    fmt::print("no kernels yet: run `headway optimize`\n");
    return 0;
  }
  fmt::print("{:<9} {:>11} {:>9} {:>8} {:>9} {:>8} {:>10} {:>9} {:>6} {:>9}  {}\n", "kernel",
             "baseline ms", "head ms", "speedup", "floor ms", "x floor", "decode ms", "x decode",
             "nodes", "device s", "head design");
  for (const auto& k : out["kernels"]) {
    int nodes = 0;
    for (const auto& [s, c] : k["nodes"].items()) nodes += c.get<int>();
    fmt::print(
        "{:<9} {:>11.3f} {:>9.3f} {:>7.2f}x {:>9.3f} {:>7.2f}x {:>10} {:>9} {:>6} {:>9.1f}  "
        "{} {}\n",
        k["name"].get<std::string>() + (k["remeasured"].get<bool>() ? "*" : ""),
        k["baseline_ms"].get<double>(), k["head_ms"].get<double>(), k["speedup"].get<double>(),
        k["floor_ms"].get<double>(), k["ratio_to_floor"].get<double>(),
        // A target without a decode ceiling (the command target) shows "-".
        finite_or_dash(k["decode_floor_ms"].get<double>(), 3),
        finite_or_dash(k["ratio_to_decode_ceiling"].get<double>(), 2, "x"), nodes,
        k["device_seconds"].get<double>(), k["head_design"].get<std::string>(),
        k["head_params"].dump());
    std::string statuses, outcomes;
    for (const auto& [s, c] : k["nodes"].items())
      statuses += fmt::format(" {}={}", s, c.get<int>());
    for (const auto& [o, c] : k["tests"].items())
      outcomes += fmt::format(" {}={}", o, c.get<int>());
    fmt::print("          nodes:{} (library: {} untried)\n          tests:{}\n", statuses,
               k["untried"].get<int>(), outcomes);
    std::string split;
    for (const auto& [a, v] : k["device_seconds_by_activity"].items())
      split += fmt::format(" {}={:.1f}", a, v.get<double>());
    if (!split.empty()) fmt::print("          device s:{}\n", split);
    if (k["screen_calibration"]["candidates"].get<int>() > 0) {
      fmt::print("          static cost: {}\n", calibration_text(k["screen_calibration"]));
    }
  }
  fmt::print("geomean speedup over the baselines: {:.3f}x\n", out["geomean_speedup"].get<double>());
  if (out["screen_calibration"]["candidates"].get<int>() > 0) {
    fmt::print("screen calibration (static cost against the device, every kernel): {}\n",
               calibration_text(out["screen_calibration"]));
  }
  if (any_remeasured) {
    fmt::print("* baseline and head re-measured side by side with the current toolchain: {}\n",
               toolchain);
  }
  return 0;
}
}  // namespace

void add_status(CLI::App& app, int* exit_code) {
  auto args = std::make_shared<StatusArgs>();
  auto* cmd = app.add_subcommand("status", "Heads, speedups and the state of every Design Tree");
  cmd->add_option("--workspace", args->workspace, "workspace directory (default: found from here)");
  cmd->add_flag("--json", args->json, "print one JSON object");
  cmd->callback([args, exit_code] { run_verb(exit_code, [&] { return run_status(*args); }); });
}

}  // namespace headway::cli
