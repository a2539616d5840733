#pragma once
// The figures of one kernel that `headway status` and `headway report` both show, read from a
// workspace once: baseline, head and speedup, the memory floor and the decode ceiling with the
// head's ratio to each, device time, the head's node and history, nodes by status and finished
// tests by outcome. Figures re-measured side by side under the current toolchain (at the end of
// every optimize run, and by a toolchain migration) replace the recorded ones, which may come
// from an acceptance test long ago or from an earlier toolchain.
#include <cmath>
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "common/median_interval.h"
#include "loop/kernel_floors.h"
#include "store/workspace.h"
#include "targets/target.h"
#include "trees/decision_log.h"
#include "trees/design_tree.h"

namespace headway::report {

// A kernel's figures at one of its shape sets after the first, as the side-by-side timing at the
// end of an optimize run (knowledge::remeasure_baseline_and_head) stored them by name; NaN where
// it has not run. The floor: the one measured around the head's readings, else the facts'.
struct ShapeSetFigures {
  std::string shape;
  const KernelContract* contract = nullptr;  // the kernel at this shape set
  double baseline_ms = NAN;
  double head_ms = NAN;
  double floor_ms = NAN;
  std::optional<MedianInterval> head_interval;
};

struct KernelSummary {
  std::string name;
  // Its contract in the catalog the summary was made with; nullptr where it knows none.
  const KernelContract* contract = nullptr;
  std::string target;
  double baseline_ms = 0;  // NaN when unknown
  double head_ms = 0;      // the baseline's figure when the head has none
  // Memory floor; NaN when unknown. The one stored with the head's re-measured figure (measured
  // around its readings) where there is one (floor_beside_head), else the kernel's record's.
  double floor_ms = 0;
  bool floor_beside_head = false;
  // The model of the device the head's figure was read on (knowledge::head_device_model); empty
  // when unknown.
  std::string device_model;
  // Where the workspace keeps chip facts of several device models: the floor facts of
  // device_model (loop::floor_facts_of_model), which its floor and decode ceiling come from
  // (unless measured beside the head); nullopt otherwise.
  std::optional<loop::FactValues> model_facts;
  // The decode (instruction) ceiling: that of the head timing's floor facts where it carries one,
  // else from `facts`; NaN when the target has none.
  double decode_ms = 0;
  double speedup = 0;       // baseline_ms / head_ms
  bool remeasured = false;  // baseline and head re-measured under the current toolchain
  double device_seconds = 0;
  int64_t head_node = 0;
  std::string head_design;  // empty when the head's node is missing
  nlohmann::json head_params = nlohmann::json::object();
  std::vector<trees::HeadRecord> heads;             // oldest first
  std::map<std::string, int64_t> nodes_by_status;   // statuses with at least one node
  std::map<std::string, int64_t> tests_by_outcome;  // outcomes of at least one finished test
  // What the run supports (common/median_interval.h), from the readings the re-measured figures
  // kept (schema 8); nullopt (false) where a figure was not re-measured or kept no readings.
  std::optional<MedianInterval> baseline_interval;
  std::optional<MedianInterval> head_interval;
  bool baseline_bimodal = false;
  bool head_bimodal = false;
  // Baseline over head (knowledge::speedup_support): from the ratios of the readings taken in
  // turn where they were (speedup_paired), else from the two intervals; nullopt without both, or
  // when the head is the baseline.
  std::optional<RatioInterval> speedup_interval;
  bool speedup_paired = false;
  // The finished test that made the current head, where one did (not a migration or the
  // baseline): what the loop's paired readings said of it against the head before.
  std::optional<trees::TestRecord> head_test;
  // The kernel's other timed shape sets, in the contract's order (empty with one).
  std::vector<ShapeSetFigures> other_shape_sets;
  double ratio_to_floor() const { return head_ms / floor_ms; }
  double ratio_to_decode() const { return head_ms / decode_ms; }
  // "faster" or "slower" when speedup_interval lies above or below 1, "unresolved" when it holds
  // 1 (the run cannot support either), "" without one.
  std::string speedup_verdict() const;
};

// The decode step as the final side-by-side timings give it: the sum of the heads' medians (each
// kernel timed cold in its own session) against the sum of the floors and of the baselines.
struct DecodeStepSummary {
  double head_ms = 0;
  double baseline_ms = 0;
  double floor_ms = 0;  // the sum of the memory floors
  // [sum of the heads' interval lows, sum of their highs]: it holds the sum of the true medians
  // whenever every kernel's interval holds its own, so with probability at least `coverage`
  // (1 - the summed misses); nullopt unless every head kept readings.
  std::optional<MedianInterval> interval;
  // The attention kernel a decode layer adds to the step, "KERNEL@SET" (the shape set its final
  // timing read); empty for the step of qkv, attn_out and ffn alone.
  std::string attention;
  double ratio_to_floor() const { return head_ms / floor_ms; }
  double speedup() const { return baseline_ms / head_ms; }
};

// The step of qkv, attn_out and ffn when `kernels` holds all three with re-measured heads and
// finite floors; nullopt otherwise.
std::optional<DecodeStepSummary> summarize_decode_step(
    const std::vector<const KernelSummary*>& kernels);
// The decode layer: that step and the attention kernel (attn_decode, else attn_decode_f8) where
// `kernels` holds one with a re-measured head and a finite floor; nullopt otherwise.
std::optional<DecodeStepSummary> summarize_decode_layer(
    const std::vector<const KernelSummary*>& kernels);
// The decode layer at each of the attention kernel's shape sets (sliding, global ...): the first
// as summarize_decode_layer, then one for each other shape set with finite figures; empty where
// there is no first.
std::vector<DecodeStepSummary> summarize_decode_layers(
    const std::vector<const KernelSummary*>& kernels);
// {"attention" (null for the step), "head_ms", "interval_ms": [low, high] or null,
//  "interval_coverage", "floor_ms", "ratio_to_floor", "baseline_ms", "speedup"}.
nlohmann::json to_json(const DecodeStepSummary& step);
// An array of to_json, one a layer.
nlohmann::json to_json(const std::vector<DecodeStepSummary>& layers);

// The summary of the kernel `record` whose Design Tree is `tree` (and `log` its decision log) and
// whose contract is `contract` (nullptr: unknown, no decode ceiling), under `toolchain`
// (knowledge::toolchain_id_of(target)) with the floor facts `facts` (loop::load_floor_facts;
// nullopt: no decode ceiling), or those of its head's device model where the workspace keeps
// several models' (model_facts). Throws store::StoreError on a database failure.
KernelSummary summarize_kernel(store::Workspace& ws, const targets::Target& target,
                               const trees::KernelRecord& record, const KernelContract* contract,
                               trees::DesignTree& tree, trees::DecisionLog& log,
                               const std::string& toolchain,
                               const std::optional<loop::FactValues>& facts);

// The device models the kernels' head figures were read on, each with its kernels in order;
// kernels whose model is unknown are left out.
using HeadsByModel = std::map<std::string, std::vector<std::string>>;
HeadsByModel heads_by_model(const std::vector<const KernelSummary*>& kernels);
// "heads' figures read on device model M", or "heads' figures read on 2 device models: A (qkv,
// ffn); B (attn_out)"; empty when no model is known.
std::string heads_by_model_line(const HeadsByModel& models);

// The geometric mean of the finite, positive `speedups`; NaN when there is none.
double geomean_speedup(const std::vector<double>& speedups);

}  // namespace headway::report
