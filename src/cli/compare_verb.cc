#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <random>

#include "cli/cli_support.h"
#include "cli/verbs.h"
#include "statistics/betting_rule.h"
#include "statistics/calibration.h"
#include "statistics/confirmation.h"
#include "statistics/effect_estimate.h"
#include "statistics/reading_sink.h"

namespace headway::cli {

namespace {
struct CompareArgs {
  std::string kernel;
  std::string a, b;
  double alpha = 0.05;
  int cap = 24;
  int64_t confirm_calls =
      statistics::calls_to_catch(statistics::kWrongShare, statistics::kWrongEscape);
  uint64_t seed = 0;
  bool have_seed = false;
  std::string log;
  std::string workspace;  // whose added kernels --kernel may name
  bool json = false;
};

int run_compare(const CompareArgs& args) {
  const KernelContract& kernel = kernel_or_throw(args.kernel, args.workspace);
  statistics::BettingConfig config;
  config.alpha = args.alpha;
  config.cap = args.cap;
  config.s0 = 1.0;  // validated here for alpha and cap; the real s0 comes from the warm-up
  value_or_fail(statistics::validate(config));
  const std::string a_text = read_source_or_throw(args.a);
  const std::string b_text = read_source_or_throw(args.b);
  const auto target = target_or_throw("cpu");
  const auto a_artifact = build_or_throw(*target, a_text, args.a);
  const auto b_artifact = build_or_throw(*target, b_text, args.b);
  // Timing a wrong kernel means nothing: both must pass the check first.
  for (const auto& [label, artifact] :
       {std::pair{args.a, a_artifact}, std::pair{args.b, b_artifact}}) {
    const auto report = target->check(kernel, artifact, {});
    if (!report.correct()) {
      fmt::print(stderr, "headway: {} is not correct: {}\n", label, report.description);
      return 1;
    }
  }
  const uint64_t seed = args.have_seed ? args.seed : std::random_device{}();
  auto paired = target->paired_device(kernel, a_artifact, b_artifact, seed);
  if (!paired) fail_with(paired.error());
  statistics::PairedDevice* device = paired.value().get();
  auto s0 = statistics::estimate_s0(*device, 16);
  if (!s0)
    fail_with(
        Error{s0.error().code, "cannot estimate the noise of the head: " + s0.error().message});
  config.s0 = s0.value();
  config.adapt_s0 = true;  // the warm-up's estimate is a prior the pairs update
  statistics::BettingRule rule(config);
  Rng coin(mix_seed(seed, statistics::kCoinStream));
  statistics::MemorySink memory;
  std::unique_ptr<statistics::JsonLinesSink> file;
  if (!args.log.empty()) {
    auto opened = statistics::JsonLinesSink::open(args.log, true);
    if (!opened) fail_with(opened.error());
    file = std::move(opened.value());
  }
  statistics::TeeSink tee({&memory, file.get()});
  const statistics::PairLabel label{std::string(kernel.name()), args.b, 0, 0};
  statistics::DecisionRecord record;
  statistics::Confirmation confirmed;
  try {
    // A FASTER stands only once enough of B's calls are verified, as in the loop.
    auto decided = statistics::decide_and_confirm(
        *device, rule, coin, label, tee, args.confirm_calls, static_cast<int>(args.confirm_calls));
    record = std::move(decided.record);
    confirmed = decided.confirmation;
  } catch (const statistics::ArmDisqualified& e) {
    const std::string who = e.arm() == statistics::Arm::kHead ? args.a : args.b;
    if (args.json) {
      const nlohmann::json j = {{"kernel", kernel.name()},
                                {"outcome", "CHEATED"},
                                {"arm", statistics::to_string(e.arm())},
                                {"source", who},
                                {"reason", e.what()},
                                {"device_time", device->accounting()}};
      fmt::print("{}\n", j.dump(2));
    } else {
      fmt::print("{}: CHEATED: {} broke the rules of timing: {}\n", kernel.name(), who, e.what());
    }
    return 1;
  }
  const statistics::EffectEstimate effect = statistics::estimate_effect(record.d);
  const std::string note =
      statistics::early_stop_note(record.outcome, static_cast<int>(record.d.size()), config.cap);
  if (args.json) {
    const nlohmann::json j = {{"kernel", kernel.name()},
                              {"outcome", statistics::to_string(record.outcome)},
                              {"pairs", record.d.size()},
                              {"effect_pct", effect.median_pct},
                              {"ci_pct", {effect.lower_pct, effect.upper_pct}},
                              {"ci_coverage", effect.coverage},
                              {"s0", config.s0},
                              {"s0_adapted", config.adapt_s0},
                              {"alpha", config.alpha},
                              {"seed", seed},
                              {"note", note},
                              {"confirmation",
                               {{"readings", confirmed.readings},
                                {"pairs", confirmed.pairs},
                                {"verified_calls", confirmed.verified_calls}}},
                              {"device_time", device->accounting()}};
    fmt::print("{}\n", j.dump(2));
  } else {
    fmt::print("{}: B against A: {} after {} pairs\n", kernel.name(),
               statistics::to_string(record.outcome), record.d.size());
    fmt::print("effect (B time vs A, median): {:+.2f}% [{:+.2f}%, {:+.2f}%] ({:.0f}% interval)\n",
               effect.median_pct, effect.lower_pct, effect.upper_pct, 100 * effect.coverage);
    if (!note.empty()) fmt::print("note: {}\n", note);
    if (const std::string c = confirmed.describe(); !c.empty()) fmt::print("{}\n", c);
    const auto time = device->accounting();
    fmt::print(
        "device time: timed calls {:.3f} s in {} readings, {:.0f}% of the {:.3f} s the readings "
        "took and {:.0f}% with the inputs ({:.3f} s, {:.0f}% on 2 MiB pages); round trip of an "
        "empty call {:.1f} us\n",
        time.value("timed_seconds", 0.0), time.value("readings", 0),
        100 * time.value("timed_share_of_readings", 0.0), time.value("reading_phase_seconds", 0.0),
        100 * time.value("timed_share", 0.0), time.value("inputs_seconds", 0.0),
        100 * time.value("input_huge_page_share", 0.0),
        1e6 * time.value("round_trip_seconds", 0.0));
  }
  return 0;
}
}  // namespace

void add_compare(CLI::App& app, int* exit_code) {
  auto args = std::make_shared<CompareArgs>();
  auto* cmd = app.add_subcommand(
      "compare", "One acceptance test of candidate B against head A on the cpu target");
  cmd->add_option("--kernel", args->kernel, kKernelOptionHelp)->required();
  cmd->add_option("--workspace", args->workspace,
                  "the workspace whose added kernels --kernel may name (default: the one here)");
  cmd->add_option("--a", args->a, "head source")->required();
  cmd->add_option("--b", args->b, "candidate source")->required();
  cmd->add_option("--alpha", args->alpha, "level of FASTER and SLOWER");
  cmd->add_option("--cap", args->cap, "pairs before INCONCLUSIVE");
  cmd->add_option("--confirm-calls", args->confirm_calls,
                  "B's calls verified before a FASTER stands (0: none)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--seed", args->seed, "seed of the inputs and of the order coin")
      ->each([args](const std::string&) { args->have_seed = true; });
  cmd->add_option("--log", args->log, "append every reading to this JSON-lines file");
  cmd->add_flag("--json", args->json, "print one JSON object");
  cmd->callback([args, exit_code] { run_verb(exit_code, [&] { return run_compare(*args); }); });
}

}  // namespace headway::cli
