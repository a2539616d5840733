#include "cli/bench_step.h"

#include <fmt/format.h>

#include <algorithm>
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
#include "kernels/contract.h"
#include "kernels/kernel_catalog.h"
#include "targets/decode_step.h"
#include "targets/floor_bracket.h"
#include "targets/floor_facts.h"
#include "targets/floors.h"

namespace headway::cli {

namespace {

struct StepKernel {
  const KernelContract* contract = nullptr;
  std::string name;          // the kernel's, with "@SET" for the attention's shape sets
  std::string source_label;  // "baseline" or "head (node N)"
  targets::Artifact artifact;
  bool attention = false;
};

// The source of `name` in the workspace: its head, or `baseline` where it has no Design Tree.
std::string step_source(std::optional<store::Workspace>& ws, const std::string& name,
                        std::string baseline, std::string* label) {
  *label = "baseline";
  if (!ws) return baseline;
  auto head = workspace_head(*ws, name);
  if (!head) {
    *label = "baseline (not in the workspace)";
    return baseline;
  }
  *label = head->baseline ? fmt::format("head = baseline (node {})", head->node)
                          : fmt::format("head (node {})", head->node);
  return std::move(head->source);
}

// Per round, the sum of the values (readings or floors; [kernel][round]) of the kernels at
// `members`.
std::vector<double> summed_rounds(const std::vector<std::vector<double>>& kernel_ms,
                                  const std::vector<size_t>& members) {
  std::vector<double> sums(kernel_ms.empty() ? 0 : kernel_ms[0].size(), 0.0);
  for (size_t k : members) {
    for (size_t r = 0; r < sums.size(); ++r) sums[r] += kernel_ms[k][r];
  }
  return sums;
}

// SPREAD of `ms` against the floors of their rounds: floor_ms the median of the rounds' floors,
// ratio_to_floor the median of the rounds' ratios, with its interval.
nlohmann::json summed_json(const std::vector<double>& ms, const std::vector<double>& floors_ms) {
  std::vector<double> ratios;
  for (size_t r = 0; r < ms.size(); ++r) ratios.push_back(ms[r] / floors_ms[r]);
  const MedianInterval interval = median_interval(ratios);
  nlohmann::json j = readings_json(ms);
  j["floor_ms"] = median(floors_ms);
  j["ratio_to_floor"] = median(ratios);
  j["below_floor"] = targets::below_floor(median(ratios));
  j["ratio_interval"] = {interval.low, interval.high};
  return j;
}

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

  // The layer's order: qkv, the attention at each of its timed shape sets (where the workspace
  // holds one), attn_out, ffn.
  std::optional<KernelCatalog> catalog;
  const KernelContract* attention = nullptr;
  if (ws) {
    catalog.emplace(kernel_catalog_or_throw(*ws, target.get()));
    for (const char* name : kDecodeAttentionKernels) {
      if (attention) break;
      for (const KernelContract* k : target->kernels(*catalog)) {
        if (k->name() == name) attention = k;
      }
    }
  }
  std::vector<StepKernel> kernels;
  for (const KernelContract* contract : builtin_kernels()) {
    const std::string name(contract->name());
    StepKernel k;
    k.contract = contract;
    k.name = name;
    const std::string source =
        step_source(ws, name, target->baseline_source(*contract), &k.source_label);
    k.artifact = build_or_throw(*target, source, fmt::format("the {} {}", name, k.source_label));
    kernels.push_back(std::move(k));
    if (name != "qkv" || !attention) continue;
    const std::string attention_name(attention->name());
    std::string label;
    const std::string attention_source =
        step_source(ws, attention_name, target->baseline_source(*attention), &label);
    const targets::Artifact built =
        build_or_throw(*target, attention_source, fmt::format("the {} {}", attention_name, label));
    for (const KernelContract* set : timed_shape_sets(*attention)) {
      StepKernel a;
      a.contract = set;
      a.name = fmt::format("{}@{}", attention_name, set->shape_set_name());
      a.source_label = label;
      a.artifact = built;
      a.attention = true;
      kernels.push_back(std::move(a));
    }
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
    names.push_back(k.name);
  }
  // On a target that times on the host the memory floor is measured in every round, after its
  // readings, and each round is judged against its own floor: a spell of the shared chip moves
  // both. The measurements before and after the rounds (targets/floor_bracket.h) are then shown
  // for reference, and the rounds are read once whatever they say; elsewhere they are the floor.
  const bool by_round = target->times_on_host();
  std::vector<std::map<std::string, double>> round_facts;
  targets::AfterRound measure_round_floor;
  if (by_round) {
    measure_round_floor = [&, memory_facts = target->memory_floor_facts()]() -> std::string {
      auto facts = targets::measure_floor_facts(*target, memory_facts, kRoundFloorReadings);
      if (!facts) return facts.error().message;
      round_facts.push_back(std::move(facts->values));
      return {};
    };
  }
  std::vector<const KernelContract*> contracts;
  for (const auto& k : kernels) contracts.push_back(k.contract);
  targets::StepRounds rounds;
  targets::FloorBracketOptions bracket_options;
  if (by_round) bracket_options.max_timings = 1;
  targets::FloorBracket bracket(*target, bracket_options);
  const targets::BracketedFloor floor = value_or_fail(bracket.around(contracts, [&] {
    round_facts.clear();
    rounds = targets::read_decode_step(raw, names, args.rounds, 1, measure_round_floor);
    return rounds.ok();
  }));
  if (!rounds.ok()) {
    print_error(fmt::format("decode step: {}{}", rounds.failure,
                            rounds.cheated ? " (a rule of timing was broken)" : ""));
    return kExitNegative;
  }
  if (!by_round) round_facts.assign(rounds.seconds.size(), floor.facts.values);

