#include <fmt/format.h>

#include <map>
#include <nlohmann/json.hpp>
#include <random>

#include "cli/bench_peers.h"
#include "cli/cli_support.h"
#include "cli/verbs.h"

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
};

nlohmann::json fact_json(const targets::ChipFact& f) {
  return {{"name", f.name},
          {"value", f.value},
          {"unit", f.unit},
          {"spread_pct", f.spread ? nlohmann::json(*f.spread) : nlohmann::json(nullptr)},
          {"method", f.method}};
}

// Through the Target interface, on any target: the facts its floors need, then each kernel's
// floors and its timed readings in one session.
int run_bench(const BenchArgs& args) {
  std::vector<const KernelContract*> kernels;
  if (args.kernel.empty()) {
    if (!args.source.empty()) throw UsageError("--source needs --kernel");
    for (const auto& n : kernel_names()) kernels.push_back(find_kernel(n));
  } else {
    kernels.push_back(&kernel_or_throw(args.kernel));
  }
  if (args.peers)
    return run_bench_peers(
        {kernels, args.source, args.readings, args.target, args.toolchain, args.json});
  const std::string source = args.source.empty() ? "" : read_source_or_throw(args.source);
  auto target = target_or_throw(args.target, args.toolchain);
  std::vector<targets::Artifact> artifacts;
  for (const auto* k : kernels) {
    const std::string text = source.empty() ? target->baseline_source(*k) : source;
    const std::string label =
        source.empty() ? fmt::format("the {} baseline", k->name()) : args.source;
    artifacts.push_back(build_or_throw(*target, text, label));
  }
  targets::FactOptions fact_options;
  fact_options.only = target->floor_facts();
  const std::vector<targets::ChipFact> facts = target->measure_facts(fact_options);
  std::map<std::string, double> values;
  for (const auto& f : facts) values[f.name] = f.value;
  for (const auto& name : target->floor_facts()) {
    if (!values.count(name))
      fail_with(
          environment_error(fmt::format("the {} target did not measure {}", args.target, name)));
  }
  nlohmann::json out = {{"target", args.target},
                        {"toolchain", target->identity().id},
                        {"facts", nlohmann::json::array()},
                        {"kernels", nlohmann::json::array()}};
  for (const auto& f : facts) {
    out["facts"].push_back(fact_json(f));
    if (!args.json) {
      fmt::print("{}: {:.4g} {}{}\n", f.name, f.value, f.unit,
                 f.spread ? fmt::format(" (cv {:.1f}%)", *f.spread) : "");
    }
  }
  if (!args.json) {
    fmt::print("{:<9} {:>12} {:>10} {:>11} {:>9} {:>7}\n", "kernel", "bytes", "floor ms",
               "median ms", "x floor", "cv %");
  }
  const uint64_t seed = std::random_device{}();
  int rc = 0;
  for (size_t i = 0; i < kernels.size(); ++i) {
    const auto& k = *kernels[i];
    const targets::KernelFloors floors = target->floors(k, values);
    const targets::Timing t =
        target->time_side_by_side(k, {artifacts[i]}, args.readings, seed).front();
    if (!t.ok()) {
      fmt::print(stderr, "headway: {} {}\n", k.name(), t.failure);
      rc = 1;
      continue;
    }
    const double median_ms = t.median_seconds * 1e3;
    out["kernels"].push_back(
        {{"name", k.name()},
         {"bytes", k.bytes_to_move()},
         {"floor_ms", floors.memory_ms},
         {"instruction_floor_ms",
          floors.instruction_ms ? nlohmann::json(*floors.instruction_ms) : nlohmann::json(nullptr)},
         {"median_ms", median_ms},
         {"ratio_to_floor", median_ms / floors.memory_ms},
         {"cv", t.cv},
         {"readings", t.seconds.size()}});
    if (!args.json) {
      fmt::print("{:<9} {:>12} {:>10.3f} {:>11.3f} {:>9.2f} {:>7.2f}\n", k.name(),
                 k.bytes_to_move(), floors.memory_ms, median_ms, median_ms / floors.memory_ms,
                 100 * t.cv);
    }
  }
  if (args.json) fmt::print("{}\n", out.dump(2));
  return rc;
}
}  // namespace

void add_bench(CLI::App& app, int* exit_code) {
  auto args = std::make_shared<BenchArgs>();
  auto* cmd = app.add_subcommand("bench", "Measure a target's floors and kernel times");
  cmd->add_option("--kernel", args->kernel, "one kernel (default: all)");
  cmd->add_option("--source", args->source,
                  "time this source instead of the baseline (needs --kernel)");
  cmd->add_option("--readings", args->readings, "timed readings per kernel")
      ->check(CLI::Range(1, 100000));
  cmd->add_option("--target", args->target,
                  "cpu (default), sim, cuda, or another registered target");
  cmd->add_option("--toolchain,--cxx", args->toolchain,
                  "the target's toolchain (cpu: the C++ compiler; default: the target's own)");
  cmd->add_flag("--peers", args->peers,
                "also time each kernel's matrix-vector products through oneDNN and OpenBLAS, "
                "interleaved with the heads (cpu target)");
  cmd->add_flag("--json", args->json, "print one JSON object");
  cmd->callback([args, exit_code] { run_verb(exit_code, [&] { return run_bench(*args); }); });
}

}  // namespace headway::cli
