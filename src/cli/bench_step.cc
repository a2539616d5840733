#include "cli/bench_step.h"

#include <fmt/format.h>

#include <filesystem>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <vector>

#include "cli/cli_support.h"
#include "cli/floor_facts.h"
#include "cli/readings_view.h"
#include "common/median_interval.h"
#include "common/rng.h"
#include "common/stats.h"
#include "targets/decode_step.h"
#include "targets/floor_bracket.h"
#include "targets/floors.h"
#include "trees/design_tree.h"

namespace headway::cli {

namespace {

struct StepKernel {
  const KernelContract* contract = nullptr;
  std::string source_label;  // "baseline" or "head (node N)"
  targets::Artifact artifact;
  targets::KernelFloors floors;
};

}  // namespace

int run_bench_step(const BenchStepArgs& args) {
  // Where the sources come from.
  std::optional<store::Workspace> ws;
  if (!args.workspace.empty()) {
    ws.emplace(open_workspace_or_throw(args.workspace));
  } else if (args.target.empty()) {
    if (const auto found = store::Workspace::locate(std::filesystem::current_path())) {
      ws.emplace(open_workspace_or_throw(found->string()));
    }
  }
  std::unique_ptr<targets::Target> target;
  if (ws) {
    if (!args.toolchain.empty())
      throw UsageError("--toolchain does not go with a workspace: its toolchain is its own");
    target = workspace_target_or_throw(*ws);
    if (!args.target.empty() && args.target != target->name())
      throw UsageError(
          fmt::format("--target {} but the workspace's target is {}", args.target, target->name()));
  } else {
    target = target_or_throw(args.target.empty() ? "cpu" : args.target, args.toolchain);
  }

  std::vector<StepKernel> kernels;
  for (const KernelContract* contract : builtin_kernels()) {
    const std::string name(contract->name());
    StepKernel k;
    k.contract = contract;
    std::string source = target->baseline_source(*k.contract);
    k.source_label = "baseline";
    if (ws) {
      auto tree = trees::DesignTree::open(*ws, name);
      if (!tree) k.source_label = "baseline (not in the workspace)";
      if (tree) {
        const int64_t head = tree.value().head().node_id;
        const auto text = tree.value().source(head);
        if (!text)
          fail_with(database_error(fmt::format("{}: head node {} has no source", name, head)));
        source = *text;
        k.source_label = head == tree.value().root().id
                             ? fmt::format("head = baseline (node {})", head)
                             : fmt::format("head (node {})", head);
      }
    }
    k.artifact = build_or_throw(*target, source, fmt::format("the {} {}", name, k.source_label));
    kernels.push_back(std::move(k));
  }

  // One session per kernel, all open at once, read in step order.
  const uint64_t seed = fresh_seed();
  std::vector<std::unique_ptr<targets::Session>> sessions;
  std::vector<targets::Session*> raw;
  std::vector<std::string> names;
  for (const auto& k : kernels) {
    auto s = target->start_session(*k.contract, {k.artifact}, seed);
    if (!s) fail_with(s.error());
    sessions.push_back(std::move(s).value());
    raw.push_back(sessions.back().get());
    names.emplace_back(k.contract->name());
  }
  // The rounds between two measurements of the floor facts (targets/floor_bracket.h).
  std::vector<const KernelContract*> contracts;
  for (const auto& k : kernels) contracts.push_back(k.contract);
  targets::StepRounds rounds;
  targets::FloorBracket bracket(*target);
  const targets::BracketedFloor floor = value_or_fail(bracket.around(contracts, [&] {
    rounds = targets::read_decode_step(raw, names, args.rounds);
    return rounds.ok();
  }));
  if (!rounds.ok()) {
    print_error(fmt::format("decode step: {}{}", rounds.failure,
                            rounds.cheated ? " (a rule of timing was broken)" : ""));
    return kExitNegative;
  }

  const std::vector<double> step_ms = to_ms(rounds.step_seconds);
  std::vector<std::vector<double>> kernel_ms(kernels.size());
  for (const auto& round : rounds.seconds) {
    for (size_t k = 0; k < kernels.size(); ++k) kernel_ms[k].push_back(round[k] * 1e3);
  }
  double floor_sum_ms = 0.0;
  for (auto& k : kernels) {
    k.floors = target->floors(*k.contract, floor.facts.values);
    floor_sum_ms += k.floors.memory_ms;
  }
  const double step_median = median(step_ms);
  const MedianInterval step_interval = median_interval(step_ms);

  nlohmann::json out = {
      {"target", target->name()},
      {"toolchain", target->identity().id},
      {"workspace", ws ? nlohmann::json(ws->root().string()) : nlohmann::json(nullptr)},
      {"sources", ws ? "heads" : "baselines"},
      {"rounds", step_ms.size()}};
  add_floor(floor, false, &out);
  out["kernels"] = nlohmann::json::array();
  for (size_t k = 0; k < kernels.size(); ++k) {
    nlohmann::json j = readings_json(kernel_ms[k]);
    j["name"] = names[k];
    j["source"] = kernels[k].source_label;
    j["floor_ms"] = kernels[k].floors.memory_ms;
    j["ratio_to_floor"] = median(kernel_ms[k]) / kernels[k].floors.memory_ms;
    j["below_floor"] = targets::below_floor(j["ratio_to_floor"].get<double>());
    out["kernels"].push_back(j);
  }
  nlohmann::json step = readings_json(step_ms);
  step["floor_ms"] = floor_sum_ms;
  step["ratio_to_floor"] = step_median / floor_sum_ms;
  step["below_floor"] = targets::below_floor(step_median / floor_sum_ms);
  step["ratio_interval"] = {step_interval.low / floor_sum_ms, step_interval.high / floor_sum_ms};
  out["step"] = step;
  if (args.json) {
    fmt::print("{}\n", out.dump(2));
    return kExitOk;
  }
  fmt::print("decode step on {} ({}): {} rounds of qkv, attn_out, ffn back to back; sources: {}\n",
             target->name(), target->identity().id, step_ms.size(),
             ws ? fmt::format("the heads of {}", ws->root().string()) : "the baselines");
  nlohmann::json printed;
  add_floor(floor, true, &printed);
  fmt::print("{:<9} {:<26} {:>9} {:>10} {:>20} {:>8}\n", "kernel", "source", "floor ms",
             "median ms", "95% interval ms", "x floor");
  for (size_t k = 0; k < kernels.size(); ++k) {
    const double ratio = median(kernel_ms[k]) / kernels[k].floors.memory_ms;
    fmt::print("{:<9} {:<26} {:>9.3f} {:>10.3f} {:>20} {:>8.2f}{}\n", names[k],
               kernels[k].source_label, kernels[k].floors.memory_ms, median(kernel_ms[k]),
               interval_text(kernel_ms[k]), ratio, reading_notes(kernel_ms[k], ratio));
  }
  fmt::print("{:<9} {:<26} {:>9.3f} {:>10.3f} {:>20} {:>8.2f}{}\n", "step", "sum of the rounds",
             floor_sum_ms, step_median, interval_text(step_ms), step_median / floor_sum_ms,
             reading_notes(step_ms, step_median / floor_sum_ms));
  fmt::print(
      "decode step: {:.3f} ms ({:.1f}% interval {:.3f} to {:.3f}), {:.2f} x the sum of the "
      "floors ({:.3f} ms)\n",
      step_median, 100 * step_interval.coverage, step_interval.low, step_interval.high,
      step_median / floor_sum_ms, floor_sum_ms);
  return kExitOk;
}

}  // namespace headway::cli