  std::vector<std::vector<double>> kernel_ms(kernels.size());
  std::vector<std::vector<double>> floor_ms(kernels.size());  // [kernel][round]
  for (size_t r = 0; r < rounds.seconds.size(); ++r) {
    for (size_t k = 0; k < kernels.size(); ++k) {
      kernel_ms[k].push_back(rounds.seconds[r][k] * 1e3);
      floor_ms[k].push_back(target->floors(*kernels[k].contract, round_facts[r]).memory_ms);
    }
  }
  // The step: qkv, attn_out and ffn; a layer: those and the attention at one shape set.
  std::vector<size_t> projections;
  std::vector<size_t> attention_sets;
  for (size_t k = 0; k < kernels.size(); ++k)
    (kernels[k].attention ? attention_sets : projections).push_back(k);
  const std::vector<double> step_ms = summed_rounds(kernel_ms, projections);
  const std::vector<double> step_floor_ms = summed_rounds(floor_ms, projections);
  struct Layer {
    std::string kind;  // the attention's shape set
    std::vector<double> ms;
    std::vector<double> floor_ms;  // by round
  };
  std::vector<Layer> layers;
  for (size_t a : attention_sets) {
    std::vector<size_t> members = projections;
    members.push_back(a);
    layers.push_back({std::string(kernels[a].contract->shape_set_name()),
                      summed_rounds(kernel_ms, members), summed_rounds(floor_ms, members)});
  }

  nlohmann::json out = {
      {"target", target->name()},
      {"toolchain", target->identity().id},
      {"workspace", ws ? nlohmann::json(ws->root().string()) : nlohmann::json(nullptr)},
      {"sources", ws ? "heads" : "baselines"},
      {"rounds", step_ms.size()}};
  add_floor(floor, false, &out, by_round);
  const std::string round_floors_when =
      fmt::format("after each of the {} rounds' readings", round_facts.size());
  if (by_round) add_round_floors(round_facts, round_floors_when, "a row", false, &out);
  const auto judged = [&](const std::vector<double>& ms, const std::vector<double>& floors) {
    nlohmann::json j = summed_json(ms, floors);
    if (by_round) j["floor_ms_by_round"] = floors;
    return j;
  };
  out["kernels"] = nlohmann::json::array();
  for (size_t k = 0; k < kernels.size(); ++k) {
    nlohmann::json j = judged(kernel_ms[k], floor_ms[k]);
    j.erase("ratio_interval");
    j["name"] = names[k];
    j["source"] = kernels[k].source_label;
    out["kernels"].push_back(j);
  }
  out["step"] = judged(step_ms, step_floor_ms);
  out["layers"] = nlohmann::json::array();
  for (const Layer& layer : layers) {
    nlohmann::json j = judged(layer.ms, layer.floor_ms);
    j["kind"] = layer.kind;
    out["layers"].push_back(j);
  }
  if (args.json) {
    fmt::print("{}\n", out.dump(2));
    return kExitOk;
  }
  std::string order;
  for (const auto& name : names) order += (order.empty() ? "" : ", ") + name;
  fmt::print("decode step on {} ({}): {} rounds of {} back to back; sources: {}\n", target->name(),
             target->identity().id, step_ms.size(), order,
             ws ? fmt::format("the heads of {}", ws->root().string()) : "the baselines");
  const auto summary = [](const std::string& what, const std::vector<double>& ms,
                          const nlohmann::json& j) {
    const MedianInterval interval = median_interval(ms);
    fmt::print(
        "{}: {:.3f} ms ({:.1f}% interval {:.3f} to {:.3f}), {:.2f} x the sum of the floors "
        "({:.3f} ms)\n",
        what, median(ms), 100 * interval.coverage, interval.low, interval.high,
        double(j["ratio_to_floor"]), double(j["floor_ms"]));
  };
  for (size_t l = 0; l < layers.size(); ++l) {
    summary(fmt::format("decode layer ({} attention)", layers[l].kind), layers[l].ms,
            out["layers"][l]);
  }
  nlohmann::json printed;
  add_floor(floor, true, &printed, by_round);
  if (by_round) add_round_floors(round_facts, round_floors_when, "a row", true, &printed);
  size_t width = 9;
  for (const auto& name : names) width = std::max(width, name.size() + 1);
  fmt::print("{:<{}} {:<26} {:>9} {:>10} {:>20} {:>8}\n", "kernel", width, "source", "floor ms",
             "median ms", "95% interval ms", "x floor");
  const auto row = [&](const std::string& name, const std::string& source,
                       const std::vector<double>& ms, const nlohmann::json& j) {
    const double ratio = j["ratio_to_floor"];
    fmt::print("{:<{}} {:<26} {:>9.3f} {:>10.3f} {:>20} {:>8.2f}{}\n", name, width, source,
               double(j["floor_ms"]), median(ms), interval_text(ms), ratio,
               reading_notes(ms, ratio));
  };
  for (size_t k = 0; k < kernels.size(); ++k)
    row(names[k], kernels[k].source_label, kernel_ms[k], out["kernels"][k]);
  row("step", "qkv + attn_out + ffn", step_ms, out["step"]);
  for (size_t l = 0; l < layers.size(); ++l)
    row("layer@" + layers[l].kind, "the step + its attention", layers[l].ms, out["layers"][l]);
  summary("decode step", step_ms, out["step"]);
  if (layers.empty()) {
    fmt::print(
        "no attention kernel in {}: `headway kernel add "
        "kernels/specs/gemma4/attn_decode/attn_decode.toml` makes each round a whole layer\n",
        ws ? "the workspace" : "the baselines");
  }
  return kExitOk;
}

}  // namespace headway::cli
