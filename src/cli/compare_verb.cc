#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "cli/cli_support.h"
#include "cli/verbs.h"
#include "common/rng.h"
#include "loop/acceptance_procedure.h"
#include "statistics/calibration.h"
#include "statistics/reading_sink.h"

namespace headway::cli {

namespace {
struct CompareArgs {
  std::string kernel;
  std::string a, b;
  std::string target;  // empty: the workspace's, else cpu (verb_target_or_throw)
  std::string toolchain;
  std::string manifest;
  std::string rule = "betting";
  loop::AcceptanceOptions acceptance;
  uint64_t seed = 0;
  bool have_seed = false;
  std::string log;
  std::string workspace;  // whose added kernels --kernel may name
  bool json = false;
};

void print_device_time(const nlohmann::json& time) {
  if (!time.contains("reading_phase_seconds")) return;  // a device that does not time readings
  fmt::print(
      "device time: timed calls {:.3f} s in {} readings, {:.0f}% of the {:.3f} s the readings "
      "took and {:.0f}% with the inputs ({:.3f} s, {:.0f}% on 2 MiB pages); round trip of an "
      "empty call {:.1f} us\n",
      time.value("timed_seconds", 0.0), time.value("readings", 0),
      100 * time.value("timed_share_of_readings", 0.0), time.value("reading_phase_seconds", 0.0),
      100 * time.value("timed_share", 0.0), time.value("inputs_seconds", 0.0),
      100 * time.value("input_huge_page_share", 0.0), 1e6 * time.value("round_trip_seconds", 0.0));
}

// The loop's acceptance test (loop/acceptance_procedure.h) of B against A on the target, after both
// passed their check at every shape set.
int run_compare(CompareArgs args) {
  args.acceptance.rule = value_or_fail(statistics::parse_rule_kind(args.rule));
  // Whether the settings hold is known before anything is built.
  {
    statistics::RuleSettings settings{args.acceptance.rule, args.acceptance.alpha,
                                      args.acceptance.cap, 1.0, true};
    if (auto factory = statistics::rule_factory(settings); !factory)
      throw UsageError(factory.error().message);
  }
  args.acceptance.confirm_max_pairs = static_cast<int>(args.acceptance.confirm_calls);
  const std::string a_text = read_source_or_throw(args.a);
  const std::string b_text = read_source_or_throw(args.b);
  const auto target =
      verb_target_or_throw(args.target, args.toolchain, args.manifest, args.workspace);
  // After the target: a command target's manifest may declare kernels of its own.
  const NamedKernel named = named_kernel_or_throw(args.kernel, args.workspace, target.get());
  const KernelContract& kernel = *named.kernel;
  const auto a_artifact = build_or_throw(*target, a_text, args.a);
  const auto b_artifact = build_or_throw(*target, b_text, args.b);
  // Timing a wrong kernel means nothing: both must pass the check first.
  for (const auto& [label, artifact] :
       {std::pair{args.a, a_artifact}, std::pair{args.b, b_artifact}}) {
    const auto report = check_at_every_shape_set(*target, kernel, artifact, {});
    if (!report.correct()) {
      fmt::print(stderr, "headway: {} is not correct: {}\n", label, report.description);
      return kExitNegative;
    }
  }
  const uint64_t seed = args.have_seed ? args.seed : fresh_seed();
  auto device =
      value_or_fail(loop::open_paired_device(*target, kernel, a_artifact, b_artifact, seed));
  Rng coin(mix_seed(seed, statistics::kCoinStream));
  statistics::MemorySink memory;
  std::unique_ptr<statistics::JsonLinesSink> file;
  if (!args.log.empty()) {
    file = value_or_fail(statistics::JsonLinesSink::open(args.log, true));
  }
  statistics::TeeSink tee({&memory, file.get()});
  const statistics::PairLabel label{std::string(kernel.name()), args.b, 0, 0};
  loop::PairedVerdict verdict;
  try {
    verdict = value_or_fail(
        loop::run_paired_test(*device, args.acceptance, std::nullopt, coin, label, tee));
  } catch (const statistics::ArmDisqualified& e) {
    const std::string who = e.arm() == statistics::Arm::kHead ? args.a : args.b;
    if (args.json) {
      const nlohmann::json j = {{"kernel", kernel.name()},
                                {"target", target->name()},
                                {"outcome", "CHEATED"},
                                {"arm", statistics::to_string(e.arm())},
                                {"source", who},
                                {"reason", e.what()},
                                {"device_time", device->accounting()}};
      fmt::print("{}\n", j.dump(2));
    } else {
      fmt::print("{}: CHEATED: {} broke the rules of timing: {}\n", kernel.name(), who, e.what());
    }
    return kExitNegative;
  }
  const auto& record = verdict.record;
  nlohmann::json shape_sets = nlohmann::json::array();
  for (const KernelContract* at : timed_shape_sets(kernel))
    shape_sets.push_back(at->shape_set_name());
  if (args.json) {
    const nlohmann::json j = {{"kernel", kernel.name()},
                              {"target", target->name()},
                              {"toolchain", target->identity().id},
                              {"shape_sets", shape_sets},
                              {"outcome", statistics::to_string(record.outcome)},
                              {"pairs", record.d.size()},
                              {"effect_pct", verdict.effect_pct},
                              {"ci_pct", {verdict.ci_low_pct, verdict.ci_high_pct}},
                              {"ci_coverage", verdict.ci_coverage},
                              {"rule_config", statistics::rule_config_json(verdict.settings)},
                              {"warmup_readings", verdict.warmup_readings},
                              {"seed", seed},
                              {"note", verdict.note},
                              {"confirmation",
                               {{"readings", verdict.confirmation.readings},
                                {"pairs", verdict.confirmation.pairs},
                                {"verified_calls", verdict.confirmation.verified_calls}}},
                              {"device_time", device->accounting()}};
    fmt::print("{}\n", j.dump(2));
    return kExitOk;
  }
  fmt::print("{}: B against A on {}: {} after {} pairs\n", kernel.name(), target->name(),
             statistics::to_string(record.outcome), record.d.size());
  fmt::print(
      "effect (A's time B saves, median): {:+.2f}% [{:+.2f}%, {:+.2f}%] ({:.0f}% interval)\n",
      verdict.effect_pct, verdict.ci_low_pct, verdict.ci_high_pct, 100 * verdict.ci_coverage);
  if (!verdict.note.empty()) fmt::print("note: {}\n", verdict.note);
  print_device_time(device->accounting());
  return kExitOk;
}
}  // namespace

void add_compare(CLI::App& app, int* exit_code) {
  auto args = std::make_shared<CompareArgs>();
  auto* cmd = app.add_subcommand(
      "compare", "One acceptance test of candidate B against head A, as the loop runs it");
  cmd->add_option("--kernel", args->kernel, kKernelOptionHelp)->required();
  cmd->add_option("--workspace", args->workspace,
                  "the workspace whose added kernels --kernel may name (default: the one here)");
  cmd->add_option("--a", args->a, "head source")->required();
  cmd->add_option("--b", args->b, "candidate source")->required();
  cmd->add_option("--target", args->target,
                  "cpu, sim, command, cuda (default: the workspace's, with its toolchain; else "
                  "cpu)");
  cmd->add_option("--toolchain,--cxx", args->toolchain,
                  "the target's toolchain (cpu: the C++ compiler; default: the target's own)");
  cmd->add_option("--manifest", args->manifest, kManifestOptionHelp);
  cmd->add_option("--acceptance-rule", args->rule,
                  "betting (default), or reference, threshold, lowest-mean (for ablations)");
  cmd->add_option("--alpha", args->acceptance.alpha, "level of FASTER and SLOWER");
  cmd->add_option("--cap", args->acceptance.cap, "pairs before INCONCLUSIVE (betting)");
  cmd->add_option("--warmup", args->acceptance.warmup_readings,
                  "head readings that estimate the betting rule's prior (default 10)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--confirm-calls", args->acceptance.confirm_calls,
                  "B's calls verified before a FASTER stands (0: none)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--seed", args->seed, "seed of the inputs, the order coin and the shape sets")
      ->each([args](const std::string&) { args->have_seed = true; });
  cmd->add_option("--log", args->log, "append every reading to this JSON-lines file");
  cmd->add_flag("--json", args->json, "print one JSON object");
  cmd->callback([args, exit_code] { run_verb(exit_code, [&] { return run_compare(*args); }); });
}

}  // namespace headway::cli
