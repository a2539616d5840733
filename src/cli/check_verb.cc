#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "cli/cli_support.h"
#include "cli/verbs.h"

namespace headway::cli {

namespace {
struct CheckArgs {
  std::string kernel;
  std::string source;
  std::optional<uint64_t> seed;
  std::optional<double> timeout;  // the target's own limit when not given
  std::string target;             // empty: the workspace's, else cpu (verb_target_or_throw)
  std::string toolchain;
  std::string manifest;
  std::string workspace;  // whose added kernels --kernel may name
  std::string shape_set;  // --shape-set: the one checked (default: every one)
  bool json = false;
};

const char* outcome_name(targets::CheckOutcome::Status s) {
  using S = targets::CheckOutcome::Status;
  switch (s) {
    case S::kCorrect:
      return "correct";
    case S::kIncorrect:
      return "incorrect";
    case S::kCrashed:
      return "crashed";
    case S::kTimedOut:
      return "timed-out";
    case S::kUnloadable:
      return "unloadable";
    case S::kCheated:
      return "cheated";
  }
  return "";
}

// Through the Target interface, on any target. A target whose device is not on this machine is
// an environment error (exit 3), said in one line; a source without the entry point is the user's
// (exit 2), not a wrong kernel.
int run_check(const CheckArgs& args) {
  const std::string source = read_source_or_throw(args.source);
  auto target = verb_target_or_throw(args.target, args.toolchain, args.manifest, args.workspace);
  // After the target: a command target's manifest may declare kernels of its own.
  const NamedKernel named = named_kernel_or_throw(args.kernel, args.workspace, target.get());
  const KernelContract& kernel = *named.kernel;
  const targets::Artifact artifact = build_or_throw(*target, source, args.source);
  targets::CheckOptions options;
  options.seed = args.seed;
  options.call_timeout_seconds = args.timeout;
  targets::CheckOutcome outcome =
      check_at_every_shape_set(*target, kernel, artifact, options, args.shape_set);
  if (outcome.status == targets::CheckOutcome::Status::kUnloadable)
    throw UsageError(outcome.description);
  if (args.json) {
    const nlohmann::json j = {
        {"kernel", kernel.name()},    {"source", args.source},
        {"target", target->name()},   {"status", outcome_name(outcome.status)},
        {"kind", outcome.kind},       {"seed", outcome.seed},
        {"seconds", outcome.seconds}, {"message", outcome.description},
        {"details", outcome.details}};
    fmt::print("{}\n", j.dump(2));
  } else {
    fmt::print("{}: {} ({:.1f} s)\n", kernel.name(), outcome.description, outcome.seconds);
  }
  return outcome.correct() ? 0 : 1;
}
}  // namespace

void add_check(CLI::App& app, int* exit_code) {
  auto args = std::make_shared<CheckArgs>();
  auto* cmd = app.add_subcommand("check", "Build a candidate and check it against the reference");
  cmd->add_option("--kernel", args->kernel, kKernelOptionHelp)->required();
  cmd->add_option("--workspace", args->workspace,
                  "the workspace whose added kernels --kernel may name (default: the one here)");
  cmd->add_option("--source", args->source, "candidate source file")->required();
  cmd->add_option("--shape-set", args->shape_set,
                  "check at this shape set only, check-only ones too (default: every one)");
  cmd->add_option("--seed", args->seed, "fixed input seed (default: fresh inputs)");
  cmd->add_option("--timeout", args->timeout,
                  "seconds one call may take (default: the target's own; cpu: 10)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--target", args->target,
                  "cpu, cuda, or another registered target (default: the workspace's, with its "
                  "toolchain; else cpu)");
  cmd->add_option("--toolchain,--cxx", args->toolchain,
                  "the target's toolchain (cpu: the C++ compiler; default: the target's own)");
  cmd->add_option("--manifest", args->manifest, kManifestOptionHelp);
  cmd->add_flag("--json", args->json, "print one JSON object");
  cmd->callback([args, exit_code] { run_verb(exit_code, [&] { return run_check(*args); }); });
}

}  // namespace headway::cli
