#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>

#include "cli/bench_peers.h"
#include "cli/bench_step.h"
#include "cli/cli_support.h"
#include "cli/floor_facts.h"
#include "cli/json_null.h"
#include "cli/readings_view.h"
#include "cli/verbs.h"
#include "common/rng.h"
#include "store/workspace.h"
#include "targets/fact_names.h"
#include "targets/floor_bracket.h"
#include "targets/floors.h"

namespace headway::cli {

namespace {
struct BenchArgs {
  std::string kernel;
  std::string source;
  int readings = 15;
  std::string target = "cpu";
  std::string toolchain;
  bool json = false;
  bool peers = false;
  bool step = false;          // --step (cli/bench_step.h)
  bool one_core = false;      // --one-core (Target::time_on_one_core)
  bool target_given = false;  // --target was on the command line
  std::string workspace;      // --workspace: its heads (--step) or its added kernels (--kernel)
  std::string shape_set;      // --shape-set: the one timed (default: every one of each kernel)
};

// Each kernel at each of its timed shape sets, or at the one named `only` (cli_support.h,
// shape_sets_named: a check-only one is a UsageError).
std::vector<const KernelContract*> at_shape_sets(const std::vector<const KernelContract*>& kernels,
                                                 const std::string& only) {
  std::vector<const KernelContract*> out;
  for (const KernelContract* k : kernels) {
    const auto sets = shape_sets_named(*k, only, ShapeSetUse::kTimed);
    out.insert(out.end(), sets.begin(), sets.end());
  }
  return out;
}

// "name", or "name@shape set" for a kernel with several.
std::string label_of(const KernelContract& at, const KernelContract& kernel) {
  return kernel.shape_sets().size() > 1 ? fmt::format("{}@{}", at.name(), at.shape_set_name())
                                        : std::string(at.name());
}

// The facts floors() reads for one core's readings: the read bandwidth of one thread in place
// of the best over thread counts; nullopt when the facts have no one-thread figure.
std::optional<std::map<std::string, double>> one_core_facts(std::map<std::string, double> facts) {
  const auto one = facts.find(targets::read_bandwidth_at(1));
  if (one == facts.end()) return std::nullopt;
  facts[targets::kReadBandwidth] = one->second;
  return facts;
}

// Through the Target interface, on any target: the facts its floors need, then each kernel's
// floors and its timed readings in one session.
int run_bench(const BenchArgs& args) {
  if (args.one_core && (args.step || args.peers))
    throw UsageError("--one-core goes with a plain bench, not --step or --peers");
  if (args.step) {
    if (args.peers) throw UsageError("--step and --peers are separate runs: give one");
    if (!args.kernel.empty()) throw UsageError("--step times every kernel: it takes no --kernel");
    if (!args.source.empty())
      throw UsageError("--step times heads or baselines: it takes no --source");
    return run_bench_step({args.readings, args.target_given ? args.target : "", args.toolchain,
                           args.workspace, args.json});
  }
  std::vector<const KernelContract*> kernels;
  NamedKernel named;  // holds the kernel named by --kernel
  if (args.kernel.empty()) {
    if (!args.source.empty()) throw UsageError("--source needs --kernel");
    if (!args.workspace.empty() && !args.peers)
      throw UsageError("--workspace goes with --step, --peers or --kernel");
    kernels = builtin_kernels();
  } else {
    named = named_kernel_or_throw(args.kernel, args.workspace);
    kernels.push_back(named.kernel);
  }
  if (!args.shape_set.empty() && (args.kernel.empty() || args.peers))
    throw UsageError("--shape-set goes with --kernel, in a plain bench");
  if (args.peers) {
    // The heads of the workspace given, or of the one here unless a target or a source is given.
    std::string ws = args.workspace;
    if (ws.empty() && !args.target_given && args.source.empty()) {
      if (const auto found = store::Workspace::locate(std::filesystem::current_path()))
        ws = found->string();
    }
    return run_bench_peers(
        {kernels, args.source, ws, args.readings, args.target, args.toolchain, args.json});
  }
  const std::string source = args.source.empty() ? "" : read_source_or_throw(args.source);
  auto target = verb_target_or_throw(args.target_given ? args.target : "", args.toolchain, "",
                                     args.workspace);
  if (args.one_core) {
    if (std::string why = target->time_on_one_core(true); !why.empty())
      throw UsageError("--one-core: " + why);
  }
  // Each kernel built once, timed at each of its shape sets (or the one asked for).
  std::vector<const KernelContract*> timed_at;
  std::vector<targets::Artifact> artifacts;
  std::vector<std::string> labels;
  for (const auto* k : kernels) {
    const std::string text = source.empty() ? target->baseline_source(*k) : source;
    const std::string label =
        source.empty() ? fmt::format("the {} baseline", k->name()) : args.source;
    const targets::Artifact artifact = build_or_throw(*target, text, label);
    for (const KernelContract* at : at_shape_sets({k}, args.shape_set)) {
      timed_at.push_back(at);
      artifacts.push_back(artifact);
      labels.push_back(label_of(*at, *k));
    }
  }
  kernels = std::move(timed_at);
  // Every kernel's readings between two measurements of the floor facts (targets/floor_bracket.h).
  const uint64_t seed = fresh_seed();
  std::vector<targets::Timing> timed(kernels.size());
  targets::FloorBracket bracket(*target);
  const targets::BracketedFloor floor = value_or_fail(bracket.around(kernels, [&] {
    bool all = true;
    for (size_t i = 0; i < kernels.size(); ++i) {
      timed[i] =
          target->time_side_by_side(*kernels[i], {artifacts[i]}, args.readings, seed).front();
      all = all && timed[i].ok();
    }
    return all;
  }));
  std::map<std::string, double> values = floor.facts.values;
  nlohmann::json out = {{"target", target->name()}, {"toolchain", target->identity().id}};
  add_floor(floor, !args.json, &out);
  if (args.one_core) {
    // One core's readings against one thread's read bandwidth: the floor of one core.
    auto one = one_core_facts(values);
    if (!one) throw UsageError("--one-core: the floor facts have no one-thread read bandwidth");
    values = std::move(*one);
    out["one_core"] = {{"read_bandwidth_gbps", values.at(targets::kReadBandwidth)}};
    if (!args.json) {
      fmt::print(
          "one core: each arm on one CPU, its threads one after another; floors at one "
          "thread's read bandwidth, {:.2f} GB/s\n",
          values.at(targets::kReadBandwidth));
    }
  }
  out["kernels"] = nlohmann::json::array();
  size_t width = 9;
  for (const std::string& label : labels) width = std::max(width, label.size());
  if (!args.json) {
    fmt::print("{:<{}} {:>12} {:>10} {:>11} {:>20} {:>9} {:>7} {:>7}\n", "kernel", width, "bytes",
               "floor ms", "median ms", "95% interval ms", "x floor", "cv %", "GB/s");
  }
  int rc = 0;
  for (size_t i = 0; i < kernels.size(); ++i) {
    const auto& k = *kernels[i];
    const targets::KernelFloors floors = target->floors(k, values);
    const targets::Timing& t = timed[i];
    if (!t.ok()) {
      fmt::print(stderr, "headway: {} {}\n", labels[i], t.failure);
      rc = 1;
      continue;
    }
    const double median_ms = t.median_seconds * 1e3;
    const std::vector<double> readings_ms = to_ms(t.seconds);
    nlohmann::json j = readings_json(readings_ms);
    j.update({{"name", k.name()},
              {"shape_set", k.shape_set_name()},
              {"bytes", k.bytes_to_move()},
              {"floor_ms", floors.memory_ms},
              // The decode ceilings are measured at the best thread count only: none for one core.
              {"instruction_floor_ms",
               args.one_core ? nlohmann::json(nullptr) : or_null(floors.instruction_ms)},
              {"median_ms", median_ms},
              {"ratio_to_floor", median_ms / floors.memory_ms},
              {"below_floor", targets::below_floor(median_ms / floors.memory_ms)},
              {"gbps", static_cast<double>(k.bytes_to_move()) / t.median_seconds / 1e9},
              {"cv", t.cv},
              {"readings", t.seconds.size()}});
    out["kernels"].push_back(std::move(j));
    if (!args.json) {
      fmt::print("{:<{}} {:>12} {:>10.3f} {:>11.3f} {:>20} {:>9.2f} {:>7.2f} {:>7.2f}{}\n",
                 labels[i], width, k.bytes_to_move(), floors.memory_ms, median_ms,
                 interval_text(readings_ms), median_ms / floors.memory_ms, 100 * t.cv,
                 static_cast<double>(k.bytes_to_move()) / t.median_seconds / 1e9,
                 reading_notes(readings_ms, median_ms / floors.memory_ms));
    }
  }
  if (args.json) fmt::print("{}\n", out.dump(2));
  return rc;
}
}  // namespace

void add_bench(CLI::App& app, int* exit_code) {
  auto args = std::make_shared<BenchArgs>();
  auto* cmd = app.add_subcommand("bench", "Measure a target's floors and kernel times");
  cmd->add_option("--kernel", args->kernel,
                  std::string("one kernel (default: the built-in three): ") + kKernelOptionHelp);
  cmd->add_option("--source", args->source,
                  "time this source instead of the baseline (needs --kernel)");
  cmd->add_option(
      "--shape-set", args->shape_set,
      "with --kernel: time this shape set only (default: every one of the kernel that is "
      "not check-only)");
  cmd->add_option("--readings", args->readings, "timed readings per kernel and shape set")
      ->check(CLI::Range(1, 100000));
  auto* target = cmd->add_option("--target", args->target,
                                 "cpu, sim, cuda, or another registered target (default: the "
                                 "workspace's, with its toolchain; else cpu)");
  cmd->add_option("--toolchain,--cxx", args->toolchain,
                  "the target's toolchain (cpu: the C++ compiler; default: the target's own)");
  cmd->add_flag("--peers", args->peers,
                "also time each kernel's matrix-vector products through oneDNN and OpenBLAS, "
                "interleaved with the heads (cpu target)");
  cmd->add_flag("--one-core", args->one_core,
                "time each arm on one CPU with the threads it asks of the harness run one after "
                "another (what one core does with the kernel), against one thread's floor (cpu "
                "target)");
  cmd->add_flag("--json", args->json, "print one JSON object");
  cmd->add_flag("--step", args->step,
                "time qkv, attn_out and ffn back to back as a decode step, with a workspace's "
                "attention kernel (attn_decode) at each of its shape sets between them as whole "
                "layers, against the sums of the floors (a workspace's heads, else the "
                "baselines)");
  cmd->add_option("--workspace", args->workspace,
                  "with --step or --peers: time this workspace's heads (default: the nearest "
                  "workspace up from here, unless --target is given); with --kernel: the "
                  "workspace whose added kernels it may name (default: the one here)");
  cmd->callback([args, target, exit_code] {
    args->target_given = target->count() > 0;
    run_verb(exit_code, [&] { return run_bench(*args); });
  });
}

}  // namespace headway::cli
