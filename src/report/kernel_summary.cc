#include "report/kernel_summary.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>

#include "kernels/contract.h"
#include "knowledge/head_model.h"
#include "knowledge/kernel_timings.h"
#include "loop/device_time.h"
#include "statistics/outcome.h"

namespace headway::report {

KernelSummary summarize_kernel(store::Workspace& ws, const targets::Target& target,
                               const trees::KernelRecord& record, const KernelContract* contract,
                               trees::DesignTree& tree, trees::DecisionLog& log,
                               const std::string& toolchain,
                               const std::optional<loop::FactValues>& facts) {
  KernelSummary k;
  k.name = record.name;
  k.contract = contract;
  k.target = record.target;
  k.baseline_ms = knowledge::current_baseline_ms(ws, tree, toolchain).value_or(NAN);
  k.head_ms = knowledge::current_head_ms(ws, tree, toolchain).value_or(k.baseline_ms);
  k.remeasured =
      knowledge::latest_kernel_timing(ws, record.name, toolchain, knowledge::kBaselineRole)
          .has_value();
  k.device_model = knowledge::head_device_model(ws, tree, log, toolchain, target);
  k.model_facts = loop::floor_facts_of_model(ws, target, toolchain, k.device_model);
  const std::optional<loop::FactValues>& kernel_facts = k.model_facts ? k.model_facts : facts;
  k.decode_ms = kernel_facts && contract
                    ? target.floors(*contract, *kernel_facts).instruction_ms.value_or(NAN)
                    : NAN;
  k.speedup = k.baseline_ms / k.head_ms;
  if (const auto t = knowledge::current_baseline_timing(ws, tree, toolchain)) {
    k.baseline_interval = knowledge::median_interval_of(*t);
    k.baseline_bimodal = knowledge::bimodality_of(*t).bimodal;
  }
  k.floor_ms = record.floor_ms.value_or(NAN);
  if (k.model_facts && contract) k.floor_ms = target.floors(*contract, *k.model_facts).memory_ms;
  if (const auto t = knowledge::current_head_timing(ws, tree, toolchain)) {
    k.head_interval = knowledge::median_interval_of(*t);
    k.head_bimodal = knowledge::bimodality_of(*t).bimodal;
    if (t->floor_ms) {
      k.floor_ms = *t->floor_ms;
      k.floor_beside_head = true;
    }
    if (t->decode_floor_ms) k.decode_ms = *t->decode_floor_ms;
  }
  if (tree.head().node_id != tree.root().id) {
    const auto b = knowledge::current_baseline_timing(ws, tree, toolchain);
    const auto h = knowledge::current_head_timing(ws, tree, toolchain);
    if (const auto support = b && h ? knowledge::speedup_support(*b, *h) : std::nullopt) {
      k.speedup_interval = support->interval;
      k.speedup_paired = support->paired;
    }
    if (const auto test = tree.head().test_id) k.head_test = log.test(*test);
  }
  if (contract) {
    for (const KernelContract* at : timed_shape_sets(*contract)) {  // check-only: never timed
      if (at == contract) continue;
      ShapeSetFigures f;
      f.shape = at->shape_set_name();
      f.contract = at;
      const auto timed = [&](const char* role) {
        return knowledge::latest_kernel_timing(ws, record.name, toolchain, role, f.shape);
      };
      if (const auto b = timed(knowledge::kBaselineRole)) f.baseline_ms = b->median_ms;
      if (kernel_facts) f.floor_ms = target.floors(*at, *kernel_facts).memory_ms;
      if (const auto h = timed(knowledge::kHeadRole)) {
        f.head_ms = h->median_ms;
        f.head_interval = knowledge::median_interval_of(*h);
        if (h->floor_ms) f.floor_ms = *h->floor_ms;
      }
      k.other_shape_sets.push_back(std::move(f));
    }
  }
  k.device_seconds = loop::device_seconds(ws, record.name);
  k.head_node = tree.head().node_id;
  if (const auto head = tree.node(k.head_node)) {
    k.head_design = head->design;
    k.head_params = head->params;
  }
  k.heads = tree.head_history();
  for (const auto& [status, count] : tree.count_by_status()) {
    if (count) k.nodes_by_status[std::string(trees::to_string(status))] = count;
  }
  for (const auto& [outcome, count] : log.counts().by_outcome) {
    if (count) k.tests_by_outcome[std::string(statistics::to_string(outcome))] = count;
  }
  return k;
}

std::string KernelSummary::speedup_verdict() const {
  return speedup_interval ? knowledge::SpeedupSupport{*speedup_interval, speedup_paired}.verdict()
                          : "";
}

namespace {

// Adds one kernel's figures to `step`: its interval too where the step still has one (the sum
// holds the sum of the true medians with probability at least 1 less the summed misses), else
// the step keeps none.
void add_kernel(DecodeStepSummary& step, double head_ms, double baseline_ms, double floor_ms,
                const std::optional<MedianInterval>& head_interval) {
  step.head_ms += head_ms;
  step.baseline_ms += baseline_ms;
  step.floor_ms += floor_ms;
  if (step.interval && head_interval) {
    step.interval->low += head_interval->low;
    step.interval->high += head_interval->high;
    step.interval->coverage =
        std::max(0.0, step.interval->coverage - (1.0 - head_interval->coverage));
  } else {
    step.interval.reset();
  }
}

// The sum of the kernels named `names`, each of which `kernels` must hold re-measured with finite
// figures.
std::optional<DecodeStepSummary> summed(const std::vector<const KernelSummary*>& kernels,
                                        const std::vector<std::string>& names) {
  DecodeStepSummary step;
  step.interval = MedianInterval{0.0, 0.0, 0, 1.0};
  for (const auto& name : names) {
    const KernelSummary* found = nullptr;
    for (const KernelSummary* k : kernels) {
      if (k->name == name) found = k;
    }
    if (!found || !found->remeasured || !std::isfinite(found->head_ms) ||
        !std::isfinite(found->floor_ms) || !std::isfinite(found->baseline_ms)) {
      return std::nullopt;
    }
    add_kernel(step, found->head_ms, found->baseline_ms, found->floor_ms, found->head_interval);
  }
  return step;
}

}  // namespace

std::optional<DecodeStepSummary> summarize_decode_step(
    const std::vector<const KernelSummary*>& kernels) {
  return summed(kernels, builtin_kernel_names());
}

std::optional<DecodeStepSummary> summarize_decode_layer(
    const std::vector<const KernelSummary*>& kernels) {
  for (const char* attention : kDecodeAttentionKernels) {
    const KernelSummary* found = nullptr;
    for (const KernelSummary* k : kernels) {
      if (k->name == attention) found = k;
    }
    if (!found) continue;
    std::vector<std::string> names = builtin_kernel_names();
    names.emplace_back(attention);
    auto layer = summed(kernels, names);
    if (!layer) return std::nullopt;
    const std::string set = found->contract ? found->contract->shape_set_name() : "";
    layer->attention = set.empty() ? found->name : found->name + "@" + set;
    return layer;
  }
  return std::nullopt;
}

std::vector<DecodeStepSummary> summarize_decode_layers(
    const std::vector<const KernelSummary*>& kernels) {
  std::vector<DecodeStepSummary> out;
  const auto first = summarize_decode_layer(kernels);
  if (!first) return out;
  out.push_back(*first);
  const auto step = summarize_decode_step(kernels);
  const std::string name = first->attention.substr(0, first->attention.find('@'));
  for (const KernelSummary* k : kernels) {
    if (k->name != name) continue;
    for (const ShapeSetFigures& f : k->other_shape_sets) {
      if (!std::isfinite(f.head_ms) || !std::isfinite(f.baseline_ms) || !std::isfinite(f.floor_ms))
        continue;
      DecodeStepSummary layer = *step;
      add_kernel(layer, f.head_ms, f.baseline_ms, f.floor_ms, f.head_interval);
      layer.attention = name + "@" + f.shape;
      out.push_back(layer);
    }
  }
  return out;
}

nlohmann::json to_json(const DecodeStepSummary& step) {
  return {{"attention",
           step.attention.empty() ? nlohmann::json(nullptr) : nlohmann::json(step.attention)},
          {"head_ms", step.head_ms},
          {"interval_ms", step.interval ? nlohmann::json{step.interval->low, step.interval->high}
                                        : nlohmann::json(nullptr)},
          {"interval_coverage",
           step.interval ? nlohmann::json(step.interval->coverage) : nlohmann::json(nullptr)},
          {"floor_ms", step.floor_ms},
          {"ratio_to_floor", step.ratio_to_floor()},
          {"baseline_ms", step.baseline_ms},
          {"speedup", step.speedup()}};
}

nlohmann::json to_json(const std::vector<DecodeStepSummary>& layers) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& layer : layers) out.push_back(to_json(layer));
  return out;
}

HeadsByModel heads_by_model(const std::vector<const KernelSummary*>& kernels) {
  HeadsByModel out;
  for (const KernelSummary* k : kernels) {
    if (!k->device_model.empty()) out[k->device_model].push_back(k->name);
  }
  return out;
}

std::string heads_by_model_line(const HeadsByModel& models) {
  if (models.empty()) return "";
  if (models.size() == 1) return "heads' figures read on device model " + models.begin()->first;
  std::string text = fmt::format("heads' figures read on {} device models:", models.size());
  for (const auto& [model, kernels] : models) {
    text += fmt::format(" {} ({}){}", model, fmt::join(kernels, ", "),
                        model == models.rbegin()->first ? "" : ";");
  }
  return text;
}

double geomean_speedup(const std::vector<double>& speedups) {
  double log_sum = 0.0;
  int counted = 0;
  for (const double s : speedups) {
    if (std::isfinite(s) && s > 0) {
      log_sum += std::log(s);
      ++counted;
    }
  }
  return counted ? std::exp(log_sum / counted) : NAN;
}

}  // namespace headway::report
